"""An execution's "Status Change" events are built from the row its runtime holds, not read back:
after a redrive (which changes the row's redrive columns) the closing event still carries them."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

ACCOUNT = "000000000000"


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def wait_status(sfn: Any, arn: str, status: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.time() + timeout
    while (d := sfn.describe_execution(executionArn=arn))["status"] != status and time.time() < deadline:
        time.sleep(0.05)
    return d


def test_the_closing_event_after_a_redrive_carries_its_count_and_date(aws: Callable[..., Any]) -> None:
    sfn = aws("stepfunctions")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = aws("iam").create_role(RoleName=uid("rows"), AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    definition = {"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "Boom", "Cause": "again"}}}
    machine = sfn.create_state_machine(name=uid("rows"), roleArn=role,
                                       definition=json.dumps(definition))["stateMachineArn"]
    group = f"/events/{uuid.uuid4().hex[:8]}"
    aws("logs").create_log_group(logGroupName=group)
    name = uid("rule")
    aws("events").put_rule(Name=name, EventPattern=json.dumps({
        "source": ["aws.states"], "detail": {"stateMachineArn": [machine]}}))
    aws("events").put_targets(Rule=name, Targets=[
        {"Id": "log", "Arn": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"}])
    ex = sfn.start_execution(stateMachineArn=machine, input='{"a": 1}')["executionArn"]
    assert wait_status(sfn, ex, "FAILED")["status"] == "FAILED"
    redriven = sfn.redrive_execution(executionArn=ex)["redriveDate"]
    after = wait_status(sfn, ex, "FAILED")
    assert (after["status"], after["redriveCount"]) == ("FAILED", 1)
    deadline = time.monotonic() + 30
    while True:
        found = [json.loads(e["message"]) for e in aws("logs").filter_log_events(logGroupName=group)["events"]]
        if len(found) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    details = sorted((e["detail"] for e in found), key=lambda d: (d["redriveCount"], d["status"] != "RUNNING"))
    assert [(d["status"], d["redriveCount"]) for d in details] == [("RUNNING", 0), ("FAILED", 0), ("FAILED", 1)]
    first, last = details[1], details[2]
    assert first["redriveDate"] is None and (first["error"], first["cause"]) == ("Boom", "again")
    # The event truncates to the millisecond, the API's timestamp rounds: the same instant either way.
    assert abs(last["redriveDate"] - redriven.timestamp() * 1000) <= 1
    assert (last["error"], last["cause"], last["input"]) == ("Boom", "again", '{"a": 1}')
    assert last["stopDate"] >= last["redriveDate"]
