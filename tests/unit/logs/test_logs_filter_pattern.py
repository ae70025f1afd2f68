"""Filter patterns against AWS's documented examples (cases/filter_patterns.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onceflow.logs.filter_pattern import FilterPatternError, compile_pattern, split_fields

CASES = json.loads((Path(__file__).parent / "cases" / "filter_patterns.json").read_text())
MATCH_CASES = [
    pytest.param(pattern, message, expected, id=f"{kind}:{pattern}|{message[:30]}")
    for kind in ("terms", "json", "delimited")
    for pattern, message, expected in CASES[kind]
]


@pytest.mark.parametrize(("pattern", "message", "expected"), MATCH_CASES)
def test_pattern_matches_as_documented(pattern: str, message: str, expected: bool) -> None:
    assert compile_pattern(pattern)(message) is expected


@pytest.mark.parametrize(("pattern", "message"), [pytest.param(p, m, id=p) for p, m in CASES["invalid"]])
def test_invalid_pattern_is_rejected_with_aws_wording(pattern: str, message: str | None) -> None:
    with pytest.raises(FilterPatternError) as info:
        compile_pattern(pattern)
    assert str(info.value).startswith("Invalid character(s) in term '")
    if message is not None:
        assert str(info.value) == message


def test_space_delimited_fields_keep_quoted_and_bracketed_text_whole() -> None:
    line = '127.0.0.1 - frank [10/Oct/2000:13:25:15 -0700] "GET /index.html HTTP/1.0" 404 1534'
    assert split_fields(line) == [
        "127.0.0.1", "-", "frank", "10/Oct/2000:13:25:15 -0700", "GET /index.html HTTP/1.0", "404", "1534",
    ]


def test_compiled_patterns_are_cached_by_text() -> None:
    assert compile_pattern("{ $.a = 1 }") is compile_pattern("{ $.a = 1 }")


def test_none_pattern_matches_everything() -> None:
    assert compile_pattern(None)("x")
