"""What CloudWatch Logs offers the other services (onceflow/ports.py hands it to them): writing
log events, and finding a group. LogsService implements it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class LogWriter(Protocol):
    def append(self, account: str, region: str, group: str, stream: str,
               events: Sequence[tuple[int, str]]) -> None: ...

    def describe_groups(self, account: str, region: str, *, prefix: str | None = None,
                        limit: int | None = None) -> dict[str, Any]: ...
