"""What a proof produces: one Run per fault plan (the baseline first) and the Report over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Effect verdicts, worst last (a run with several differences reports the worst).
SAME, DUPLICATED, REPLACED, LOST = "same", "duplicated", "replaced", "lost"
VERDICT_ORDER = (SAME, DUPLICATED, REPLACED, LOST)
KINDS = ("lost-response", "fail-before", "fail-after-write", "duplicate-delivery", "timeout", "crash",
         "re-execution", "concurrent-execution")
# `crash` restarts a child server twice per point (seconds each): asked for by name (--faults), not by default.
DEFAULT_KINDS = tuple(k for k in KINDS if k != "crash")
# Step Functions' waits, retry intervals and task timeouts are divided by this: a 1 s IntervalSeconds
# becomes 50 ms. Not more by default: a TimeoutSeconds of 5 becomes 250 ms, and a real Lambda call
# (a cold worker's first one too) must still fit in it (`--time-scale` changes it). Kept here, not
# in sandbox.py, so the CLI's parser reads it without importing boto3.
TIME_SCALE = 20.0


class ProveError(Exception):
    """A usage error or a baseline that cannot be proved from: one line, exit 2, nothing touched."""


@dataclass
class Difference:
    table: str
    key: str  # the item's key as compact JSON
    verdict: str
    baseline: dict[str, Any] | None  # the item as the baseline left it (None: absent)
    run: dict[str, Any] | None  # the item as this run left it
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = {"table": self.table, "key": self.key, "verdict": self.verdict, "baseline": self.baseline,
               "run": self.run}
        return {**out, "note": self.note} if self.note else out


@dataclass
class Run:
    kind: str  # "baseline" or a fault kind
    point: str  # where the fault was put: "StoreOrder#1", "StoreOrder#1 write 1 (PutItem orders)", "workflow"
    plan: list[dict[str, Any]]  # fault rules `onceflow serve --faults` replays
    state: str | None = None  # the state of the fault point (None: the whole workflow), for the console's graph
    outcomes: list[str] = field(default_factory=list)  # each execution's status, in start order
    verdict: str = SAME
    recovered: bool = True  # False: FAILED (or worse) where the baseline SUCCEEDED
    differences: list[Difference] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)  # every DynamoDB write of the run
    invocations: list[dict[str, Any]] = field(default_factory=list)  # Lambda invocations, in start order
    calls: list[dict[str, Any]] = field(default_factory=list)  # every call a handler made (not in the JSON)
    executions: list[str] = field(default_factory=list)
    seconds: float = 0.0
    started_ms: int = 0  # wall clock, for the faults log of the private server

    @property
    def outcome(self) -> str:
        return "/".join(self.outcomes) or "-"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "point": self.point, "state": self.state, "outcome": self.outcome,
                "outcomes": self.outcomes,
                "recovered": self.recovered, "verdict": self.verdict, "plan": self.plan,
                "differences": [d.as_dict() for d in self.differences], "ledger": self.ledger,
                "invocations": self.invocations,
                "executions": self.executions, "seconds": round(self.seconds, 3)}


@dataclass
class Report:
    state_machine: str
    input: Any
    business_tables: list[str]
    baseline: Run
    runs: list[Run]  # the fault runs, not the baseline
    seconds: float = 0.0
    definition: str = ""  # the definition proved (the console draws it)
    id: str = ""  # set once the report is kept for the console (prove/records.py)
    created: str = ""  # ISO 8601, UTC
    saved: str | None = None  # the file the console reads, when it could be written

    @property
    def safe(self) -> bool:
        return all(r.verdict == SAME for r in self.runs)

    @property
    def unsafe_runs(self) -> list[Run]:
        return [r for r in self.runs if r.verdict != SAME]

    def summary(self) -> str:
        bad = self.unsafe_runs
        unrecovered = sum(1 for r in self.runs if not r.recovered)
        tail = f"; {unrecovered} not recovered (outcome only)" if unrecovered else ""
        if not bad and not self.business_tables:
            return (f"SAFE, trivially: the baseline ({self.baseline.outcome}) wrote no business table, so "
                    f"{len(self.runs)} runs had nothing to compare{tail} ({self.seconds:.1f} s)")
        if not bad:
            return f"SAFE: {len(self.runs)} runs, every effect the baseline's{tail} ({self.seconds:.1f} s)"
        counts: dict[str, int] = {}
        for r in bad:
            counts[r.verdict] = counts.get(r.verdict, 0) + 1
        what = ", ".join(f"{n} {v}" for v, n in counts.items())
        return f"UNSAFE: {len(bad)} of {len(self.runs)} runs changed the effect ({what}){tail} ({self.seconds:.1f} s)"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "created": self.created, "stateMachine": self.state_machine, "input": self.input,
                "safe": self.safe,
                "summary": self.summary(), "businessTables": self.business_tables,
                "baseline": self.baseline.as_dict(), "runs": [r.as_dict() for r in self.runs],
                "seconds": round(self.seconds, 3), "definition": self.definition}
