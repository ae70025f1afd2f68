"""Task attempts beside the business writes the effect ledger attributed to them.

The ledger (prove/ledger.py) records every write a workflow makes, with the task call that made it
(a `dynamodb:` task) or whose Lambda invocation did (a handler's write, through its worker's own
role session), so nothing here reads a worker's own report of what it did. Pure: given the
execution's attempts, its history and its ledger rows, each attempt gets its writes, and a write of
an item that an earlier attempt or invocation of the same execution already wrote is flagged as a
repeat. Writes of the same item by other executions (a re-execution under a new name) are listed
beside it by the view, from the ledger too. A refused write (a conditional check that failed) had
no effect and is not in the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from onceflow.console.history import Attempt
from onceflow.console.lambda_logs import Invocation

LABELS = {
    "wrote": "wrote",
    "repeated": "repeated a write",
    "no-write": "no business write",
    "not-invoked": "not invoked",
    "running": "running",
}


@dataclass
class Write:
    entry: dict[str, Any]  # a ledger row: resource, operation, via, key, lambdaRequestId, requestId, caller, seq
    repeats: str = ""  # why this write repeats an earlier one of the execution ("" for a first write)
    others: list[str] = field(default_factory=list)  # names of other executions that wrote the same item

    @property
    def item(self) -> tuple[str, str, str]:
        return self.entry["service"], self.entry["resource"], self.entry["key"]


@dataclass
class Row:
    attempt: Attempt
    invocation: Invocation | None
    writes: list[Write] = field(default_factory=list)
    request_id: str = ""  # the Lambda request id the ledger saw (else the history's)

    @property
    def decision(self) -> str:
        if any(w.repeats for w in self.writes):
            return "repeated"
        if self.writes:
            return "wrote"
        if self.attempt.outcome == "running":
            return "running"
        if self.attempt.function and self.invocation is None and not self.request_id \
                and self.attempt.error.startswith("Lambda."):
            return "not-invoked"
        return "no-write"

    @property
    def label(self) -> str:
        return LABELS[self.decision]


def attribute(attempts: list[Attempt], events: list[dict[str, Any]], ledger: list[dict[str, Any]],
              invocations: dict[int, Invocation]) -> tuple[list[Row], list[Write]]:
    """(one Row per task attempt with its writes, writes of no attempt of this history). A ledger
    row names its task by the TaskStarted event id; the attempt is keyed by its TaskScheduled."""
    scheduled_of = {e["id"]: e.get("previousEventId") for e in events if e.get("type") == "TaskStarted"}
    rows = {a.event_id: Row(a, invocations.get(a.event_id), request_id=a.request_id) for a in attempts}
    stray: list[Write] = []
    first: dict[tuple[str, str, str], tuple[int, str]] = {}  # item -> (attempt event id, Lambda request id)
    for entry in sorted(ledger, key=lambda e: e["seq"]):
        write = Write(entry)
        row = rows.get(scheduled_of.get(entry.get("taskId")) or -1)
        if row is None:
            stray.append(write)
            continue
        if entry.get("lambdaRequestId"):
            row.request_id = entry["lambdaRequestId"]
        who = (row.attempt.event_id, entry.get("lambdaRequestId") or "")
        earlier = first.setdefault(write.item, who)
        if earlier != who:
            before = rows[earlier[0]].attempt
            write.repeats = f"attempt {before.number} of {before.state} wrote this item first"
        row.writes.append(write)
    return list(rows.values()), stray


def summary(rows: list[Row]) -> dict[str, int]:
    writes = [w for r in rows for w in r.writes]
    return {
        "attempts": len(rows),
        "writes": len(writes),
        "repeated": sum(1 for w in writes if w.repeats),
        "distinct": len({w.item for w in writes}),  # not "items": a template would read dict.items
        "elsewhere": sum(1 for w in writes if w.others),
        "not_invoked": sum(1 for r in rows if r.decision == "not-invoked"),
    }
