"""Mocked service integrations (Step Functions Local's mock configuration) through boto3.

The configuration is the documented LambdaSQSIntegration example (HappyPath, RetryPath, HybridPath)
plus a catch path and tasks of every kind (DynamoDB, an activity, an integration onceflow does not
run). The server is started with `--mock-config FILE`; executions select a test case with
`<state machine arn>#<case>`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverproc import ServerProcess, client_factory

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
LAMBDA_OK = {"StatusCode": 200, "Payload": {"StatusCode": 200, "body": "Hello from Lambda!"}}
SQS_OK = {"MD5OfMessageBody": "3bcb6e8e-7h85-4375-b0bc-1a59812c6e51",
          "MessageId": "3bcb6e8e-8b51-4375-b0bc-1a59812c6e51"}

MOCK_CONFIG: dict[str, Any] = {
    "StateMachines": {
        "LambdaSQSIntegration": {"TestCases": {
            "HappyPath": {"LambdaState": "MockedLambdaSuccess", "SQSState": "MockedSQSSuccess"},
            "RetryPath": {"LambdaState": "MockedLambdaRetry", "SQSState": "MockedSQSSuccess"},
            "HybridPath": {"LambdaState": "MockedLambdaSuccess"},
            "Exhausted": {"LambdaState": "LambdaMockedResourceNotReady"},
        }},
        "CatchFlow": {"TestCases": {
            "CatchPath": {"LambdaState": "LambdaMockedResourceNotReady"},
        }},
        "MapFlow": {"TestCases": {"EachItem": {"Inner": "MockedThree"}}},
        "SyncFlow": {"TestCases": {"HappyPath": {"LambdaState": "MockedLambdaSuccess"}}},
        "AnyTask": {"TestCases": {
            "AllMocked": {"DdbState": "MockedItem", "ActivityState": "MockedActivity", "GlueState": "MockedGlue"},
        }},
    },
    "MockedResponses": {
        "MockedLambdaSuccess": {"0": {"Return": LAMBDA_OK}},
        "LambdaMockedResourceNotReady": {"0": {"Throw": {
            "Error": "Lambda.ResourceNotReadyException", "Cause": "Lambda resource is not ready."}}},
        "MockedSQSSuccess": {"0": {"Return": SQS_OK}},
        "MockedLambdaRetry": {
            "0": {"Throw": {"Error": "Lambda.ResourceNotReadyException", "Cause": "Lambda resource is not ready."}},
            "1-2": {"Throw": {"Error": "Lambda.TimeoutException", "Cause": "Lambda timed out."}},
            "3": {"Return": LAMBDA_OK},
        },
        "MockedThree": {"0-2": {"Return": {"n": "mocked"}}},
        "MockedItem": {"0": {"Return": {"Item": {"id": {"S": "42"}, "name": {"S": "mocked"}}}}},
        "MockedActivity": {"0": {"Return": {"done": True}}},
        "MockedGlue": {"0": {"Return": {"JobRunState": "SUCCEEDED"}}},
    },
}

RETRY = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 2, "MaxAttempts": 3, "BackoffRate": 2}]


def lambda_sqs(queue_url: str) -> dict[str, Any]:
    """The documented LambdaSQSIntegration machine."""
    return {"StartAt": "LambdaState", "States": {
        "LambdaState": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                        "Parameters": {"Payload.$": "$", "FunctionName": "HelloWorldFunction"},
                        "Retry": RETRY, "Next": "SQSState"},
        "SQSState": {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
                     "Parameters": {"QueueUrl": queue_url, "MessageBody.$": "$"}, "End": True},
    }}


CATCH_FLOW = {"StartAt": "LambdaState", "States": {
    "LambdaState": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                    "Parameters": {"Payload.$": "$", "FunctionName": "HelloWorldFunction"},
                    "Catch": [{"ErrorEquals": ["Lambda.ResourceNotReadyException"], "ResultPath": "$.error",
                               "Next": "Fallback"}],
                    "End": True},
    "Fallback": {"Type": "Pass", "End": True},
}}


MAP_FLOW = {"StartAt": "Each", "States": {"Each": {
    "Type": "Map", "ItemsPath": "$.items", "MaxConcurrency": 1, "End": True,
    "ItemProcessor": {"StartAt": "Inner", "States": {"Inner": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": "f", "Payload.$": "$"}, "End": True}}}}}}


def any_task(activity_arn: str) -> dict[str, Any]:
    return {"StartAt": "DdbState", "States": {
        "DdbState": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:getItem",
                     "Parameters": {"TableName": "NoSuchTable", "Key": {"id": {"S": "42"}}},
                     "ResultSelector": {"name.$": "$.Item.name.S"}, "ResultPath": "$.ddb", "Next": "ActivityState"},
        "ActivityState": {"Type": "Task", "Resource": activity_arn, "ResultPath": "$.activity",
                          "Next": "GlueState"},
        "GlueState": {"Type": "Task", "Resource": "arn:aws:states:::glue:startJobRun.sync",
                      "Parameters": {"JobName": "nightly"}, "ResultPath": "$.glue", "End": True},
    }}


@pytest.fixture(scope="module")
def mock_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mocks") / "MockConfigFile.json"
    path.write_text(json.dumps(MOCK_CONFIG))
    return path


@pytest.fixture(scope="module")
def mocked_server(mock_file: Path) -> Iterator[ServerProcess]:
    # Time scale: the retry path's 2 + 4 + 8 s of backoff pass in milliseconds (history keeps nominal times).
    proc = ServerProcess(time_scale=1000.0, extra_args=("--mock-config", str(mock_file))).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def sfn(mocked_server: ServerProcess) -> Any:
    return mocked_server.client("stepfunctions")


@pytest.fixture(scope="module")
def machines(mocked_server: ServerProcess, sfn: Any) -> dict[str, str]:
    iam, sqs = mocked_server.client("iam"), mocked_server.client("sqs")
    role = iam.create_role(RoleName="mock-role", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName="mock-role", PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    queue_url = sqs.create_queue(QueueName="myQueue")["QueueUrl"]
    activity = sfn.create_activity(name="mocked-activity")["activityArn"]
    out = {}
    for name, definition in (("LambdaSQSIntegration", lambda_sqs(queue_url)), ("CatchFlow", CATCH_FLOW),
                             ("AnyTask", any_task(activity)), ("MapFlow", MAP_FLOW), ("SyncFlow", CATCH_FLOW)):
        out[name] = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=role,
                                             type="EXPRESS" if name == "SyncFlow" else "STANDARD")["stateMachineArn"]
    out["queue"] = queue_url
    return out


def run(sfn: Any, arn: str, case: str, payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    started = sfn.start_execution(stateMachineArn=f"{arn}#{case}", name=f"{case}-{uuid.uuid4().hex[:8]}",
                                  input=json.dumps(payload))
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=started["executionArn"]))["status"] == "RUNNING":
        assert time.time() < deadline, "the execution did not end"
        time.sleep(0.05)
    events = sfn.get_execution_history(executionArn=started["executionArn"], maxResults=1000)["events"]
    return d, events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_happy_path_history_as_step_functions_local_records_it(sfn: Any, machines: dict[str, str]) -> None:
    d, events = run(sfn, machines["LambdaSQSIntegration"], "HappyPath", {"hello": "world"})
    assert d["status"] == "SUCCEEDED"
    assert d["stateMachineArn"] == machines["LambdaSQSIntegration"]
    assert json.loads(d["output"]) == SQS_OK
    assert types(events) == [
        "ExecutionStarted",
        "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited",
        "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited",
        "ExecutionSucceeded"]
    scheduled = events[2]["taskScheduledEventDetails"]
    assert scheduled["resourceType"] == "lambda" and scheduled["resource"] == "invoke"
    assert json.loads(scheduled["parameters"]) == {"Payload": {"hello": "world"}, "FunctionName": "HelloWorldFunction"}
    succeeded = events[4]["taskSucceededEventDetails"]
    assert (succeeded["resourceType"], succeeded["resource"]) == ("lambda", "invoke")
    assert json.loads(succeeded["output"]) == LAMBDA_OK
    assert json.loads(events[9]["taskSucceededEventDetails"]["output"]) == SQS_OK


def test_retry_path_advances_the_invocation_count(sfn: Any, machines: dict[str, str]) -> None:
    d, events = run(sfn, machines["LambdaSQSIntegration"], "RetryPath", {"n": 1})
    assert d["status"] == "SUCCEEDED", d
    failed = [e["taskFailedEventDetails"] for e in events if e["type"] == "TaskFailed"]
    assert [(f["error"], f["cause"]) for f in failed] == [
        ("Lambda.ResourceNotReadyException", "Lambda resource is not ready."),
        ("Lambda.TimeoutException", "Lambda timed out."),
        ("Lambda.TimeoutException", "Lambda timed out.")]
    assert types(events).count("TaskScheduled") == 5  # four Lambda attempts, one SQS send
    outputs = [json.loads(e["taskSucceededEventDetails"]["output"]) for e in events if e["type"] == "TaskSucceeded"]
    assert outputs == [LAMBDA_OK, SQS_OK]


def test_retries_exhausted_fail_the_execution_with_the_thrown_error(sfn: Any, machines: dict[str, str]) -> None:
    # One answer ("0") for four attempts: the second attempt has none, which fails as States.Runtime.
    d, events = run(sfn, machines["LambdaSQSIntegration"], "Exhausted", {})
    assert d["status"] == "FAILED"
    assert d["error"] == "States.Runtime"
    assert "invocation 1" in d["cause"]
    assert types(events).count("TaskFailed") == 1


def test_hybrid_path_makes_the_real_calls_of_unmocked_states(mocked_server: ServerProcess, sfn: Any,
                                                            machines: dict[str, str]) -> None:
    d, events = run(sfn, machines["LambdaSQSIntegration"], "HybridPath", {"real": "send"})
    assert d["status"] == "SUCCEEDED", (d.get("error"), d.get("cause"))
    out = json.loads(d["output"])
    assert set(out) >= {"MessageId", "MD5OfMessageBody"} and out["MessageId"] != SQS_OK["MessageId"]
    got = mocked_server.client("sqs").receive_message(QueueUrl=machines["queue"], WaitTimeSeconds=1)["Messages"]
    assert got[0]["MessageId"] == out["MessageId"]
    first = next(e for e in events if e["type"] == "TaskSucceeded")["taskSucceededEventDetails"]
    assert json.loads(first["output"]) == LAMBDA_OK
    assert json.loads(got[0]["Body"]) == LAMBDA_OK  # the mocked Lambda result, sent for real


def test_catch_path_applies_catch_to_a_thrown_mock(sfn: Any, machines: dict[str, str]) -> None:
    d, events = run(sfn, machines["CatchFlow"], "CatchPath", {"order": 7})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"order": 7, "error": {
        "Error": "Lambda.ResourceNotReadyException", "Cause": "Lambda resource is not ready."}}
    assert types(events) == [
        "ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskFailed", "TaskStateExited",
        "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]


def test_any_task_kind_can_be_mocked(sfn: Any, machines: dict[str, str]) -> None:
    # A missing table, an activity nobody polls and an integration onceflow does not run: all mocked.
    d, events = run(sfn, machines["AnyTask"], "AllMocked", {})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"ddb": {"name": "mocked"}, "activity": {"done": True},
                                       "glue": {"JobRunState": "SUCCEEDED"}}
    assert "ActivityScheduled" not in types(events)
    assert types(events).count("TaskSucceeded") == 3


def test_invocations_count_across_map_iterations(sfn: Any, machines: dict[str, str]) -> None:
    d, _ = run(sfn, machines["MapFlow"], "EachItem", {"items": [1, 2, 3]})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [{"n": "mocked"}] * 3
    d, _ = run(sfn, machines["MapFlow"], "EachItem", {"items": [1, 2, 3, 4]})  # "0-2" has no fourth answer
    assert (d["status"], d["error"]) == ("FAILED", "States.Runtime")


def test_start_sync_execution_runs_a_test_case(mocked_server: ServerProcess, machines: dict[str, str]) -> None:
    import botocore.config

    sync = mocked_server.client("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))
    out = sync.start_sync_execution(stateMachineArn=f"{machines['SyncFlow']}#HappyPath", input='{"a": 1}')
    assert out["status"] == "SUCCEEDED", out
    assert json.loads(out["output"]) == LAMBDA_OK
    assert out["stateMachineArn"] == machines["SyncFlow"]


def test_without_a_test_case_the_calls_are_real(sfn: Any, machines: dict[str, str]) -> None:
    started = sfn.start_execution(stateMachineArn=machines["CatchFlow"], input="{}")
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=started["executionArn"]))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    assert d["status"] == "FAILED"  # HelloWorldFunction does not exist here
    assert d["error"].startswith("Lambda.")


def test_unknown_test_case_is_refused_and_starts_nothing(sfn: Any, machines: dict[str, str]) -> None:
    arn = machines["CatchFlow"]
    before = sfn.list_executions(stateMachineArn=arn)["executions"]
    for case in ("NoSuchCase", "HappyPath"):  # HappyPath belongs to another machine
        with pytest.raises(ClientError) as exc:
            sfn.start_execution(stateMachineArn=f"{arn}#{case}", input="{}")
        assert exc.value.response["Error"]["Code"] == "StateMachineDoesNotExist"
        assert exc.value.response["Error"]["Message"] == f"State Machine Does Not Exist: '{arn}#{case}'"
    assert sfn.list_executions(stateMachineArn=arn)["executions"] == before


def test_a_test_case_without_a_mock_config_is_refused(aws: Callable[..., Any]) -> None:
    sfn = aws("stepfunctions")
    role = aws("iam").create_role(RoleName=f"nomock-{uuid.uuid4().hex[:6]}",
                                  AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    arn = sfn.create_state_machine(name=f"nomock-{uuid.uuid4().hex[:6]}", roleArn=role, definition=json.dumps(
        {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))["stateMachineArn"]
    with pytest.raises(ClientError) as exc:
        sfn.start_execution(stateMachineArn=f"{arn}#HappyPath", input="{}")
    assert exc.value.response["Error"]["Code"] == "StateMachineDoesNotExist"


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "is not JSON"),
    (json.dumps({"StateMachines": {"M": {"TestCases": {"T": {"S": "Missing"}}}}, "MockedResponses": {}}),
     "'Missing'"),
    (json.dumps({"MockedResponses": {"R": {"0-2": {"Return": 1}, "2": {"Return": 2}}}}), "overlap"),
    (json.dumps({"MockedResponses": {"R": {"0": {"Return": 1, "Throw": {"Error": "E"}}}}}), "exactly one"),
])
def test_a_bad_mock_config_stops_serve_with_one_line(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    done = subprocess.run([sys.executable, "-m", "onceflow", "serve", "--port", "0", "--in-memory",
                           "--mock-config", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("onceflow: mock configuration:") and fragment in lines[0]


def test_sfn_mock_config_variable_is_read_like_the_flag(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"MockedResponses": {"R": {"0": {"Return": 1, "Throw": {"Error": "E"}}}}}')
    env = {**os.environ, "SFN_MOCK_CONFIG": str(path)}
    done = subprocess.run([sys.executable, "-m", "onceflow", "serve", "--port", "0", "--in-memory"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert "exactly one of Return or Throw" in done.stderr


def test_a_running_test_case_survives_a_restart_without_the_file(server_factory: Callable[..., ServerProcess],
                                                                 mock_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = server_factory(data, extra_args=("--mock-config", str(mock_file)))
    sfn = first.client("stepfunctions")
    role = first.client("iam").create_role(RoleName="r", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    lambda_state = {k: v for k, v in CATCH_FLOW["States"]["LambdaState"].items() if k != "Catch"}
    napping = {"StartAt": "Nap", "States": {"Nap": {"Type": "Wait", "Seconds": 3, "Next": "LambdaState"},
                                            "LambdaState": lambda_state}}
    arn = sfn.create_state_machine(name="CatchFlow", definition=json.dumps(napping), roleArn=role)["stateMachineArn"]
    started = sfn.start_execution(stateMachineArn=f"{arn}#CatchPath", input="{}")
    first.stop()
    second = server_factory(data)  # no mock configuration now: the execution still runs its case
    sfn = second.client("stepfunctions")
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=started["executionArn"]))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.1)
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "Lambda.ResourceNotReadyException",
                                                     "Lambda resource is not ready.")


def test_iam_authorizes_a_test_case_as_its_state_machine(server_factory: Callable[..., ServerProcess],
                                                         mock_file: Path) -> None:
    server = server_factory(extra_args=("--mock-config", str(mock_file), "--enforce-iam"))
    iam = server.client("iam")
    role = iam.create_role(RoleName="r", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    arn = server.client("stepfunctions").create_state_machine(
        name="CatchFlow", definition=json.dumps(CATCH_FLOW), roleArn=role)["stateMachineArn"]
    iam.create_user(UserName="tester")
    iam.put_user_policy(UserName="tester", PolicyName="start", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "states:StartExecution", "Resource": arn}]}))
    key = iam.create_access_key(UserName="tester")["AccessKey"]
    as_user = client_factory(server.url)("stepfunctions", access_key=key["AccessKeyId"],
                                         secret_key=key["SecretAccessKey"])
    assert as_user.start_execution(stateMachineArn=f"{arn}#CatchPath", input="{}")["executionArn"]
    other = arn.replace(":CatchFlow", ":AnyTask")
    with pytest.raises(ClientError) as exc:
        as_user.start_execution(stateMachineArn=f"{other}#AllMocked", input="{}")
    assert exc.value.response["Error"]["Code"] == "AccessDeniedException"
