"""RedriveExecution of an execution that failed in an inline Map or a Parallel state: only the
failed iterations and branches run again (AWS API reference, RedriveExecution), through boto3.

Each iteration or branch adds 1 to a counter item in DynamoDB; the failing ones write to a table
that does not exist yet. Once the table exists, a redrive must leave the others' counters at 1."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-redrive-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


def table(ddb: Any, name: str) -> str:
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    return name


def bump(table_path: str, id_path: str, end: bool = True) -> dict[str, Any]:
    return {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:updateItem",
            "Parameters": {"TableName.$": table_path, "Key": {"id": {"S.$": id_path}},
                           "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}},
            "ResultSelector": {"ok": True}, "End": end}


def wait(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline, d
        time.sleep(0.05)
    return d


def counts(ddb: Any, name: str) -> dict[str, int]:
    return {i["id"]["S"]: int(i["n"]["N"]) for i in ddb.scan(TableName=name)["Items"]}


def run_and_redrive(sfn: Any, ddb: Any, role: str, definition: dict[str, Any], data: Any, late: str) -> str:
    sm = sfn.create_state_machine(name=f"rd-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input=json.dumps(data))["executionArn"]
    d = wait(sfn, arn)
    assert (d["status"], d["error"], d["redriveStatus"]) == ("FAILED", "DynamoDB.ResourceNotFoundException",
                                                           "REDRIVABLE"), d
    table(ddb, late)
    sfn.redrive_execution(executionArn=arn)
    d = wait(sfn, arn)
    assert (d["status"], d["redriveCount"]) == ("SUCCEEDED", 1), d
    return arn


def test_redrive_reruns_only_the_failed_map_iterations(aws: Callable[..., Any], role: str) -> None:
    sfn, ddb = aws("stepfunctions"), aws("dynamodb")
    good = table(ddb, f"rd-good-{uuid.uuid4().hex[:8]}")
    late = f"rd-late-{uuid.uuid4().hex[:8]}"
    # One at a time, so that no iteration is aborted halfway through its write (that one would
    # run again too: AWS redrives aborted iterations).
    definition = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "MaxConcurrency": 1,
        "ItemProcessor": {"StartAt": "Bump", "States": {"Bump": bump("$.t", "$.id")}}}}}
    items = [{"t": good, "id": "a"}, {"t": late, "id": "b"}, {"t": good, "id": "c"}, {"t": late, "id": "d"}]
    arn = run_and_redrive(sfn, ddb, role, definition, items, late)
    assert counts(ddb, good) == {"a": 1, "c": 1}
    assert counts(ddb, late) == {"b": 1, "d": 1}
    assert json.loads(sfn.describe_execution(executionArn=arn)["output"]) == [{"ok": True}] * 4
    events = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
    types = [e["type"] for e in events]
    redriven = types[types.index("ExecutionRedriven"):]
    assert redriven[-3:] == ["MapStateSucceeded", "MapStateExited", "ExecutionSucceeded"]
    assert "MapStateEntered" not in redriven  # the Map goes on; the three unfinished iterations run
    assert redriven.count("TaskStateEntered") == 3
    # Each iteration succeeded once in all (before the failure, or after the redrive).
    succeeded = sorted(e["mapIterationSucceededEventDetails"]["index"] for e in events
                       if e["type"] == "MapIterationSucceeded")
    assert succeeded == [0, 1, 2, 3]


def test_redrive_reruns_only_the_failed_parallel_branch(aws: Callable[..., Any], role: str) -> None:
    sfn, ddb = aws("stepfunctions"), aws("dynamodb")
    late = f"rd-late-{uuid.uuid4().hex[:8]}"
    definition = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "Next": "After", "Branches": [
        {"StartAt": "A", "States": {"A": {"Type": "Pass", "Result": {"ok": "a"}, "End": True}}},
        {"StartAt": "Wait", "States": {"Wait": {"Type": "Pass", "Next": "B"}, "B": bump("$.late", "$.b")}}]},
        "After": {"Type": "Pass", "End": True}}}
    arn = run_and_redrive(sfn, ddb, role, definition, {"late": late, "b": "y"}, late)
    assert counts(ddb, late) == {"y": 1}
    assert json.loads(sfn.describe_execution(executionArn=arn)["output"]) == [{"ok": "a"}, {"ok": True}]
    types = [e["type"] for e in sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]]
    assert types.count("ParallelStateEntered") == 1
    redriven = types[types.index("ExecutionRedriven"):]
    # Branch A's Pass is not run again; branch B runs from its start.
    assert redriven == ["ExecutionRedriven", "PassStateEntered", "PassStateExited", "TaskStateEntered",
                        "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited", "ParallelStateSucceeded",
                        "ParallelStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]


def test_redrive_goes_on_with_the_failed_map_run(aws: Callable[..., Any], role: str) -> None:
    sfn, ddb = aws("stepfunctions"), aws("dynamodb")
    good = table(ddb, f"rd-good-{uuid.uuid4().hex[:8]}")
    late = f"rd-late-{uuid.uuid4().hex[:8]}"
    definition = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "ToleratedFailureCount": 0, "MaxConcurrency": 1,
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "Bump", "States": {"Bump": bump("$.t", "$.id")}}}}}
    items = [{"t": good, "id": "a"}, {"t": late, "id": "b"}, {"t": good, "id": "c"}]
    sm = sfn.create_state_machine(name=f"rd-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input=json.dumps(items))["executionArn"]
    d = wait(sfn, arn)
    assert (d["status"], d["error"]) == ("FAILED", "States.ExceedToleratedFailureThreshold"), d
    run_arn = sfn.list_map_runs(executionArn=arn)["mapRuns"][0]["mapRunArn"]
    before = sfn.describe_map_run(mapRunArn=run_arn)
    assert before["status"] == "FAILED"
    assert (before["executionCounts"]["succeeded"], before["executionCounts"]["failed"],
            before["executionCounts"]["pending"]) == (1, 1, 1)
    failed = sfn.list_executions(mapRunArn=run_arn, statusFilter="FAILED")["executions"][0]["executionArn"]

    table(ddb, late)
    sfn.redrive_execution(executionArn=arn)
    d = wait(sfn, arn)
    assert (d["status"], d["redriveCount"]) == ("SUCCEEDED", 1), (d, sfn.get_execution_history(executionArn=arn))
    assert counts(ddb, good) == {"a": 1, "c": 1}
    assert counts(ddb, late) == {"b": 1}
    assert json.loads(d["output"]) == [{"ok": True}] * 3

    events = sfn.get_execution_history(executionArn=arn)["events"]
    types = [e["type"] for e in events]
    assert types[types.index("ExecutionRedriven"):] == [
        "ExecutionRedriven", "MapRunRedriven", "MapRunSucceeded", "MapStateSucceeded", "MapStateExited",
        "ExecutionSucceeded"]
    assert events[types.index("MapRunRedriven")]["mapRunRedrivenEventDetails"] == {
        "mapRunArn": run_arn, "redriveCount": 1}
    assert [r["mapRunArn"] for r in sfn.list_map_runs(executionArn=arn)["mapRuns"]] == [run_arn]
    after = sfn.describe_map_run(mapRunArn=run_arn)
    assert (after["status"], after["redriveCount"]) == ("SUCCEEDED", 1)
    assert "redriveDate" in after
    assert (after["executionCounts"]["succeeded"], after["executionCounts"]["total"]) == (3, 3)
    child = sfn.describe_execution(executionArn=failed)
    assert (child["status"], child["redriveCount"]) == ("SUCCEEDED", 1)
    child_events = sfn.get_execution_history(executionArn=failed)["events"]
    assert [e["type"] for e in child_events] == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskFailed", "ExecutionFailed",
        "ExecutionRedriven", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited",
        "ExecutionSucceeded"]
    assert child_events[5]["executionFailedEventDetails"]["error"] == "DynamoDB.ResourceNotFoundException"
    assert child_events[6]["executionRedrivenEventDetails"] == {"redriveCount": 1}
    assert [e["id"] for e in child_events] == list(range(1, 14))
    redriven = sfn.list_executions(mapRunArn=run_arn, redriveFilter="REDRIVEN")["executions"]
    assert [c["executionArn"] for c in redriven] == [failed]
