"""Worker invocations beside business writes: what each Lambda task attempt did to the business key.

Pure, and derived only from what an execution records (its history and the function's logs), so
each decision says what it rests on:
- a result with `"duplicate": false` wrote; with `"duplicate": true` found the item already there;
- a failed attempt followed, in the same state entry, by one that found a duplicate (and no attempt
  between that wrote) wrote before it failed - nothing else could have written the item;
- any other failed attempt made no write that a later attempt saw ("failed before writing");
- a task refused before the function ran (an API error, no log lines) was never invoked;
- a result without a `duplicate` field reported no write (a read such as the summary stage).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from onceflow.console.history import Attempt
from onceflow.console.lambda_logs import Invocation

LABELS = {
    "wrote": "wrote the item",
    "duplicate": "found a duplicate (no new write)",
    "wrote-then-failed": "wrote, then failed",
    "failed-before-write": "failed before writing",
    "not-invoked": "not invoked",
    "no-write": "no write reported",
    "running": "running",
}


@dataclass
class Row:
    attempt: Attempt
    invocation: Invocation | None
    decision: str
    why: str

    @property
    def label(self) -> str:
        return LABELS[self.decision]

    @property
    def writes(self) -> bool:
        return self.decision in ("wrote", "wrote-then-failed")


def duplicate_flag(payload: Any) -> bool | None:
    """The worker's `duplicate` flag, wherever a ResultSelector-free result puts it."""
    if isinstance(payload, dict):
        if isinstance(payload.get("duplicate"), bool):
            return bool(payload["duplicate"])
        for key in ("result", "Payload"):
            inner = payload.get(key)
            if isinstance(inner, dict) and isinstance(inner.get("duplicate"), bool):
                return bool(inner["duplicate"])
    return None


def classify(attempts: list[Attempt], invocations: dict[int, Invocation]) -> list[Row]:
    lambda_attempts = [a for a in attempts if a.resource_type == "lambda"]
    rows = [_first_pass(a, invocations.get(a.event_id)) for a in lambda_attempts]
    for i, row in enumerate(rows):
        if row.decision != "failed-before-write":
            continue
        for later in rows[i + 1:]:
            if later.attempt.state != row.attempt.state or later.attempt.number <= row.attempt.number:
                break  # a new entry of the state (or another state): no longer the same try
            if later.decision == "wrote":
                break
            if later.decision == "duplicate":
                row.decision = "wrote-then-failed"
                row.why = (f"attempt {later.attempt.number} of {later.attempt.state} found the item already "
                           "written, and no attempt in between wrote it")
                break
    seen_write = False
    for row in rows:
        if row.decision == "duplicate" and not seen_write:
            row.why += "; the item was there before this execution wrote anything (an earlier execution wrote it)"
        seen_write = seen_write or row.writes
    return rows


def _first_pass(attempt: Attempt, invocation: Invocation | None) -> Row:
    if attempt.outcome == "running":
        return Row(attempt, invocation, "running", "the task has not finished")
    if attempt.outcome == "succeeded":
        flag = duplicate_flag(attempt.payload)
        if flag is True:
            return Row(attempt, invocation, "duplicate", "the result says duplicate: true")
        if flag is False:
            return Row(attempt, invocation, "wrote", "the result says duplicate: false")
        return Row(attempt, invocation, "no-write", "the result has no duplicate field")
    if invocation is None and attempt.error.startswith("Lambda.") and not attempt.request_id:
        return Row(attempt, None, "not-invoked",
                   f"{attempt.error}: the call was refused before the function ran (no log lines)")
    why = f"{attempt.error or attempt.outcome}; no later attempt found its write"
    return Row(attempt, invocation, "failed-before-write", why)


def summary(rows: list[Row]) -> dict[str, int]:
    invoked = [r for r in rows if r.decision != "not-invoked"]
    return {
        "invocations": len(invoked),
        "writes": sum(1 for r in rows if r.writes),
        "duplicates": sum(1 for r in rows if r.decision == "duplicate"),
        "failed_before_write": sum(1 for r in rows if r.decision == "failed-before-write"),
        "not_invoked": sum(1 for r in rows if r.decision == "not-invoked"),
    }
