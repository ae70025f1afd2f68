"""What EventBridge offers the other services (onceflow/ports.py hands it to them): the events AWS
services emit to the default bus, written in the emitting service's own transaction, and what its
outbox holds (EventsService implements it); and the one timer thread that EventBridge and
Scheduler share (events.delivery.Clock)."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.events.delivery import Source
    from onceflow.events.rules import Rules
    from onceflow.store.db import Database

Key = tuple[str, str]  # (account, region)


class EventBus(Protocol):
    db: Database
    rules: Rules  # the console lists them

    def emit(self, conn: sqlite3.Connection, key: Key, source: str, detail_type: str, detail: dict[str, Any],
             resources: list[str], now: float | None = None) -> None: ...

    def execution_changed(self, conn: sqlite3.Connection, row: Any) -> None: ...

    def pending(self) -> int: ...


class Clock(Protocol):
    def add(self, source: Source) -> None: ...

    def poke(self) -> None: ...

    def rescale(self, old: float, new: float) -> None: ...  # the time scale changed
