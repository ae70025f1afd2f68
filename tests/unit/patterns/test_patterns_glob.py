"""The linear-time glob matcher: its three dialects, pathological inputs, and equivalence with a
brute-force reference on random inputs."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from onceflow.patterns import glob as glob_module
from onceflow.patterns.glob import ANY, STAR, Glob, iam_glob, logs_glob, sfn_glob


def reference(tokens: list[object], text: str) -> bool:
    """Brute force: does `text` match the token list? (memoized recursion over both positions)"""

    @cache
    def at(i: int, j: int) -> bool:
        if i == len(tokens):
            return j == len(text)
        token = tokens[i]
        if token is STAR:
            return any(at(i + 1, k) for k in range(j, len(text) + 1))
        if j == len(text):
            return False
        return (token is ANY or token == text[j]) and at(i + 1, j + 1)

    return at(0, 0)


# ------------------------------------------------------------------------------------ dialects
@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("*", "", True),
        ("*", "anything:at/all", True),
        ("", "", True),
        ("", "a", False),
        ("abc", "abc", True),
        ("abc", "abcd", False),
        ("a?c", "abc", True),
        ("a?c", "ac", False),
        ("a*c", "ac", True),
        ("a*c", "abbbc", True),
        ("a*c", "abbbd", False),
        ("*c", "abc", True),
        ("a*", "abc", True),
        ("*b*", "abc", True),
        ("*b*", "ac", False),
        ("a**c", "ac", True),
        ("?", "", False),
        ("??", "ab", True),
        ("a*b?d*e", "aXbcdYe", True),
        ("a*b?d*e", "abd", False),
        ("ab*ba", "aba", False),  # head and tail may not overlap
        ("ab*ba", "abba", True),
        ("my-bucket/*", "my-bucket/photos/2024/x.png", True),
        ("\\*", "\\x", True),  # IAM has no escapes: the backslash is literal, the star a wildcard
    ],
)
def test_iam_dialect(pattern: str, text: str, expected: bool) -> None:
    assert iam_glob(pattern).matches(text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("log-*.txt", "log-2024.txt", True),
        ("log-*.txt", "log-2024.csv", False),
        ("*", "", True),
        ("a\\*b", "a*b", True),  # an escaped star is literal
        ("a\\*b", "axb", False),
        ("a\\\\*", "a\\tail", True),  # an escaped backslash, then a wildcard
        ("a\\\\*", "atail", False),
        ("a?c", "a?c", True),  # `?` is not a wildcard in StringMatches
        ("a?c", "abc", False),
        ("a\\xc", "axc", True),  # a backslash before another character stands for that character
        ("end\\", "end\\", True),  # a trailing backslash is itself
    ],
)
def test_step_functions_string_matches_dialect(pattern: str, text: str, expected: bool) -> None:
    assert sfn_glob(pattern).matches(text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("Ev*", "Event", True),
        ("*ent", "Event", True),
        ("*ven*", "Event", True),
        ("Ev*nt", "Event", False),  # an inner star is literal
        ("Ev*nt", "Ev*nt", True),
        ("*", "", True),
        ("**", "xyz", True),
        ("a?c", "abc", False),  # `?` is literal
        ("a?c", "a?c", True),
    ],
)
def test_logs_value_dialect(pattern: str, text: str, expected: bool) -> None:
    assert logs_glob(pattern).matches(text) is expected


# ------------------------------------------------------------------------------------ pathological
@pytest.mark.parametrize("stars", [10, 40, 400])
def test_many_stars_against_a_near_miss_answer(stars: int) -> None:
    # A backtracking regex takes exponential time here (the 9.8-16.8 s at 80 characters);
    # these sizes would never finish under one.
    text = "a" * (stars * 20)
    assert iam_glob("a*" * stars + "b").matches(text) is False
    assert iam_glob("a*" * stars + "a").matches(text) is True
    assert iam_glob("*a" * stars + "*b*").matches(text) is False
    assert sfn_glob("*a" * stars + "*b").matches(text) is False
    assert iam_glob("*a?" * stars + "*b").matches(text) is False
    assert iam_glob("*a?" * stars + "*").matches(text) is True


def test_long_segments_with_wildcards_against_a_long_text() -> None:
    segment = "a?" * 500
    text = "a" * 100_000
    assert iam_glob(f"*{segment}b*").matches(text) is False
    assert iam_glob(f"*{segment}*").matches(text) is True
    assert iam_glob(f"*{segment}").matches(text + "a") is True


def test_arn_sized_patterns() -> None:
    arn = "arn:aws:iam::000000000000:role/" + "a" * 64
    assert iam_glob("arn:aws:iam::*:role/" + "*a" * 70 + "*").matches(arn) is False
    assert iam_glob("arn:aws:iam::*:role/" + "*a" * 64 + "*").matches(arn) is True


# ------------------------------------------------------------------------------------ equivalence
def _random_tokens(rng: random.Random, alphabet: str) -> list[object]:
    choices: list[object] = [STAR, ANY, *alphabet]
    return [rng.choice(choices) for _ in range(rng.randint(0, 8))]


@pytest.mark.parametrize("seed", range(8))
def test_matches_the_brute_force_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(1500):
        tokens = _random_tokens(rng, "ab")
        text = "".join(rng.choice("ab") for _ in range(rng.randint(0, 10)))
        assert Glob(tokens).matches(text) is reference(tokens, text), (tokens, text)


@pytest.mark.parametrize("seed", range(4))
def test_dialects_agree_with_a_regex_translation_on_small_inputs(seed: int) -> None:
    # On inputs this small a backtracking regex is quick: it is an independent second reference.
    rng = random.Random(1000 + seed)
    for _ in range(1000):
        text = "".join(rng.choice("ab*?\\") for _ in range(rng.randint(0, 8)))
        pattern = "".join(rng.choice("ab*?\\") for _ in range(rng.randint(0, 6)))
        iam = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
        assert iam_glob(pattern).matches(text) is bool(re.fullmatch(iam, text, re.S)), (pattern, text)
        sfn, i = [], 0
        while i < len(pattern):
            if pattern[i] == "\\" and i + 1 < len(pattern):
                sfn.append(re.escape(pattern[i + 1]))
                i += 2
                continue
            sfn.append(".*" if pattern[i] == "*" else re.escape(pattern[i]))
            i += 1
        assert sfn_glob(pattern).matches(text) is bool(re.fullmatch("".join(sfn), text, re.S)), (pattern, text)


@pytest.mark.parametrize("seed", range(4))
def test_segments_past_the_mask_budget_match_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Past the budget a segment is found by its longest literal chunk and checked in place.
    monkeypatch.setattr(glob_module, "_MASK_BITS", 0)
    rng = random.Random(500 + seed)
    for _ in range(1500):
        tokens = _random_tokens(rng, "ab")
        text = "".join(rng.choice("ab") for _ in range(rng.randint(0, 10)))
        assert Glob(tokens).matches(text) is reference(tokens, text), (tokens, text)


def test_many_distinct_characters_build_no_masks() -> None:
    # Masks would take (distinct characters x length) bits: here 5,000 x 10,000.
    letters = [chr(0x4E00 + i) for i in range(5000)]
    pattern = "*" + "".join(f"{c}?" for c in letters) + "*"
    compiled = iam_glob(pattern)
    assert compiled.middle[0].masks is None
    text = "x" + "".join(f"{c}-" for c in letters) + "y"
    assert compiled.matches(text) is True
    assert compiled.matches(text.replace(letters[-1], "z")) is False
