"""Proofs: the reports `onceflow prove` (the CLI, `onceflow.prove(...)`, the pytest fixture) left in
this server's data folder (prove/records.py), listed, and one page each: the proved definition's
graph with every fault point coloured by the worst verdict of its runs, and each run's plan,
outcome, ledger and diff. Read-only, like every console page: the files are only read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from onceflow.console import graph
from onceflow.console.app import HttpError, Response, View
from onceflow.console.views.machines import parse_definition

# Worst last; "unrecovered": every run at the point kept the effect, some did not finish as the baseline.
VERDICTS = ("same", "unrecovered", "duplicated", "replaced", "lost")
LABELS = {"same": "same effect", "unrecovered": "same effect, not recovered", "duplicated": "duplicated",
          "replaced": "replaced", "lost": "lost", "none": "not a fault point"}


@dataclass
class Point:
    """What the graph shows for one state: the worst verdict of the runs faulted at it."""

    verdict: str = "same"
    runs: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, run: dict[str, Any]) -> None:
        verdict = run.get("verdict", "same")
        if verdict == "same" and not run.get("recovered", True):
            verdict = "unrecovered"
        if verdict not in VERDICTS:
            verdict = "lost"  # a verdict this console does not know is shown as the worst, never as safe
        self.runs += 1
        self.counts[verdict] = self.counts.get(verdict, 0) + 1
        if VERDICTS.index(verdict) > VERDICTS.index(self.verdict):
            self.verdict = verdict

    @property
    def tally(self) -> str:
        ordered = sorted(self.counts.items(), key=lambda kv: VERDICTS.index(kv[0]))
        return ", ".join(f"{n} {LABELS[v]}" for v, n in ordered)


def points(record: dict[str, Any]) -> dict[str, Point]:
    """State name -> its Point, from the runs faulted at a state (the workflow-wide kinds are not)."""
    out: dict[str, Point] = {}
    for run in record.get("runs") or []:
        state = run.get("state") if isinstance(run, dict) else None
        if isinstance(state, str):
            out.setdefault(state, Point()).add(run)
    return out


def _data_dir(v: View) -> Path:
    folder = v.stack.settings.data_dir
    if v.stack.settings.in_memory or folder is None:
        raise HttpError(404, "No proofs here", "This server keeps no data folder (--in-memory), and onceflow prove "
                        "keeps its reports in the data folder it proved (DIR/proofs/).")
    return Path(folder)


def _in_scope(v: View, record: dict[str, Any]) -> bool:
    parts = str(record.get("stateMachine", "")).split(":")
    return len(parts) > 6 and parts[3] == v.region and parts[4] == v.account


def _name(arn: Any) -> str:
    return str(arn).rsplit(":", 1)[-1]


def proofs(v: View) -> Response:
    from onceflow.prove import records

    machine = v.arg("stateMachine") or None
    found = [r for r in records.listed(_data_dir(v), machine) if _in_scope(v, r)]
    return v.page("proofs.html", title="Proofs" if machine is None else f"Proofs of {_name(machine)}",
                  proofs=found, machine=machine, name_of=_name)


def proof(v: View) -> Response:
    from onceflow.prove import records

    proof_id = v.match["proof"]
    record = records.load(_data_dir(v), proof_id)
    if record is None or not _in_scope(v, record):
        raise HttpError(404, "Not found", f"There is no proof {proof_id} in this server's data folder.")
    definition = parse_definition(str(record.get("definition") or ""))
    runs = [r for r in record.get("runs") or [] if isinstance(r, dict)]
    baseline = record.get("baseline") if isinstance(record.get("baseline"), dict) else {}
    return v.page("proof.html", title=f"Proof of {_name(record.get('stateMachine'))}", record=record,
                  drawing=graph.layout(definition), points=points(record), labels=LABELS, runs=runs,
                  baseline=baseline, machine_name=_name(record.get("stateMachine")), as_json=_as_json)


def _as_json(value: Any) -> str:
    return json.dumps(value, indent=1, sort_keys=False, default=str)
