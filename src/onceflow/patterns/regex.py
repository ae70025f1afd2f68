"""User-supplied regular expressions, run on RE2 (google-re2): matching time is linear in the text
whatever the pattern, so a catastrophic pattern (`(a+)+$` on `aaaa...b`) costs no more than a
plain one. CPython's `re` would backtrack for seconds while holding the GIL, stalling every request.

RE2 has no backreferences or lookaround; a pattern using them, or anything else RE2 refuses, raises
UnsupportedRegex with RE2's reason, for the caller to turn into its service's error.
"""

from __future__ import annotations

from typing import Any

import re2

# Compile errors come back as exceptions; without this RE2 also prints each one on stderr.
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


class UnsupportedRegex(ValueError):
    """A pattern RE2 does not accept; str(e) is RE2's reason."""


def compile_linear(pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> Any:
    """A compiled RE2 pattern with the `re.Pattern` methods search/match/fullmatch/finditer/sub/split."""
    flags = ("i" if ignore_case else "") + ("m" if multiline else "")
    try:
        return re2.compile(f"(?{flags}){pattern}" if flags else pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "invalid pattern"
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise UnsupportedRegex(text) from None
