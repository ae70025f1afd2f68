"""compile_linear: RE2 patterns with flags, RE2's reason for a refusal, and catastrophic patterns
that answer at once."""

from __future__ import annotations

import pytest

from onceflow.patterns.regex import UnsupportedRegex, compile_linear


def test_flags() -> None:
    assert compile_linear("abc", ignore_case=True).search("xABCx") is not None
    assert compile_linear("abc").search("xABCx") is None
    assert compile_linear("^b", multiline=True).search("a\nb") is not None
    assert compile_linear("^b").search("a\nb") is None


@pytest.mark.parametrize(("pattern", "reason"), [
    ("(a)\\1", "invalid escape sequence: \\1"),
    ("a(?=b)", "invalid perl operator: (?="),
    ("(", "missing ): ("),
])
def test_refusal_carries_re2s_reason(pattern: str, reason: str) -> None:
    with pytest.raises(UnsupportedRegex) as info:
        compile_linear(pattern)
    assert str(info.value) == reason


@pytest.mark.parametrize("pattern", ["^(a+)+$", "(a|aa)*c", "(a*)*b", "a*" * 30 + "c"])
def test_catastrophic_patterns_answer(pattern: str) -> None:
    # Each takes longer than any test would wait under CPython's backtracking engine.
    assert compile_linear(pattern).search("a" * 10_000 + "!") is None
