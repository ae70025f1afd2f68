"""Archived objects (storage class GLACIER or DEEP_ARCHIVE) and their restores. As on AWS, an
archived object's body cannot be read or copied until RestoreObject makes a temporary copy of it
for `Days`; here the retrieval itself takes no time, so a restore completes at once (its
ObjectRestore:Post and ObjectRestore:Completed events are recorded together). The restore's state
is the version's `Restore` header (x-amz-restore), which Head/GetObject answer as stored."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

from onceflow.errors import ServiceError
from onceflow.s3 import errors

ARCHIVED = ("GLACIER", "DEEP_ARCHIVE")
DAY = 86400.0


def archived(obj: dict[str, Any]) -> bool:
    return obj["headers"].get("StorageClass") in ARCHIVED


def restored_until(obj: dict[str, Any]) -> float | None:
    text = obj["headers"].get("Restore") or ""
    _, found, rest = text.partition('expiry-date="')
    return parsedate_to_datetime(rest.split('"', 1)[0]).timestamp() if found else None


def check_readable(obj: dict[str, Any], now: float) -> None:
    """An archived version's body is out of reach unless a restore of it has not expired."""
    until = restored_until(obj)
    if archived(obj) and (until is None or until <= now):
        raise ServiceError("InvalidObjectState", "The operation is not valid for the object's storage class", 403,
                           extra={"StorageClass": obj["headers"]["StorageClass"]})


def restore_header(days: int, now: float) -> str:
    """x-amz-restore of a completed restore: the copy lasts `days`, to the midnight UTC after (as AWS rounds)."""
    expiry = datetime.fromtimestamp(math.ceil((now + days * DAY) / DAY) * DAY, UTC)
    return f'ongoing-request="false", expiry-date="{format_datetime(expiry, usegmt=True)}"'


def check_request(obj: dict[str, Any], request: dict[str, Any]) -> int:
    """RestoreObject's checks; the number of days the restored copy is kept."""
    if not archived(obj):
        raise ServiceError("InvalidObjectState", "Restore is not allowed for the object's current storage class", 403,
                           extra={"StorageClass": obj["headers"].get("StorageClass", "STANDARD")})
    days = request.get("Days")
    if days is None or int(days) < 1:  # a restored copy of an archive needs a lifetime
        raise errors.malformed_xml()
    return int(days)
