"""Execution logging through boto3: loggingConfiguration sends history events to CloudWatch Logs in
AWS's JSON form, by level, with or without execution data, for STANDARD and EXPRESS machines."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
DELIVERY = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": [
    "logs:CreateLogDelivery", "logs:GetLogDelivery", "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries", "logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups"],
    "Resource": "*"}]})
PASS_THEN_FAIL = {"StartAt": "P", "States": {
    "P": {"Type": "Pass", "Result": {"secret": "s3cr3t"}, "Next": "F"},
    "F": {"Type": "Fail", "Error": "Oops", "Cause": "planned"}}}
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"secret": "s3cr3t"}, "End": True}}}


def _role(aws: Callable[..., Any], policy: str | None) -> str:
    iam = aws("iam")
    name = f"sfn-logging-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    if policy:
        iam.put_role_policy(RoleName=name, PolicyName="logs", PolicyDocument=policy)
    return arn


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return _role(aws, DELIVERY)


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))  # StartSync: "sync-"


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def new_group(logs: Any) -> str:
    """A log group that exists (AWS refuses a destination that does not)."""
    name = f"/aws/vendedlogs/states/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    return name


def group_arn(name: str) -> str:
    return f"arn:aws:logs:us-east-1:000000000000:log-group:{name}:*"


def logging(group: str, level: str = "ALL", data: bool = True) -> dict[str, Any]:
    return {"level": level, "includeExecutionData": data,
            "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group_arn(group)}}]}


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 30
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def messages(logs: Any, group: str) -> list[dict[str, Any]]:
    events = logs.filter_log_events(logGroupName=group)["events"]
    return [json.loads(e["message"]) for e in events]


def run(sfn: Any, role: str, definition: dict[str, Any], config: dict[str, Any], kind: str = "STANDARD") -> str:
    sm = sfn.create_state_machine(name=f"log-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role, type=kind, loggingConfiguration=config)["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input='{"k": 1}')["executionArn"]
    if kind == "STANDARD":
        wait_done(sfn, arn)
    return arn


def test_all_level_writes_every_event_as_aws_does(sfn: Any, logs: Any, role: str) -> None:
    group = new_group(logs)
    arn = run(sfn, role, PASS_THEN_FAIL, logging(group))
    history = sfn.get_execution_history(executionArn=arn)["events"]
    got = messages(logs, group)
    assert [m["type"] for m in got] == [e["type"] for e in history]
    first = got[0]
    assert list(first) == ["id", "type", "details", "previous_event_id", "event_timestamp", "execution_arn",
                           "redrive_count"]
    assert (first["id"], first["previous_event_id"], first["execution_arn"], first["redrive_count"]) == (
        "1", "0", arn, "0")
    assert first["details"]["input"] == '{"k": 1}'
    assert int(first["event_timestamp"]) == round(history[0]["timestamp"].timestamp() * 1000)
    exited = next(m for m in got if m["type"] == "PassStateExited")
    assert json.loads(exited["details"]["output"]) == {"secret": "s3cr3t"}
    # beside the execution's stream, the empty one AWS's delivery validation leaves (test_logs' recordings)
    streams = [s["logStreamName"] for s in logs.describe_log_streams(logGroupName=group)["logStreams"]]
    assert len(streams) == 2 and streams[0] == "log_stream_created_by_aws_to_validate_log_delivery_subscriptions"
    assert streams[1].startswith(f"states/{arn.split(':')[6]}/")


def test_error_and_fatal_levels_and_no_data(sfn: Any, logs: Any, role: str) -> None:
    errors = new_group(logs)
    run(sfn, role, PASS_THEN_FAIL, logging(errors, "ERROR", data=False))
    got = messages(logs, errors)
    assert [m["type"] for m in got] == ["FailStateEntered", "ExecutionFailed"]
    assert got[0]["details"] == {"name": "F"}  # no input and no inputDetails, as AWS records
    assert got[1]["details"] == {"error": "Oops", "cause": "planned"}
    fatal = new_group(logs)
    run(sfn, role, PASS_THEN_FAIL, logging(fatal, "FATAL"))
    assert [m["type"] for m in messages(logs, fatal)] == ["ExecutionFailed"]


def test_express_executions_leave_their_events_in_the_log(sfn: Any, logs: Any, role: str) -> None:
    group = new_group(logs)
    sm = sfn.create_state_machine(name=f"log-{uuid.uuid4().hex[:10]}", definition=json.dumps(PASS), roleArn=role,
                                  type="EXPRESS", loggingConfiguration=logging(group))["stateMachineArn"]
    out = sfn.start_sync_execution(stateMachineArn=sm, input="{}")
    assert out["status"] == "SUCCEEDED"
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    deadline = time.time() + 30
    while len({m["execution_arn"] for m in messages(logs, group) if m["type"] == "ExecutionSucceeded"}) < 2:
        assert time.time() < deadline
        time.sleep(0.05)
    got = messages(logs, group)
    for execution in (out["executionArn"], arn):
        assert [m["type"] for m in got if m["execution_arn"] == execution] == [
            "ExecutionStarted", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]


def test_off_writes_nothing_and_update_turns_logging_on(sfn: Any, logs: Any, role: str) -> None:
    group = new_group(logs)
    sm = sfn.create_state_machine(name=f"log-{uuid.uuid4().hex[:10]}", definition=json.dumps(PASS),
                                  roleArn=role)["stateMachineArn"]
    wait_done(sfn, sfn.start_execution(stateMachineArn=sm)["executionArn"])
    assert messages(logs, group) == []
    sfn.update_state_machine(stateMachineArn=sm, loggingConfiguration=logging(group, "ALL"))
    assert sfn.describe_state_machine(stateMachineArn=sm)["loggingConfiguration"] == logging(group, "ALL")
    arn = sfn.start_execution(stateMachineArn=sm)["executionArn"]
    wait_done(sfn, arn)
    assert {m["execution_arn"] for m in messages(logs, group)} == {arn}


def test_bad_logging_configurations_change_nothing(aws: Callable[..., Any], sfn: Any, logs: Any, role: str) -> None:
    name = f"log-{uuid.uuid4().hex[:10]}"
    group = new_group(logs)
    bad = [
        ({"level": "ALL"}, ("InvalidLoggingConfiguration",
                            "Invalid Logging Configuration: Must specify exactly one Log Destination.")),
        ({"level": "ALL", "destinations": [{"cloudWatchLogsLogGroup": {
            "logGroupArn": f"arn:aws:logs:us-east-1:000000000000:log-group:{group}"}}]},
         ("InvalidLoggingConfiguration",
          "Invalid Logging Configuration: Log Group ARN must be provided with '*' qualifier.")),
        (logging(group + "-gone"), ("InvalidLoggingConfiguration",
                                    "Invalid Logging Configuration: Log Destination not found.")),
    ]
    for config, expected in bad:
        with pytest.raises(ClientError) as exc:
            sfn.create_state_machine(name=name, definition=json.dumps(PASS), roleArn=role,
                                     loggingConfiguration=config)
        assert error_of(exc) == expected
    unprivileged = _role(aws, None)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine(name=name, definition=json.dumps(PASS), roleArn=unprivileged,
                                 loggingConfiguration=logging(group))
    assert error_of(exc) == ("AccessDeniedException",
                             "The state machine IAM Role is not authorized to access the Log Destination")
    names = [m["name"] for m in sfn.list_state_machines()["stateMachines"]]
    assert name not in names
    sm = sfn.create_state_machine(name=name, definition=json.dumps(PASS), roleArn=unprivileged)["stateMachineArn"]
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine(stateMachineArn=sm, loggingConfiguration=logging(group))
    assert error_of(exc)[0] == "AccessDeniedException"
    assert sfn.describe_state_machine(stateMachineArn=sm)["loggingConfiguration"] == {
        "level": "OFF", "includeExecutionData": False}


def test_an_off_configuration_keeps_what_it_was_given(sfn: Any, role: str) -> None:
    sm = sfn.create_state_machine(name=f"log-{uuid.uuid4().hex[:10]}", definition=json.dumps(PASS), roleArn=role,
                                  loggingConfiguration={"level": "OFF", "destinations": []})["stateMachineArn"]
    assert sfn.describe_state_machine(stateMachineArn=sm)["loggingConfiguration"] == {
        "level": "OFF", "destinations": [], "includeExecutionData": False}


def test_starts_by_machine_and_by_version_both_log(sfn: Any, logs: Any, role: str) -> None:
    # StartExecution hands the logger the machine row it holds; a version's start has its logger
    # read the version's configuration instead: both must end up in the group.
    group = new_group(logs)
    made = sfn.create_state_machine(name=f"log-{uuid.uuid4().hex[:10]}", definition=json.dumps(PASS), roleArn=role,
                                    loggingConfiguration=logging(group), publish=True)
    by_machine = sfn.start_execution(stateMachineArn=made["stateMachineArn"])["executionArn"]
    by_version = sfn.start_execution(stateMachineArn=made["stateMachineVersionArn"])["executionArn"]
    for arn in (by_machine, by_version):
        wait_done(sfn, arn)
    got = messages(logs, group)
    for arn in (by_machine, by_version):
        history = sfn.get_execution_history(executionArn=arn)["events"]
        assert [m["type"] for m in got if m["execution_arn"] == arn] == [e["type"] for e in history]
    assert len(logs.describe_log_streams(logGroupName=group)["logStreams"]) == 2
