"""Page tokens: the one codec for every listing's NextToken, Marker or nextToken.

A token is opaque to the client: URL-safe base64 (unpadded) of compact JSON - an offset, a key,
a list of positions, whatever the listing needs to go on. Each service keeps what it puts in
(and AWS's own error for a token that does not decode, handed to `decode`); none writes its own
base64 or JSON for it. Tokens of one kind are told from another's by a `kind` tag when a service
issues several.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from typing import Any

Refusal = Callable[[], Exception]  # the error a service answers for a token it did not issue


def encode(value: Any, kind: str | None = None) -> str:
    payload = value if kind is None else [kind, value]
    raw = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str, refused: Refusal, kind: str | None = None) -> Any:
    """What `encode` put in `token`, or `refused()` raised for anything else."""
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (ValueError, TypeError, binascii.Error):  # not base64, not UTF-8, not JSON
        raise refused() from None
    if kind is None:
        return data
    if not isinstance(data, list) or len(data) != 2 or data[0] != kind:
        raise refused()
    return data[1]


def offset_token(offset: int) -> str:
    """The token of a listing that goes on at item `offset`."""
    return encode(offset, "o")


def offset_of(token: str | None, refused: Refusal) -> int:
    """The offset `token` names (0 without one); `refused()` for one that names none."""
    if not token:
        return 0
    value = decode(token, refused, "o")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise refused()
    return value
