"""What S3 offers the other services (onceflow/ports.py hands it to them): objects written and read
by account, with S3's errors (CONTRACTS.md). S3Service implements it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol


class ObjectStore(Protocol):
    def put_object(self, account: str, bucket: str, key: str, body: Any,
                   fields: dict[str, Any] | None = None) -> dict[str, Any]: ...

    def get_object(self, account: str, bucket: str, key: str,
                   version_id: str | None = None) -> tuple[dict[str, Any], Iterator[bytes]]: ...

    def list_objects(self, account: str, bucket: str, prefix: str = "", delimiter: str = "", after: str = "",
                     limit: int = 1000) -> tuple[list[dict[str, Any]], list[str], bool, str]: ...

    def object(self, account: str, bucket: str, key: str, version_id: str | None = None) -> dict[str, Any]: ...

    def body(self, obj: dict[str, Any], start: int = 0, end: int | None = None) -> Iterator[bytes]: ...

    def bucket_facts(self, bucket: str) -> tuple[str, str, str | None] | None:
        """(owner account, region, bucket policy or None) of a bucket; None when there is no such bucket.
        For a service that writes to a bucket as an AWS service principal (Logs' exports) and must
        find the bucket policy's leave first."""
        ...
