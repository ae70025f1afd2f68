"""What DynamoDB offers the other services (onceflow/ports.py hands it to them): its streams read
by position, without iterators, and waited on (Lambda's event source pollers; ddb.streams.Streams
implements it); a table's schema (the prover's recorders name an item by its key; ddb.service.DynamoDB)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.ddb.schema import Table
    from onceflow.longpoll import Waiters, Watch


class StreamReader(Protocol):
    waiters: Waiters  # a poller waits on watch() for a stream's next record

    def watch(self, account: str, region: str, arn: str) -> tuple[int, Watch]: ...

    def position(self, account: str, region: str, arn: str, start: str = "LATEST") -> str: ...

    def records_after(self, account: str, region: str, arn: str, after: str | None,
                      limit: int = 100) -> list[dict[str, Any]]: ...

    def describe_stream(self, account: str, region: str, arn: str) -> dict[str, Any]: ...


class Tables(Protocol):
    def table(self, account: str, region: str, name: str, describe: bool = False) -> Table: ...
