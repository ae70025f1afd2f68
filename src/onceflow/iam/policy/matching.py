"""Wildcard matching for policy elements: actions (case-insensitive) and ARNs (case-sensitive).

`*` matches any run of characters and `?` exactly one. An ARN pattern is matched segment by segment
for its first five colon-separated parts (so a wildcard there never crosses a `:`) and as a whole for
the resource part, where `*` crosses `/` and `:` alike. Patterns compile once and are cached.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _translate(pattern: str, any_char: str) -> str:
    """A glob as regex source: `*` is any run of `any_char`, `?` exactly one."""
    return "".join(f"{any_char}*" if ch == "*" else any_char if ch == "?" else re.escape(ch) for ch in pattern)


@lru_cache(maxsize=4096)
def _glob(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(_translate(pattern, "."), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def glob_match(pattern: str, value: str, *, ignore_case: bool = False) -> bool:
    """True when `value` matches the whole of `pattern` (`*`, `?` wildcards)."""
    if pattern == "*":
        return True
    if "*" not in pattern and "?" not in pattern:
        return pattern.lower() == value.lower() if ignore_case else pattern == value
    return _glob(pattern, ignore_case).fullmatch(value) is not None


def action_matches(pattern: str, action: str) -> bool:
    """`lambda:Invoke*` matches `lambda:InvokeFunction`; service prefix and name ignore case."""
    return glob_match(pattern, action, ignore_case=True)


@lru_cache(maxsize=4096)
def _arn_pattern(pattern: str) -> re.Pattern[str]:
    """One regex per ARN pattern: wildcards stay inside their segment for the first five parts."""
    parts = pattern.split(":", 5)
    if len(parts) < 6:
        return _glob(pattern, False)
    source = ":".join([*(_translate(p, "[^:]") for p in parts[:5]), _translate(parts[5], ".")])
    return re.compile(source, re.DOTALL)


def arn_matches(pattern: str, arn: str) -> bool:
    """Case-sensitive ARN match; `*` alone matches every resource."""
    if pattern == "*":
        return True
    if "*" not in pattern and "?" not in pattern:
        return pattern == arn
    return _arn_pattern(pattern).fullmatch(arn) is not None


def any_action(patterns: tuple[str, ...], action: str) -> bool:
    return any(action_matches(p, action) for p in patterns)


def any_arn(patterns: tuple[str, ...], arn: str) -> bool:
    return any(arn_matches(p, arn) for p in patterns)
