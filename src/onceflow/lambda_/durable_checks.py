"""Which operation updates a CheckpointDurableExecution accepts (pure: the updates and the operations
as they stood before the checkpoint).

A checkpoint is one batch, taken whole or not at all, and read in order: an update may name as its
parent a CONTEXT started earlier in the same batch (the SDK's map and parallel send a context's START
together with its children's), and a STEP or CONTEXT may be started and ended by two updates of one
batch; any other second update of one operation is refused. Each update's move is judged against the
operation as it was before the batch, the way AWS's own local model of the service judges it
(aws-durable-execution-sdk-python-testing 1.4.0, checkpoint/validators): its messages are the ones
below. UNCONFIRMED: the service's own wording, which that model stands for.
"""

from __future__ import annotations

import json
from typing import Any

from onceflow.lambda_ import errors

MAX_ERROR_BYTES = 32_768
ACTIONS = {
    "EXECUTION": ("SUCCEED", "FAIL"),
    "CONTEXT": ("START", "SUCCEED", "FAIL"),
    "STEP": ("START", "SUCCEED", "FAIL", "RETRY"),
    "WAIT": ("START", "CANCEL"),
    "CALLBACK": ("START",),
    "CHAINED_INVOKE": ("START",),
}
# The statuses a STEP may be started, ended or retried from.
_STEP_FROM = {"START": ("READY",), "SUCCEED": ("STARTED", "READY"), "FAIL": ("STARTED", "READY"),
              "RETRY": ("STARTED", "READY")}  # fmt: skip
_START_ONCE = {"CONTEXT": "Cannot start a CONTEXT that already exist.",
               "WAIT": "Cannot start a WAIT that already exist.",
               "CALLBACK": "Cannot start a CALLBACK that already exist.",
               "CHAINED_INVOKE": "Cannot start a CHAINED_INVOKE operation that already exists."}  # fmt: skip
_CONSISTENT = (("Type", "Inconsistent operation type."), ("SubType", "Inconsistent operation subtype."),
               ("Name", "Inconsistent operation name."), ("ParentId", "Inconsistent parent operation id."))  # fmt: skip


def validate(updates: list[dict[str, Any]], operations: dict[str, dict[str, Any]]) -> None:
    """Refuse the whole checkpoint (InvalidParameterValueException) at its first bad update."""
    executions = [u for u in updates if u["Type"] == "EXECUTION"]
    if len(executions) > 1:
        raise errors.invalid("Cannot checkpoint multiple EXECUTION updates.")
    if executions and updates[-1]["Type"] != "EXECUTION":
        raise errors.invalid("EXECUTION checkpoint must be the last update.")
    started: dict[str, str] = {}  # op id -> type, for the operations this batch starts
    last: dict[str, dict[str, Any]] = {}
    for update in updates:
        op_id = update["Id"]
        before = last.get(op_id)
        if before is not None and not _may_follow(before, update):
            raise errors.invalid("Cannot checkpoint multiple operations with the same ID.")
        parent = update.get("ParentId")
        if parent and (started.get(parent) or (operations.get(parent) or {}).get("Type")) != "CONTEXT":
            raise errors.invalid("Invalid parent operation id.")
        if update["Action"] == "START":
            started[op_id] = update["Type"]
        last[op_id] = update
    for update in updates:
        _check(update, operations.get(update["Id"]))


def _may_follow(before: dict[str, Any], update: dict[str, Any]) -> bool:
    """A STEP or CONTEXT started in this batch may also end (or retry) in it; nothing else repeats."""
    return before["Type"] in ("STEP", "CONTEXT") and before["Action"] == "START" and update["Action"] != "START"


def _check(update: dict[str, Any], current: dict[str, Any] | None) -> None:
    kind, action = update["Type"], update["Action"]
    if current is not None:
        for member, message in _CONSISTENT:
            if update.get(member) is not None and update[member] != current.get(member):
                raise errors.invalid(message)
    if update.get("Error") is not None and len(json.dumps(update["Error"])) > MAX_ERROR_BYTES:
        raise errors.invalid(f"Error object size must be less than {MAX_ERROR_BYTES} bytes.")
    if action not in ACTIONS[kind]:
        raise errors.invalid("Invalid action for the given operation type.")
    if kind == "STEP":
        if current is not None:  # a step not seen before is taken as it comes
            _check_step(update, current)
        return
    _check_outcome(update)
    if action == "START" and current is not None:
        raise errors.invalid(_START_ONCE[kind])
    elif kind == "CONTEXT" and current is not None and current["Status"] != "STARTED":
        raise errors.invalid("Invalid current CONTEXT state to close.")
    elif action == "CANCEL" and (current is None or current["Status"] != "STARTED"):
        raise errors.invalid("Cannot cancel a WAIT that does not exist or has already completed.")
    elif kind == "CHAINED_INVOKE" and not update.get("ChainedInvokeOptions"):
        raise errors.invalid("Update for CHAINED_INVOKE operation requires ChainedInvokeOptions.")


def _check_outcome(update: dict[str, Any]) -> None:
    """A success carries no error, a failure no payload."""
    if update["Action"] == "FAIL" and update.get("Payload") is not None:
        raise errors.invalid("Cannot provide a Payload for FAIL action.")
    if update["Action"] == "SUCCEED" and update.get("Error") is not None:
        raise errors.invalid("Cannot provide an Error for SUCCEED action.")


def _check_step(update: dict[str, Any], current: dict[str, Any]) -> None:
    action = update["Action"]
    if current["Status"] not in _STEP_FROM[action]:
        verb = {"START": "start", "RETRY": "re-attempt"}.get(action, "close")
        raise errors.invalid(f"Invalid current STEP state to {verb}.")
    _check_outcome(update)
    if action == "RETRY":
        if update.get("StepOptions") is None:
            raise errors.invalid("Invalid StepOptions for the given action.")
        if update.get("Error") is not None and update.get("Payload") is not None:
            raise errors.invalid("Cannot provide both error and payload to RETRY a STEP.")
