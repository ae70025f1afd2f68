"""Archived objects (storage class GLACIER or DEEP_ARCHIVE) and their restores. As on AWS, an
archived object's body cannot be read or copied until RestoreObject makes a temporary copy of it
for `Days`; here the retrieval itself takes no time, so a restore completes at once (its
ObjectRestore:Post and ObjectRestore:Completed events are recorded together). The restore's state
is the version's `Restore` header (x-amz-restore), which Head/GetObject answer as stored. When
the copy's expiry passes (always a midnight UTC), Expiry removes the header and records
ObjectRestore:Delete."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.s3 import errors, store

if TYPE_CHECKING:  # service.py imports this module for its read checks
    from onceflow.s3.service import S3Service

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


class Expiry:
    """Ends restored copies whose expiry has passed. Expiries are midnights UTC, so the versions are
    looked at once per day (and once at start)."""

    def __init__(self, s3: S3Service) -> None:
        self.s3 = s3
        self._day: int | None = None

    def run(self, now: float) -> int:
        if self._day == int(now // DAY):
            return 0
        self._day = int(now // DAY)
        ended = 0
        for obj in self.s3.db.read(store.restored_versions):
            until = restored_until(obj)
            if until is None or until > now:
                continue
            bucket = self.s3.db.read(partial(store.get_bucket, name=obj["bucket"]))
            if bucket is None:
                continue
            hook = self.s3.hook_for(self.s3.as_s3(bucket), bucket, obj["key"])
            with self.s3.db.transaction() as conn:
                current = store.version(conn, obj["bucket"], obj["key"], obj["version_id"])
                if current is None or current["headers"].get("Restore") != obj["headers"]["Restore"]:
                    continue  # deleted, or restored again, meanwhile
                headers = {k: v for k, v in current["headers"].items() if k != "Restore"}
                store.set_headers(conn, obj["bucket"], obj["key"], obj["version_id"], headers)
                if hook is not None:
                    hook(conn, "ObjectRestore:Delete", obj)
            self.s3.woken(hook)
            ended += 1
        return ended
