"""`arn:aws:states:::states:startExecution` and its `.sync`, `.sync:2` and `.waitForTaskToken`
variants: a Task that starts another state machine's execution (as the parent's role).

- plain: the task's result is the StartExecution response (ExecutionArn, StartDate, SDK metadata).
- `.sync` / `.sync:2`: the task waits for the child to end, on a task token that the child's end
  completes (no thread is held); its result is the child's DescribeExecution response, with Input
  and Output as JSON text (`.sync`) or parsed JSON (`.sync:2`). A child that does not succeed
  fails the task with States.TaskFailed and that response as the cause.
- `.waitForTaskToken`: the child (or anyone) answers with SendTask* and the token passed in Input.

A child whose Input carries `AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID` (AWS's convention, usually
`$$.Execution.Id`) is linked to that parent in sfn_children, like every synchronous child; the link
is written with the child's own row (see PARENT).
"""

from __future__ import annotations

import contextvars
import json
import uuid
from email.utils import formatdate
from typing import TYPE_CHECKING, Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import call_service, handed_over
from onceflow.stack import Stack

if TYPE_CHECKING:
    import sqlite3

STARTED_BY = "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID"
# (parent execution, the token its .sync task waits on or "", mode) for the StartExecution this
# thread is making: the child's row and its link to the parent are written in one transaction, so
# no crash can leave a .sync parent waiting on a child it does not know.
PARENT: contextvars.ContextVar[tuple[str, str, str] | None] = contextvars.ContextVar("sfn_parent", default=None)
SYNC_MODES = (".sync", ".sync:2")
ABORT_CAUSE = "The Task state in AWS Step Functions execution [{parent}] which was managing this resource was aborted"
MODELED = {
    "ExecutionAlreadyExists", "ExecutionLimitExceeded", "InvalidArn", "InvalidExecutionInput", "InvalidName",
    "StateMachineDeleting", "StateMachineDoesNotExist", "ValidationException", "KmsAccessDeniedException",
    "KmsInvalidStateException", "KmsThrottlingException",
}


def mode_of(resource: str) -> str:
    """'' | '.sync' | '.sync:2' | '.waitForTaskToken' of 'startExecution<suffix>'."""
    return resource[len("startExecution"):]


def _error(e: ServiceError) -> StatesError:
    """The Java SDK's exception class names the error (StepFunctions.StateMachineDoesNotExistException)."""
    name = (e.code if e.code.endswith("Exception") else e.code + "Exception") if e.code in MODELED \
        else "AWSStepFunctionsException"
    return StatesError(f"StepFunctions.{name}",
                       f"{e.message} (Service: AWSStepFunctions; Status Code: {e.status}; Error Code: {e.code}; "
                       f"Request ID: {uuid.uuid4()}; Proxy: null)")


def _metadata(body_length: int) -> dict[str, Any]:
    """The SDK metadata of the StartExecution response, headers as AWS recorded them."""
    rid, date, length = str(uuid.uuid4()), formatdate(usegmt=True), str(body_length)
    return {
        "SdkHttpMetadata": {
            "AllHttpHeaders": {"x-amzn-RequestId": [rid], "connection": ["keep-alive"], "Content-Length": [length],
                               "Date": [date], "Content-Type": ["application/x-amz-json-1.0"]},
            "HttpHeaders": {"connection": "keep-alive", "Content-Length": length,
                            "Content-Type": "application/x-amz-json-1.0", "Date": date, "x-amzn-RequestId": rid},
            "HttpStatusCode": 200,
        },
        "SdkResponseMetadata": {"RequestId": rid},
    }


def _epoch_ms(value: float | None) -> int | None:
    return None if value is None else round(value * 1000)


def start(stack: Stack, principal: Principal, region: str, parent_arn: str, resource: str, params: Any,
          token: str | None) -> dict[str, Any]:
    mode = mode_of(resource)
    if not isinstance(params, dict) or "StateMachineArn" not in params:
        raise StatesError("States.Runtime", "The field 'StateMachineArn' is required")
    request: dict[str, Any] = {"stateMachineArn": params["StateMachineArn"]}
    child_input = params.get("Input")
    if child_input is not None:
        request["input"] = child_input if isinstance(child_input, str) else json.dumps(child_input,
                                                                                        separators=(",", ":"))
    if params.get("Name") is not None:
        request["name"] = params["Name"]
    linked = mode in SYNC_MODES or (isinstance(child_input, dict) and STARTED_BY in child_input)
    link = PARENT.set((parent_arn, (token or "") if mode in SYNC_MODES else "", mode) if linked else None)
    handed_over()
    try:
        out = call_service(stack, principal, region, "stepfunctions", "StartExecution", request)
    except ServiceError as e:
        raise _error(e) from None
    finally:
        PARENT.reset(link)
    child = out["executionArn"]
    row = stack.services["stepfunctions"].store.get_execution(child)
    start = row["start"] if row else None
    body = json.dumps({"executionArn": child, "startDate": start}, separators=(",", ":"))
    return {"ExecutionArn": child, **_metadata(len(body)), "StartDate": _epoch_ms(start)}


def describe_shape(row: Any, mode: str) -> dict[str, Any]:
    """The child's DescribeExecution response as the parent's task sees it (the Java SDK's names,
    dates as epoch milliseconds); `.sync:2` parses Input and Output."""
    parse = mode == ".sync:2"
    out: dict[str, Any] = {"ExecutionArn": row["arn"]}
    if row["status"] != "SUCCEEDED" and row["error"] is not None:
        out["Error"] = row["error"]
    if row["status"] != "SUCCEEDED" and row["cause"] is not None:
        out["Cause"] = row["cause"]
    out["Input"] = json.loads(row["input"]) if parse else row["input"]
    out["InputDetails"] = {"Included": True}
    out["Name"] = row["name"]
    if row["status"] == "SUCCEEDED":
        out["Output"] = json.loads(row["output"]) if parse and row["output"] is not None else row["output"]
        out["OutputDetails"] = {"Included": True}
    out["RedriveCount"] = row["redrive_count"]
    if row["status"] in ("FAILED", "ABORTED", "TIMED_OUT"):
        out["RedriveStatus"] = "REDRIVABLE"
    else:
        out["RedriveStatus"] = "NOT_REDRIVABLE"
        out["RedriveStatusReason"] = f"Execution is {row['status']} and cannot be redriven"
    out["StartDate"] = _epoch_ms(row["start"])
    out["StateMachineArn"] = row["sm_arn"]
    if row["alias_arn"]:
        out["StateMachineAliasArn"] = row["alias_arn"]
    if row["version_arn"]:
        out["StateMachineVersionArn"] = row["version_arn"]
    out["Status"] = row["status"]
    out["StopDate"] = _epoch_ms(row["stop"])
    return out


def complete_parent(conn: sqlite3.Connection, link: Any, child: Any) -> None:
    """The child ended: its parent's task token gets the outcome (if the parent still waits)."""
    token = link["token"]
    if not token or link["mode"] not in SYNC_MODES:
        return
    waiting = conn.execute("SELECT status FROM sfn_tokens WHERE token=?", (token,)).fetchone()
    if waiting is None or waiting[0] != "WAITING":
        return
    shape = describe_shape(child, link["mode"])
    text = json.dumps(shape, separators=(",", ":"), ensure_ascii=False)
    if child["status"] == "SUCCEEDED":
        conn.execute("UPDATE sfn_tokens SET status='SUCCEEDED', output=? WHERE token=?", (text, token))
    else:
        conn.execute("UPDATE sfn_tokens SET status='FAILED', error='States.TaskFailed', cause=? WHERE token=?",
                     (text, token))
