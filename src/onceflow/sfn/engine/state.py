"""An execution's recorded history: per-fiber queues the runner replays, and a small fold of it.

The runner never keeps state that the history does not hold: on every (re)load it folds the stored
events into per-fiber queues that the state code replays (consuming recorded events instead of
appending them, taking recorded outputs, variables and task results as the truth), and continues
live where a fiber's recorded events end. `ExecutionSummary` is the small fold the API and recovery
need (status, last event id, result).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from onceflow.sfn.engine.events import Event, emission_order
from onceflow.sfn.engine.redrive import fanout_superseded  # Map/Parallel: failed children only

# Events after which the next event still chains on this event's predecessor.
NON_CHAINING = {"ExecutionStarted", "MapIterationSucceeded", "MapIterationFailed", "MapStateSucceeded",
                "ParallelStateSucceeded"}

TERMINAL = {
    "ExecutionSucceeded": "SUCCEEDED",
    "ExecutionFailed": "FAILED",
    "ExecutionAborted": "ABORTED",
    "ExecutionTimedOut": "TIMED_OUT",
}


def event_from_row(row: Any) -> Event:
    details = row["details"]
    return Event(row["id"], row["prev"], row["type"], row["ts"], json.loads(details) if details else None, row["fiber"])


@dataclass
class History:
    """The recorded events of one execution, grouped by the fiber that emitted them."""

    events: list[Event]
    superseded: set[int] = field(default_factory=set)
    dispatched: set[int] = field(default_factory=set)  # ...Started ids of calls handed over (engine marks)
    by_fiber: dict[str, deque[Event]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for ev in emission_order(self.events):
            if ev.id not in self.superseded:
                self.by_fiber.setdefault(ev.fiber, deque()).append(ev)

    @property
    def last_id(self) -> int:
        return max((e.id for e in self.events), default=0)

    @property
    def resume_pointer(self) -> int:
        """The previousEventId the next appended event chains on (some events do not move it)."""
        visible = [e for e in self.events if e.id > 0]
        if not visible:
            return 0
        last = visible[-1]
        return last.prev if last.type in NON_CHAINING else last.id

    @property
    def first_hidden_id(self) -> int:
        """Events of hidden fibers (Distributed Map children) count down from -1."""
        return min((e.id for e in self.events if e.id < 0), default=0)


@dataclass
class ExecutionSummary:
    status: str = "RUNNING"
    last_id: int = 0
    output: str | None = None
    error: str | None = None
    cause: str | None = None
    stop: float | None = None


def fold(events: list[Event]) -> ExecutionSummary:
    """Reduce a history to what DescribeExecution shows."""
    s = ExecutionSummary()
    for ev in events:
        s.last_id = ev.id
        status = TERMINAL.get(ev.type)
        if status is None:
            continue
        d = ev.details or {}
        s.status, s.stop = status, ev.ts
        s.output = d.get("output")
        s.error, s.cause = d.get("error"), d.get("cause")
    return s


def redrive_superseded(events: list[Event]) -> list[int]:
    """The events a redrive sets aside so that the unfinished top-level state runs again.

    That is the closing event(s), and from the last top-level state that was entered but never
    exited: its own events and every event of the fibers it spawned (a Map's or Parallel's children).
    """
    root = [e for e in events if e.fiber == "r" and e.id > 0]
    exited = set()
    start_id = None
    for ev in reversed(root):
        name = (ev.details or {}).get("name")
        if ev.type.endswith("StateExited"):
            exited.add(name)
        elif ev.type.endswith("StateEntered") and name not in exited:
            start_id = ev.id
            break
    out = [e.id for e in events if e.fiber not in ("r",) and not e.fiber.startswith("r.")]  # StopExecution's
    out += [e.id for e in events if e.type in TERMINAL]
    if start_id is not None:
        partial = fanout_superseded(root, events, start_id)
        if partial is not None:
            return sorted(set(out + partial))
        first: dict[str, int] = {}
        for e in events:
            first.setdefault(e.fiber, e.id)
        out += [e.id for e in root if e.id >= start_id]
        out += [e.id for e in events if e.fiber.startswith("r.") and first[e.fiber] > start_id]
    return sorted(set(out))
