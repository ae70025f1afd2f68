"""JSONata regex literals on RE2: the regex functions keep their answers, catastrophic patterns
answer at once, and what RE2 cannot run is refused when the expression is parsed."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.jsonata import evaluate_jsonata, jsonata_syntax_error
from onceflow.sfn.asl.jsonata_regex import LinearPattern, translate


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ('$contains("hello$world", /^hello\\$/)', True),  # AWS-recorded (conformance corpus)
        ('$contains("abc", /B/i)', True),
        ('$contains("abc", /B/)', False),
        ('$match("abc-abd", /a(b)(c|d)/)', [{"match": "abc", "index": 0, "groups": ["b", "c"]},
                                            {"match": "abd", "index": 4, "groups": ["b", "d"]}]),
        ('$match("ab\\ncd", /^c/m)', {"match": "c", "index": 3, "groups": []}),
        ('$match("A", /\\u0041/)', {"match": "A", "index": 0, "groups": []}),
        ('$replace("abcabc", /(b)/, "[$1]")', "a[b]ca[b]c"),
        ('$replace("abc", /(b)/, "$0$0")', "abbc"),
        ('$replace("abc", /(b)/, "$12")', "ab2c"),  # no group 12: group 1, then the digit
        ('$replace("abc", /b/, "$1")', "ac"),  # no group 1: empty
        ('$replace("aaa", /a/, "b", 2)', "bba"),
        ('$replace("a.b", /\\./, "\\\\n")', "a\\nb"),  # a backslash in the replacement is literal
        ('$replace("abc", /b/, function($m){ $uppercase($m.match) })', "aBc"),
        ('$split("a1b22c", /\\d+/)', ["a", "b", "c"]),
        ('/a(b)/("xab").match', "ab"),
        ('($f := function($s){ $contains($s, /b/) }; $f("ab"))', True),
    ],
)
def test_regex_functions_answer_as_before(expr: str, expected: Any) -> None:
    assert evaluate_jsonata(expr, {}) == expected


def test_catastrophic_patterns_answer() -> None:
    # Under CPython's backtracking engine each of these takes longer than any test would wait.
    text = "a" * 5000 + "!"
    assert evaluate_jsonata(f'$contains("{text}", /^(a+)+$/)', {}) is False
    assert evaluate_jsonata(f'$count($match("{text}", /(a|aa)*b/))', {}) == 0
    assert evaluate_jsonata(f'$replace("{text}", /(a*)*b/, "x")', {}) == text


@pytest.mark.parametrize(
    ("expr", "why"),
    [
        ('$match("aa", /(a)\\1/)', "which has no backreferences"),
        ('$match("aa", /a(?=a)/)', "which has no lookahead or lookbehind"),
        ('$match("aa", /(?<=a)a/)', "which has no lookahead or lookbehind"),
        ('$match("aa", /a{1001}/)', "invalid repetition size"),
    ],
)
def test_what_re2_cannot_run_is_refused_at_parse(expr: str, why: str) -> None:
    problem = jsonata_syntax_error(expr)
    assert problem is not None and problem.startswith("Invalid regular expression /") and why in problem
    with pytest.raises(StateDataError) as info:
        evaluate_jsonata(expr, {})
    assert info.value.error == "States.QueryEvaluationError"
    assert why in info.value.cause


def test_literals_compile_to_linear_patterns() -> None:
    from onceflow.sfn.asl.jsonata import compile_jsonata

    ast = compile_jsonata('$match("x", /x/)').expr.ast
    literals = [a for a in ast.arguments if isinstance(getattr(a, "value", None), LinearPattern)]
    assert len(literals) == 1


def test_translation_of_javascript_escapes() -> None:
    assert translate("\\u00e9") == "\\x{00e9}"
    assert translate("\\cJ") == "\\x{0a}"
    assert translate("a\\\\u0041") == "a\\\\u0041"  # an escaped backslash, then literal text
    assert translate("\\d+\\/") == "\\d+\\/"


def test_jsonpath_filter_regex_runs_on_re2() -> None:
    from onceflow.sfn.asl.paths import resolve_path

    data = {"u": [{"n": "a" * 5000 + "!"}, {"n": "a" * 5000}, {"n": "AB"}]}
    assert resolve_path("$.u[?(@.n =~ /(a+)+$/)]", data) == [{"n": "a" * 5000}]
    assert resolve_path("$.u[?(@.n =~ /ab.*/i)]", data) == [{"n": "AB"}]
