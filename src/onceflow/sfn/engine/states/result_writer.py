"""ResultWriter: a Distributed Map's child results exported to S3, as AWS lays them out.

Under `<Prefix>/<map run id>/`: SUCCEEDED_0.json, FAILED_0.json and PENDING_0.json (only those
with entries), each a JSON array (or JSON Lines, WriterConfig.OutputType) of child execution
records (Transformation NONE, the default when exporting) or of their outputs (COMPACT, FLATTEN),
and manifest.json listing them. The Map's result becomes
`{"MapRunArn", "ResultWriterDetails": {"Bucket", "Key"}}` pointing at the manifest.

onceflow runs a Distributed Map's iterations inline, not as child executions: the records carry
an execution ARN and name derived from the map run, which DescribeExecution does not know.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.paths import to_json

STATUSES = ("SUCCEEDED", "FAILED", "PENDING")


@dataclass(slots=True)
class Record:
    """One iteration (child workflow) of a map run."""

    index: int
    input: Any
    status: str = "PENDING"
    output: Any = None
    error: str | None = None
    cause: str | None = None
    start: float | None = None
    stop: float | None = None


def _iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _reason(status: str) -> str:
    if status == "FAILED":
        return "Execution is FAILED and cannot be redriven"  # [AWS] child runs redrive through the map run
    return f"Execution is {status} and cannot be redriven"


def execution_record(map_run_arn: str, sm_arn: str, rec: Record) -> dict[str, Any]:
    name = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{map_run_arn}#{rec.index}"))
    label_path = map_run_arn.split(":mapRun:", 1)[1].rsplit(":", 1)[0]  # <machine>/<label>
    prefix = sm_arn.split(":stateMachine:", 1)[0]
    out: dict[str, Any] = {
        "ExecutionArn": f"{prefix}:execution:{label_path}:{name}",
        "Input": to_json(rec.input),
        "InputDetails": {"Included": True},
        "Name": name,
    }
    if rec.status == "SUCCEEDED":
        out["Output"] = to_json(rec.output)
        out["OutputDetails"] = {"Included": True}
    if rec.status in ("FAILED", "ABORTED"):
        if rec.error is not None:
            out["Error"] = rec.error
        if rec.cause is not None:
            out["Cause"] = rec.cause
    out.update({"RedriveCount": 0, "RedriveStatus": "NOT_REDRIVABLE", "RedriveStatusReason": _reason(rec.status)})
    if rec.start is not None:
        out["StartDate"] = _iso(rec.start)
    out["StateMachineArn"] = f"{prefix}:stateMachine:{label_path}"
    out["Status"] = rec.status
    if rec.stop is not None:
        out["StopDate"] = _iso(rec.stop)
    return out


def transformed(records: list[Record], status: str, transformation: str, map_run_arn: str,
                sm_arn: str) -> list[Any]:
    """The entries of one status as WriterConfig.Transformation shapes them: NONE keeps each child's
    record; COMPACT keeps its output and FLATTEN also spreads an array output (a failed child's
    record stays whole under both)."""
    out: list[Any] = []
    for r in records:
        if (r.status if r.status in STATUSES else "FAILED") != status:  # aborted ones: with the failed
            continue
        if transformation == "NONE" or r.status != "SUCCEEDED":
            out.append(execution_record(map_run_arn, sm_arn, r))
        elif transformation == "FLATTEN" and isinstance(r.output, list):
            out.extend(r.output)
        else:
            out.append(r.output)
    return out


def preview(records: list[Record], config: dict[str, Any], map_run_arn: str, sm_arn: str) -> list[Any]:
    """A ResultWriter with only WriterConfig: the transformed results become the Map's result."""
    transformation = config.get("Transformation", "COMPACT")
    return [e for status in ("SUCCEEDED", "FAILED", "PENDING")
            for e in transformed(records, status, transformation, map_run_arn, sm_arn)]


def _encode(entries: list[Any], output_type: str) -> bytes:
    if output_type == "JSONL":
        return "".join(json.dumps(e, separators=(",", ":"), ensure_ascii=False) + "\n" for e in entries).encode()
    return json.dumps(entries, separators=(",", ":"), ensure_ascii=False).encode()


def write_results(s3: Any, account: str, params: dict[str, Any], map_run_arn: str, sm_arn: str,
                  records: list[Record], config: dict[str, Any] | None = None) -> dict[str, Any]:
    bucket = params.get("Bucket")
    if not isinstance(bucket, str):
        raise StatesError("States.ResultWriterFailed", "The field 'Bucket' is required in the ResultWriter's "
                                                       "Parameters")
    prefix = params.get("Prefix") or ""
    run_id = map_run_arn.rsplit(":", 1)[1]
    base = f"{prefix.rstrip('/')}/{run_id}" if prefix else run_id
    config = config or {}
    files: dict[str, list[dict[str, Any]]] = {s: [] for s in ("FAILED", "PENDING", "SUCCEEDED")}
    try:
        for status in STATUSES:
            chosen = transformed(records, status, config.get("Transformation", "NONE"), map_run_arn, sm_arn)
            if not chosen:
                continue
            key = f"{base}/{status}_0.json"
            body = _encode(chosen, config.get("OutputType", "JSON"))
            s3.put_object(account, bucket, key, body, {"ContentType": "application/json"})
            files[status].append({"Key": key, "Size": len(body)})
        manifest = {"DestinationBucket": bucket, "MapRunArn": map_run_arn, "ResultFiles": files}
        key = f"{base}/manifest.json"
        s3.put_object(account, bucket, key, json.dumps(manifest, separators=(",", ":")).encode(),
                      {"ContentType": "application/json"})
    except ServiceError as e:
        raise StatesError("States.ResultWriterFailed", f"S3 {e.code}: {e.message}") from None
    return {"MapRunArn": map_run_arn, "ResultWriterDetails": {"Bucket": bucket, "Key": key}}
