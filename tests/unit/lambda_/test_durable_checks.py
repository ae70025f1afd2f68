"""durable_checks: which checkpoint batches Lambda takes, judged against the operations before the batch."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable_checks


def refusal(updates: list[dict[str, Any]], operations: dict[str, dict[str, Any]] | None = None) -> str:
    with pytest.raises(ServiceError) as excinfo:
        durable_checks.validate(updates, operations or {})
    assert excinfo.value.code == "InvalidParameterValueException"
    return excinfo.value.message


def op(kind: str, status: str, **more: Any) -> dict[str, Any]:
    return {"Type": kind, "Status": status, **more}


def test_a_parent_started_earlier_in_the_batch_or_before_it() -> None:
    durable_checks.validate([
        {"Id": "m", "Type": "CONTEXT", "Action": "START"},
        {"Id": "c", "Type": "CALLBACK", "Action": "START", "ParentId": "m"},
        {"Id": "s", "Type": "STEP", "Action": "SUCCEED", "ParentId": "old"},
    ], {"old": op("CONTEXT", "STARTED")})  # fmt: skip


@pytest.mark.parametrize("parent", ["ghost", "step", "later"])
def test_a_parent_that_is_no_context_known_so_far(parent: str) -> None:
    updates = [{"Id": "c", "Type": "CALLBACK", "Action": "START", "ParentId": parent},
               {"Id": "later", "Type": "CONTEXT", "Action": "START"}]  # fmt: skip
    assert refusal(updates, {"step": op("STEP", "STARTED")}) == "Invalid parent operation id."


def test_one_operation_twice_only_as_a_step_or_context_started_and_ended() -> None:
    durable_checks.validate([{"Id": "s", "Type": "STEP", "Action": "START"},
                             {"Id": "s", "Type": "STEP", "Action": "SUCCEED"}], {})  # fmt: skip
    for twice in ([{"Id": "s", "Type": "STEP", "Action": "SUCCEED"}] * 2,
                  [{"Id": "w", "Type": "WAIT", "Action": "START"}, {"Id": "w", "Type": "WAIT", "Action": "CANCEL"}]):
        assert refusal(twice) == "Cannot checkpoint multiple operations with the same ID."


def test_the_execution_update_is_one_and_last() -> None:
    end = {"Id": "x", "Type": "EXECUTION", "Action": "SUCCEED"}
    assert refusal([end, end]) == "Cannot checkpoint multiple EXECUTION updates."
    assert refusal([end, {"Id": "s", "Type": "STEP", "Action": "START"}]) == (
        "EXECUTION checkpoint must be the last update.")


@pytest.mark.parametrize(("update", "current", "message"), [
    ({"Type": "STEP", "Action": "START"}, op("STEP", "STARTED"), "Invalid current STEP state to start."),
    ({"Type": "STEP", "Action": "SUCCEED"}, op("STEP", "PENDING"), "Invalid current STEP state to close."),
    ({"Type": "STEP", "Action": "RETRY"}, op("STEP", "SUCCEEDED"), "Invalid current STEP state to re-attempt."),
    ({"Type": "STEP", "Action": "RETRY"}, op("STEP", "STARTED"), "Invalid StepOptions for the given action."),
    ({"Type": "STEP", "Action": "FAIL", "Payload": "1"}, op("STEP", "STARTED"),
     "Cannot provide a Payload for FAIL action."),
    ({"Type": "CONTEXT", "Action": "SUCCEED", "Error": {}}, None, "Cannot provide an Error for SUCCEED action."),
    ({"Type": "CONTEXT", "Action": "FAIL"}, op("CONTEXT", "SUCCEEDED"), "Invalid current CONTEXT state to close."),
    ({"Type": "WAIT", "Action": "CANCEL"}, None,
     "Cannot cancel a WAIT that does not exist or has already completed."),
    ({"Type": "WAIT", "Action": "START"}, op("WAIT", "SUCCEEDED"), "Cannot start a WAIT that already exist."),
    ({"Type": "CALLBACK", "Action": "SUCCEED"}, None, "Invalid action for the given operation type."),
    ({"Type": "CHAINED_INVOKE", "Action": "START"}, None,
     "Update for CHAINED_INVOKE operation requires ChainedInvokeOptions."),
    ({"Type": "WAIT", "Action": "START", "Name": "b"}, op("WAIT", "STARTED", Name="a"), "Inconsistent operation name."),
    ({"Type": "CALLBACK", "Action": "START"}, op("STEP", "STARTED"), "Inconsistent operation type."),
])  # fmt: skip
def test_a_move_judged_against_the_operation_before_the_batch(
    update: dict[str, Any], current: dict[str, Any] | None, message: str
) -> None:
    assert refusal([{"Id": "o", **update}], {"o": current} if current else {}) == message


def test_a_step_not_seen_before_is_taken_as_it_comes() -> None:
    durable_checks.validate([{"Id": "s", "Type": "STEP", "Action": "RETRY", "Error": {}, "Payload": "1"}], {})
