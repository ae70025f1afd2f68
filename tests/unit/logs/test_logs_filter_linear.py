"""Filter patterns that cannot stall: %regex% on RE2 with AWS's regex syntax, a linear field split,
and space-delimited fields aligned without trying every binding."""

from __future__ import annotations

import random
import re

import pytest

from onceflow.logs import filter_pattern
from onceflow.logs.filter_pattern import FilterPatternError, compile_pattern, split_fields


# ------------------------------------------------------------------------------------ %regex%
@pytest.mark.parametrize(
    ("pattern", "message", "expected"),
    [  # AWS's documented examples (FilterAndPatternSyntax, "Supported regular expressions")
        ("%^[hc]at%", "hat in hand", True),
        ("%^[hc]at%", "that", False),
        ("%[hc]at$%", "a cat", True),
        ("%colou?r%", "color", True),
        ("%colou?r%", "colour", True),
        ("%[abcx-z]%", "y", True),
        ("%[abcx-z]%", "d", False),
        ("%a{3,5}%", "baaab", True),
        ("%a{3,5}%", "baab", False),
        ("%gray|grey%", "grey sky", True),
        ("%10\\.10\\.0\\.1%", "from 10.10.0.1", True),
        ("%10\\.10\\.0\\.1%", "from 10x10y0z1", False),
        ("%[Ee]rror|[Ff]ail%", "it broke", False),
        ("%[Ee]rror|[Ff]ail%", "Fail!", True),
        ("%\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}%", "ip 192.168.0.1 ok", True),
        ("{ $.eventType = %^Upd% }", '{"eventType": "UpdateTrail"}', True),
    ],
)
def test_regex_terms_match_as_documented(pattern: str, message: str, expected: bool) -> None:
    assert compile_pattern(pattern)(message) is expected


@pytest.mark.parametrize(
    "pattern",
    [
        "%something!%",  # AWS's own example of a refused character
        "%(a+)+%",  # parentheses are not supported
        "%a b%",  # a space is not in AWS's list
        "%caf\u00e9%",  # multi-byte characters are not supported
        "%a{2,1}%",  # RE2 refuses it
        "%a\\1%",  # a backreference
        "{ $.a = %x(y% }",
    ],
)
def test_unsupported_regex_is_refused_with_aws_wording(pattern: str) -> None:
    with pytest.raises(FilterPatternError) as info:
        compile_pattern(pattern)
    assert str(info.value).startswith("Invalid character(s) in term '%")


def test_catastrophic_regex_answers() -> None:
    # Under CPython's backtracking engine this search takes longer than any test would wait.
    pattern = compile_pattern("%" + "a*" * 30 + "c%")
    assert pattern("a" * 5000) is False
    assert pattern("a" * 5000 + "c") is True
    json_pattern = compile_pattern("{ $.msg = %" + "a*" * 30 + "c% }")
    assert json_pattern('{"msg": "' + "a" * 5000 + '"}') is False


# ------------------------------------------------------------------------------------ field split
_OLD_FIELD = re.compile(r'"([^"]*)"|\[([^\]]*)\]|(\S+)')


def _old_split(message: str) -> list[str]:
    return [q if q is not None else b if b is not None else w for q, b, w in
            (m.groups() for m in _OLD_FIELD.finditer(message))]


@pytest.mark.parametrize("seed", range(4))
def test_split_matches_the_regex_definition(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(3000):
        message = "".join(rng.choice('ab "[]\t') for _ in range(rng.randint(0, 14)))
        assert split_fields(message) == _old_split(message), message


def test_split_of_many_unclosed_openers() -> None:
    # The regex rescanned to the end from each unclosed `[` (17 s for 80 KB); this is linear.
    assert split_fields("[ " * 100_000) == ["["] * 100_000
    assert split_fields("[ " * 100_000 + "]") == [" [" * 99_999 + " "]
    assert split_fields("[a] [b] [c") == ["a", "b", "[c"]


# ------------------------------------------------------------------------------------ delimited
def test_many_ellipses_are_aligned_not_enumerated() -> None:
    pattern = compile_pattern("[" + "..., " * 6 + 'status = 404, ..., bytes > 1000]')
    assert pattern.aligned  # type: ignore[attr-defined]
    fields = " ".join(["x"] * 300)
    assert pattern(f"{fields} 404 {fields} 2048") is True
    assert pattern(f"{fields} 404 {fields} 20") is False
    assert pattern(f"{fields} 500 {fields} 2048") is False


@pytest.mark.parametrize("seed", range(3))
def test_alignment_agrees_with_enumerating_bindings(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        slots = [rng.choice(["...", "a", "b = 1", "c = 2*", "d != 1", ""]) for _ in range(rng.randint(1, 5))]
        # Name each slot uniquely so the pattern can be aligned.
        named = []
        for k, slot in enumerate(slots):
            if slot in ("...", ""):
                named.append(slot)
            else:
                head, _, rest = slot.partition(" ")
                named.append(f"{head}{k} {rest}" if rest else f"{head}{k}")
        text = "[" + ", ".join(named) + "]"
        pattern = compile_pattern(text)
        assert pattern.aligned  # type: ignore[attr-defined]
        for _ in range(5):
            message = " ".join(rng.choice(["1", "2", "20", "x"]) for _ in range(rng.randint(0, 6)))
            values = split_fields(message)
            enumerated = any(pattern._satisfied(b)  # type: ignore[attr-defined]
                             for b in filter_pattern._bindings(pattern.names, values))  # type: ignore[attr-defined]
            assert pattern(message) is enumerated, (text, message)
