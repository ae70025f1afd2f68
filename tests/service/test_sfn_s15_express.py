"""StartSyncExecution as LocalStack's AWS-validated test_express_sync recorded it
(tests/aws/services/stepfunctions/v2/express/test_express_sync.snapshot.json in localstack/localstack)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from sfn_setup import states_role

PASS_RESULT = {"StartAt": "State_1", "States": {"State_1": {"Type": "Pass", "Result": {"Arg1": "argument1"},
                                                            "End": True}}}
RAISE_FAILURE = {"StartAt": "FailState", "States": {"FailState": {
    "Type": "Fail", "Error": "SomeFailure", "Cause": "This state machines raises a 'SomeFailure' failure."}}}
QUERY_CONTEXT = {"StartAt": "QueryValues1", "States": {
    "QueryValues1": {"Type": "Pass", "Parameters": {"context_object.$": "$$"}, "ResultPath": "$.query_values_1",
                     "End": True}}}


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))  # StartSync: "sync-"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfn-s15-express")


def start_sync(sfn: Any, role: str, definition: dict[str, Any], data: Any) -> dict[str, Any]:
    sm = sfn.create_state_machine(name=f"s15-express-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                  roleArn=role, type="EXPRESS")["stateMachineArn"]
    out: dict[str, Any] = sfn.start_sync_execution(stateMachineArn=sm, input=json.dumps(data))
    out.pop("ResponseMetadata")
    return out


def test_a_succeeded_run(sfn: Any, role: str) -> None:
    # test_base[BASE_PASS_RESULT]
    out = start_sync(sfn, role, PASS_RESULT, {})
    assert set(out) == {"billingDetails", "executionArn", "input", "inputDetails", "name", "output", "outputDetails",
                        "startDate", "stateMachineArn", "status", "stopDate"}
    assert (out["status"], json.loads(out["output"]), out["inputDetails"], out["outputDetails"]) == (
        "SUCCEEDED", {"Arg1": "argument1"}, {"included": True}, {"included": True})
    assert out["billingDetails"] == {"billedDurationInMilliseconds": 100, "billedMemoryUsedInMB": 64}


def test_a_failed_run_says_its_output_was_included(sfn: Any, role: str) -> None:
    # test_base[BASE_RAISE_FAILURE]: no output, outputDetails all the same
    out = start_sync(sfn, role, RAISE_FAILURE, {})
    assert set(out) == {"billingDetails", "cause", "error", "executionArn", "input", "inputDetails", "name",
                        "outputDetails", "startDate", "stateMachineArn", "status", "stopDate"}
    assert (out["status"], out["error"], out["cause"], out["outputDetails"]) == (
        "FAILED", "SomeFailure", "This state machines raises a 'SomeFailure' failure.", {"included": True})


def test_an_express_context_has_no_redrive_count(sfn: Any, role: str) -> None:
    # test_query_runtime_memory: Execution is Id, Input, Name, RoleArn, StartTime; a Pass has no RetryCount
    out = start_sync(sfn, role, QUERY_CONTEXT, {"message": "TestMessage"})
    context = json.loads(out["output"])["query_values_1"]["context_object"]
    assert set(context["Execution"]) == {"Id", "Input", "Name", "RoleArn", "StartTime"}
    assert (context["Execution"]["Id"], context["Execution"]["RoleArn"]) == (out["executionArn"], role)
    assert set(context["State"]) == {"Name", "EnteredTime"}


def test_billing_counts_each_100_ms_begun(sfn: Any, role: str) -> None:
    # recorded: 300 with a Lambda call, 7600 with retries; a 1 s Wait is at least 1000, in steps of 100
    wait = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 1, "End": True}}}
    billed = start_sync(sfn, role, wait, {})["billingDetails"]["billedDurationInMilliseconds"]
    assert billed >= 1000 and billed % 100 == 0, billed


def test_an_async_express_context_keeps_its_redrive_count(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    # test_express_async::test_query_runtime_memory: StartExecution's express runs have RedriveCount 0 (the
    # end event in the log group); read here from a state that writes the context to a log-visible output
    logs = aws("logs")
    group = f"/aws/vendedlogs/states/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    group_arn = logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["arn"]
    iam = aws("iam")
    iam.put_role_policy(RoleName=role.rsplit("/", 1)[1], PolicyName="logs", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "logs:*", "Resource": "*"}]}))
    sm = sfn.create_state_machine(
        name=f"s15-express-{uuid.uuid4().hex[:8]}", definition=json.dumps(QUERY_CONTEXT), roleArn=role,
        type="EXPRESS", loggingConfiguration={"level": "ALL", "includeExecutionData": True, "destinations": [
            {"cloudWatchLogsLogGroup": {"logGroupArn": group_arn}}]})["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input=json.dumps({"message": "HelloWorld!"}))["executionArn"]
    deadline = time.time() + 30
    while True:
        got = [json.loads(e["message"]) for e in logs.filter_log_events(logGroupName=group)["events"]]
        end = [m for m in got if m["type"] == "ExecutionSucceeded"]
        if end or time.time() > deadline:
            break
        time.sleep(0.05)
    assert end and end[0]["execution_arn"] == arn
    execution = json.loads(end[0]["details"]["output"])["query_values_1"]["context_object"]["Execution"]
    assert set(execution) == {"Id", "Input", "Name", "RoleArn", "StartTime", "RedriveCount"}
    assert execution["RedriveCount"] == 0
