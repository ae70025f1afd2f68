"""Lambda's list pages: Marker/MaxItems in, the page and NextMarker out. A marker is opaque to the
caller (the shared codec's sealing of a position, or of the last name for ListFunctions); one Lambda
never issued is refused, never served as a first page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.lambda_ import errors


def refused_marker() -> ServiceError:
    return errors.invalid("Invalid marker")  # InvalidParameterValueException; wording UNCONFIRMED


def encode_marker(name: str) -> str:
    """The marker of a listing that goes on after `name`."""
    return pages.encode(name, "n")


def decode_marker(marker: str | None) -> str | None:
    """The name `marker` goes on after (None without one)."""
    if not marker:
        return None
    name = pages.decode(marker, refused_marker, "n")
    if not isinstance(name, str):
        raise refused_marker()
    return name


def page(items: list[Any], marker: str | None, limit: int, member: str, render: Callable[[Any], Any]) -> dict:
    start = pages.offset_of(marker, refused_marker)
    out: dict[str, Any] = {member: [render(i) for i in items[start : start + limit]]}
    if start + limit < len(items):
        out["NextMarker"] = pages.offset_token(start + limit)
    return out
