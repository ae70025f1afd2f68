"""Step Functions' "Execution Status Change" events, shaped as AWS sends them to the default bus
(Step Functions user guide, "Automating Step Functions event delivery with EventBridge").

Only STANDARD executions emit them, as on AWS. `startDate`/`stopDate` are epoch milliseconds;
`input`/`output` are the JSON texts (AWS truncates them past 248 KiB and says so in
`inputDetails`/`outputDetails`).
"""

from __future__ import annotations

from typing import Any

SOURCE = "aws.states"
DETAIL_TYPE = "Step Functions Execution Status Change"
_TRUNCATE = 248 * 1024


def _ms(ts: float | None) -> int | None:
    return None if ts is None else int(ts * 1000)


def _text(value: str | None) -> tuple[str | None, dict[str, bool] | None]:
    if value is None:
        return None, None
    if len(value.encode()) > _TRUNCATE:
        return value.encode()[:_TRUNCATE].decode(errors="ignore"), {"included": False}
    return value, {"included": True}


def status_change(row: Any) -> dict[str, Any]:
    """The event's detail for an execution row of sfn_executions (as sfn's store returns it)."""
    status = row["status"]
    finished = status != "RUNNING"
    input_text, input_details = _text(row["input"])
    output_text, output_details = _text(row["output"] if status == "SUCCEEDED" else None)
    redrivable = status in ("FAILED", "ABORTED", "TIMED_OUT")
    return {
        "executionArn": row["arn"], "stateMachineArn": row["sm_arn"], "name": row["name"], "status": status,
        "startDate": _ms(row["start"]), "stopDate": _ms(row["stop"]) if finished else None,
        "input": input_text, "output": output_text, "inputDetails": input_details, "outputDetails": output_details,
        "redriveCount": row["redrive_count"], "redriveDate": _ms(row["redrive_date"]),
        "redriveStatus": "REDRIVABLE" if redrivable else "NOT_REDRIVABLE",
        "redriveStatusReason": None if redrivable else f"Execution is {status} and cannot be redriven",
        "error": row["error"], "cause": row["cause"],
    }
