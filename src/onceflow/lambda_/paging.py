"""Lambda's list pages: Marker/MaxItems in, the page and NextMarker out. A marker is opaque to the
caller (base64 of the position, or of the last name for ListFunctions)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from onceflow.lambda_ import errors


def encode_marker(value: str) -> str:
    return base64.urlsafe_b64encode(value.encode()).decode()


def decode_marker(marker: str | None) -> str | None:
    if not marker:
        return None
    try:
        return base64.urlsafe_b64decode(marker.encode()).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise errors.invalid("Invalid marker") from None  # UNCONFIRMED wording


def page(items: list[Any], marker: str | None, limit: int, member: str, render: Callable[[Any], Any]) -> dict:
    text = decode_marker(marker) or "0"
    if not text.isdigit():
        raise errors.invalid("Invalid marker")  # UNCONFIRMED wording
    start = int(text)
    out: dict[str, Any] = {member: [render(i) for i in items[start : start + limit]]}
    if start + limit < len(items):
        out["NextMarker"] = encode_marker(str(start + limit))
    return out
