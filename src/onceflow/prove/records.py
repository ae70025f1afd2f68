"""Where a proof's report is kept for the console: `<data folder>/proofs/<id>.json`, the same JSON
as `--json FILE` plus the proof's id, time and the definition it proved.

A file beside the store, not a table in it: the prover only ever opens the user's store read-only
(it may be a running server's, whose one writer connection and group commit assume no other
process writes), a report is written once and read whole, and a proof of a stopped server's data
folder shows up in the console of the next `onceflow serve` on it. Written to a temporary name and
renamed, so the console never reads half a report. Pure file work: no boto3, no server.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FOLDER = "proofs"
ID = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{8}$")  # 20261201T114800Z-1a2b3c4d: sorts by time
MAX_LISTED = 200  # the newest proofs the console lists


def new_id(now: datetime | None = None) -> str:
    return f"{(now or datetime.now(UTC)):%Y%m%dT%H%M%SZ}-{secrets.token_hex(4)}"


def save(record: dict[str, Any], data_dir: Path) -> Path:
    """Write `record` (which holds its "id") under data_dir/proofs/; returns the file."""
    folder = data_dir / FOLDER
    folder.mkdir(exist_ok=True)
    path = folder / f"{record['id']}.json"
    tmp = folder / f".{record['id']}.tmp"
    tmp.write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def load(data_dir: Path, proof_id: str) -> dict[str, Any] | None:
    """The report of `proof_id`, or None when there is none (or the id is not one: no path games)."""
    if not ID.match(proof_id):
        return None
    try:
        value = json.loads((data_dir / FOLDER / f"{proof_id}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def listed(data_dir: Path, state_machine: str | None = None) -> list[dict[str, Any]]:
    """The newest proofs first (at most MAX_LISTED), optionally of one state machine ARN."""
    folder = data_dir / FOLDER
    try:
        names = sorted((p.stem for p in folder.iterdir() if p.suffix == ".json" and ID.match(p.stem)), reverse=True)
    except OSError:
        return []
    out = []
    for proof_id in names:
        record = load(data_dir, proof_id)
        if record is None or (state_machine and record.get("stateMachine") != state_machine):
            continue
        out.append(record)
        if len(out) >= MAX_LISTED:
            break
    return out
