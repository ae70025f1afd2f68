"""Paging tokens and event ids, shaped as AWS shapes them.

- GetLogEvents: `f/<56 digits>/s` and `b/<56 digits>/s`; the digits are the (timestamp, event id)
  position the next page starts after (forward) or before (backward).
- FilterLogEvents eventId: the same 56 digits for the event itself.
- Describe* and FilterLogEvents nextToken: opaque base64 of a small JSON list.
A token that does not decode is AWS's "The specified nextToken is invalid."
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

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
    raw = json.dumps([kind, *values], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(kind: str, token: str, arity: int) -> list[Any]:
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (ValueError, TypeError):
        raise errors.invalid_token() from None
    if not isinstance(data, list) or len(data) != arity + 1 or data[0] != kind:
        raise errors.invalid_token()
    return data[1:]


def sequence_token(seq: int) -> str:
    """A 56-digit upload sequence token like AWS's; PutLogEvents ignores tokens, so it only looks the part."""
    return f"{49 * 10**54 + seq:056d}"
