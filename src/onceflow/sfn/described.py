"""What the describes say beyond a row's columns: DescribeExecution's shape of an execution row (one
rule for the executions of a state machine and the child executions of a map run, which differ only
in how a failed one is redriven), and the defaults and derived fields of a described machine."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from onceflow.sfn.asl.variable_refs import variable_references
from onceflow.sfn.names import ts


def describe_row(row: sqlite3.Row, redrivable: str) -> dict[str, Any]:
    """The common members; `redrivable` is the redriveStatus of a failed, aborted or timed-out one
    (REDRIVABLE, or REDRIVABLE_BY_MAP_RUN for a map run's child)."""
    out: dict[str, Any] = {
        "executionArn": row["arn"], "stateMachineArn": row["sm_arn"], "name": row["name"],
        "status": row["status"], "startDate": ts(row["start"]),
    }
    if row["stop"] is not None:
        out["stopDate"] = ts(row["stop"])
    out["input"] = row["input"]
    out["inputDetails"] = {"included": True}
    if row["status"] == "SUCCEEDED":
        out["output"] = row["output"]
        out["outputDetails"] = {"included": True}
    if row["error"] is not None:
        out["error"] = row["error"]
    if row["cause"] is not None:
        out["cause"] = row["cause"]
    out["redriveCount"] = row["redrive_count"]
    if row["redrive_date"] is not None:
        out["redriveDate"] = ts(row["redrive_date"])
    if row["status"] in ("FAILED", "ABORTED", "TIMED_OUT"):
        out["redriveStatus"] = redrivable
    else:
        out["redriveStatus"] = "NOT_REDRIVABLE"
        out["redriveStatusReason"] = f"Execution is {row['status']} and cannot be redriven"
    return out


# A machine created without an encryptionConfiguration is described with AWS's default, an AWS owned
# key: DescribeStateMachine and DescribeStateMachineForExecution both show it [AWS] (LocalStack's
# AWS-validated snapshots, test_sfn_api_variable_references, recorded 2024-11-20).
_AWS_OWNED_KEY = {"type": "AWS_OWNED_KEY"}


def with_default_encryption(shape: dict[str, Any]) -> dict[str, Any]:
    shape.setdefault("encryptionConfiguration", dict(_AWS_OWNED_KEY))
    return shape


def with_variable_references(shape: dict[str, Any]) -> dict[str, Any]:
    """The `variableReferences` field of a described machine: present only when a state reads a
    variable [AWS] (test_sfn_api_variable_references' recording omits it otherwise)."""
    try:
        definition = json.loads(shape["definition"])
    except (KeyError, TypeError, ValueError, RecursionError):
        return shape
    references = variable_references(definition) if isinstance(definition, dict) else {}
    if references:
        shape["variableReferences"] = references
    return shape
