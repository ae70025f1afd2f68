"""What DynamoDB offers the other services (onceflow/ports.py hands it to them): its streams read
by position, without iterators (Lambda's event source pollers). ddb.streams.Streams implements it."""

from __future__ import annotations

from typing import Any, Protocol


class StreamReader(Protocol):
    def position(self, account: str, region: str, arn: str, start: str = "LATEST") -> str: ...

    def records_after(self, account: str, region: str, arn: str, after: str | None,
                      limit: int = 100) -> list[dict[str, Any]]: ...

    def describe_stream(self, account: str, region: str, arn: str) -> dict[str, Any]: ...
