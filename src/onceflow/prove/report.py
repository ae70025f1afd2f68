"""The terminal table of a proof and its JSON file."""

from __future__ import annotations

import json
from pathlib import Path

from onceflow.prove.model import Report, Run

COLUMNS = ("fault point", "kind", "outcome", "effect", "differing items")
MAX_CELL = 60


def _differing(run: Run) -> str:
    if not run.differences:
        return ""
    parts = [f"{d.table} {d.key} {d.verdict}" + (f" ({d.note})" if d.note else "") for d in run.differences[:3]]
    more = len(run.differences) - 3
    return "; ".join(parts) + (f" (+{more})" if more > 0 else "")


def _outcome(run: Run) -> str:
    return run.outcome + ("" if run.recovered else " (not recovered)")


def table(report: Report) -> str:
    rows: list[tuple[str, ...]] = [(report.baseline.point, "baseline", report.baseline.outcome, "-", "")]
    rows += [(r.point, r.kind, _outcome(r), r.verdict, _differing(r)) for r in report.runs]
    rows = [tuple(c if len(c) <= MAX_CELL else c[: MAX_CELL - 3] + "..." for c in row) for row in rows]
    widths = [max(len(COLUMNS[i]), *(len(row[i]) for row in rows)) for i in range(len(COLUMNS))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(COLUMNS), line(tuple("-" * w for w in widths)), *(line(r) for r in rows)])


def write_json(report: Report, path: Path) -> None:
    path.write_text(json.dumps(report.as_dict(), indent=2, default=str) + "\n", encoding="utf-8")
