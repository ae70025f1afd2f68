"""JSONata regex literals (`/.../i`) on RE2, so `$match`, `$replace`, `$split`, `$contains` and a
regex called as a function run in linear time (onceflow.patterns.regex).

jsonata-python compiles every literal through a pluggable `regex_engine(pattern, flags)`;
`regex_engine` below is that hook, handed to `jsonata.Jsonata`. JSONata's literals are JavaScript
regexes: the escapes RE2 spells differently are translated (`\\uXXXX`, `\\cX`); what RE2 cannot
do in linear time (backreferences, lookahead, lookbehind) is refused when the expression is
parsed, with a message that says so (at CreateStateMachine that is an INVALID_JSONATA_EXPRESSION;
AWS, running jsonata-js, would accept them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # jsonata-python is imported on the first expression (sfn/asl/jsonata.py)
    from jsonata.regex_engine import RegexFlags

from onceflow.patterns.regex import UnsupportedRegex, compile_linear

_GROUP_REFERENCE = re.compile(r"\\g<(\d+)>")  # what jsonata-python turns `$1` into before calling sub()
_HEX = frozenset("0123456789abcdefABCDEF")


class JsonataRegexError(ValueError):
    """A regex literal onceflow cannot run; str(e) says why."""


def translate(pattern: str) -> str:
    """JavaScript regex source -> RE2 source, for the escapes whose spelling differs."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c != "\\" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        nxt = pattern[i + 1]
        if nxt == "u" and i + 6 <= n and all(h in _HEX for h in pattern[i + 2 : i + 6]):
            out.append("\\x{" + pattern[i + 2 : i + 6] + "}")
            i += 6
        elif nxt == "c" and i + 2 < n and pattern[i + 2].isascii() and pattern[i + 2].isalpha():
            out.append("\\x{%02x}" % (ord(pattern[i + 2]) % 32))
            i += 3
        else:
            out.append(pattern[i : i + 2])
            i += 2
    return "".join(out)


def _why(pattern: str, reason: str) -> str:
    if re.search(r"\(\?<?[=!]", pattern):
        kind = "lookahead or lookbehind"
    elif re.search(r"\\[1-9]|\\k<", pattern):
        kind = "backreferences"
    else:
        return f"Invalid regular expression /{pattern}/: {reason}"
    return (f"Invalid regular expression /{pattern}/: onceflow runs JSONata regular expressions on RE2 "
            f"(linear time), which has no {kind}")


class LinearPattern:
    """An RE2 pattern with the interface jsonata-python calls (search, finditer, sub, split)."""

    __slots__ = ("_re", "pattern")

    def __init__(self, pattern: str, compiled: Any) -> None:
        self.pattern = pattern
        self._re = compiled

    def search(self, string: str) -> Any:
        return self._re.search(string)

    def finditer(self, string: str) -> Iterator[Any]:
        matches: Iterator[Any] = self._re.finditer(string)
        return matches

    def split(self, string: str, maxsplit: int = 0) -> list[str]:
        pieces: list[str] = self._re.split(string, maxsplit)
        return pieces

    def sub(self, repl: str | Callable[[Any], str], string: str, count: int = 0) -> str:
        if callable(repl):
            replaced: str = self._re.sub(repl, string, count)
        else:
            replaced = self._re.sub(lambda m: _expand(repl, m), string, count)
        return replaced

    def __repr__(self) -> str:
        return f"/{self.pattern}/"


def _expand(template: str, match: Any) -> str:
    """A replacement as jsonata-python means it: `\\g<N>` is group N; a reference to a group the
    pattern lacks drops its last digit into the text (`\\g<12>` -> group 1 then "2"), a one-digit one
    becomes empty; every other character is literal (as in jsonata-js, backslashes included)."""
    groups = len(match.groups())

    def group(m: re.Match[str]) -> str:
        digits = m.group(1)
        while digits:
            number = int(digits)
            if number <= groups:
                return (match.group(number) or "") + m.group(1)[len(digits):]
            digits = digits[:-1]
        return m.group(1)[1:] if len(m.group(1)) > 1 else ""

    return _GROUP_REFERENCE.sub(group, template)


def regex_engine(pattern: str, flags: RegexFlags) -> LinearPattern:
    """jsonata-python's `regex_engine` hook: compile one literal on RE2 or refuse it."""
    try:
        compiled = compile_linear(translate(pattern), ignore_case=flags.case_insensitive,
                                  multiline=flags.multiline)
    except UnsupportedRegex as exc:
        raise JsonataRegexError(_why(pattern, str(exc))) from None
    return LinearPattern(pattern, compiled)
