"""Paging tokens and event ids, shaped as AWS shapes them.

- GetLogEvents: `f/<56 digits>/s` and `b/<56 digits>/s`; the digits are the (timestamp, event id)
  position the next page starts after (forward) or before (backward).
- FilterLogEvents eventId: the same 56 digits for the event itself.
- Describe* and FilterLogEvents nextToken: opaque, through pages.py (the one codec), one kind per listing.
A token that does not decode is AWS's "The specified nextToken is invalid."
"""

from __future__ import annotations

import re
from typing import Any

from onceflow import pages
from onceflow.logs import errors

_TS_DIGITS, _ID_DIGITS = 20, 36
_STREAM_TOKEN = re.compile(r"([fb])/(\d{56})/s")


def position(ts: int, event_id: int) -> str:
    return f"{ts:0{_TS_DIGITS}d}{event_id:0{_ID_DIGITS}d}"


def stream_token(direction: str, key: tuple[int, int]) -> str:
    return f"{direction}/{position(*key)}/s"


def parse_stream_token(token: str) -> tuple[str, tuple[int, int]]:
    m = _STREAM_TOKEN.fullmatch(token)
    if not m:
        raise errors.invalid_token()
    digits = m.group(2)
    return m.group(1), (int(digits[:_TS_DIGITS]), int(digits[_TS_DIGITS:]))


def encode(kind: str, values: list[Any]) -> str:
    """A Describe*/FilterLogEvents nextToken (pages.py, the one codec), tagged with its listing's kind."""
    return pages.encode(values, kind)


def decode(kind: str, token: str, arity: int) -> list[Any]:
    """The `arity` values `encode` put in a token of `kind`; Logs' refusal for any other token."""
    values = pages.decode(token, errors.invalid_token, kind)
    if not isinstance(values, list) or len(values) != arity:
        raise errors.invalid_token()
    return values


def sequence_token(seq: int) -> str:
    """A 56-digit upload sequence token like AWS's; PutLogEvents ignores tokens, so it only looks the part."""
    return f"{49 * 10**54 + seq:056d}"
