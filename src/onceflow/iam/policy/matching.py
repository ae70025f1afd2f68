"""Wildcard matching for policy elements: actions (case-insensitive) and ARNs (case-sensitive).

`*` matches any run of characters and `?` exactly one (IAM's dialect of onceflow.patterns.glob, which
matches in linear time). An ARN pattern is matched segment by segment for its first five
colon-separated parts (so a wildcard there never crosses a `:`) and as a whole for the resource
part, where `*` crosses `/` and `:` alike. Patterns compile once and are cached.
"""

from __future__ import annotations

from functools import lru_cache

from onceflow.patterns.glob import Glob, iam_glob


class PolicyPattern(str):
    """A policy value after variable substitution that holds a `*` or `?` from ${*} or ${?}:
    `literal` lists their positions, where they match only themselves (IAM user guide, policy
    variables: special characters)."""

    literal: frozenset[int]

    def __new__(cls, text: str, literal: frozenset[int]) -> PolicyPattern:
        value = super().__new__(cls, text)
        value.literal = literal
        return value


_NONE: frozenset[int] = frozenset()


def _literal(pattern: str) -> frozenset[int]:
    return getattr(pattern, "literal", _NONE)


def glob_match(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    """True when `value` matches the whole of `pattern` (`*`, `?` wildcards)."""
    literal = _literal(pattern)
    pattern = str(pattern)
    if ignore_case:
        pattern, value = pattern.lower(), value.lower()
    if not literal:
        if pattern == "*":
            return True
        if "*" not in pattern and "?" not in pattern:
            return pattern == value
    return iam_glob(pattern, literal).matches(value)


def action_matches(pattern: str, action: str) -> bool:
    """`lambda:Invoke*` matches `lambda:InvokeFunction`; service prefix and name ignore case."""
    return glob_match(pattern, action, ignore_case=True)


def _arn_pattern(pattern: str, literal: frozenset[int]) -> tuple[Glob, ...]:
    return _cached_arn_pattern(pattern, literal) if len(pattern) <= 256 else _arn_globs(pattern, literal)


@lru_cache(maxsize=4096)
def _cached_arn_pattern(pattern: str, literal: frozenset[int]) -> tuple[Glob, ...]:
    return _arn_globs(pattern, literal)


def _arn_globs(pattern: str, literal: frozenset[int]) -> tuple[Glob, ...]:
    """One glob per ARN part for the first five parts and one for the resource; a pattern with
    fewer than five colons is one glob over the whole ARN."""
    parts = pattern.split(":", 5)
    if len(parts) < 6:
        return (iam_glob(pattern, literal),)
    globs, offset = [], 0
    for part in parts:
        globs.append(iam_glob(part, frozenset(i - offset for i in literal if offset <= i < offset + len(part))))
        offset += len(part) + 1
    return tuple(globs)


def arn_matches(pattern: str, arn: str) -> bool:
    """Case-sensitive ARN match; `*` alone matches every resource."""
    literal = _literal(pattern)
    pattern = str(pattern)
    if not literal:
        if pattern == "*":
            return True
        if "*" not in pattern and "?" not in pattern:
            return pattern == arn
    globs = _arn_pattern(pattern, literal)
    if len(globs) == 1:
        return globs[0].matches(arn)
    # The first five parts never hold a colon, so the ARN's first five colons line up with the pattern's.
    parts = arn.split(":", 5)
    return len(parts) == 6 and all(g.matches(p) for g, p in zip(globs, parts, strict=True))
