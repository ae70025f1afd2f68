"""kill -9 the server while executions wait, back off, iterate a Map and run a Lambda task:
after a restart on the same data folder every one of them goes on, with one unbroken history,
and no task is started twice unless its Retry says so."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import botocore.config

from entry_log import MARK, EntryLog
from serverproc import client_factory

ROLE_TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": ["states.amazonaws.com", "lambda.amazonaws.com"]},
     "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
CFG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=60)


def client(url: str, service: str) -> Any:
    return client_factory(url)(service, config=CFG)


def events(sfn: Any, arn: str) -> list[dict[str, Any]]:
    return sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]


def until(check: Callable[[], bool], timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while not check():
        assert time.time() < deadline, "condition not reached in time"
        time.sleep(0.05)


def has_event(sfn: Any, arn: str, type_: str, count: int = 1) -> Callable[[], bool]:
    return lambda: sum(e["type"] == type_ for e in events(sfn, arn)) >= count


def finished(sfn: Any, arn: str) -> dict[str, Any]:
    until(lambda: sfn.describe_execution(executionArn=arn)["status"] != "RUNNING", 120)
    return sfn.describe_execution(executionArn=arn)


def assert_unbroken(history: list[dict[str, Any]]) -> None:
    assert [e["id"] for e in history] == list(range(1, len(history) + 1))
    assert all(0 <= e["previousEventId"] < e["id"] for e in history)
    assert history[0]["type"] == "ExecutionStarted"
    assert sum(e["type"].startswith("Execution") for e in history) == 2  # started and one end


def setup_role(url: str) -> str:
    iam = client(url, "iam")
    role = iam.create_role(RoleName=f"k9-{uuid.uuid4().hex[:6]}", AssumeRolePolicyDocument=ROLE_TRUST)["Role"]
    iam.put_role_policy(RoleName=role["RoleName"], PolicyName="all", PolicyDocument=ALLOW_ALL)
    return role["Arn"]


def make_function(url: str, role: str, code: str, env: dict[str, str] | None = None) -> str:
    lam = client(url, "lambda")
    name = f"k9-{uuid.uuid4().hex[:8]}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", code)
    arn = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="fn.handler",
                              Code={"ZipFile": buf.getvalue()}, Timeout=60,
                              Environment={"Variables": env or {}})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    return arn


def machine(url: str, role: str, definition: dict[str, Any]) -> str:
    return client(url, "stepfunctions").create_state_machine(
        name=f"k9-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition), roleArn=role)["stateMachineArn"]


def test_wait_retry_backoff_map_and_running_task_survive_kill9(server_factory: Callable[..., Any],
                                                                entry_log: EntryLog) -> None:
    server = server_factory(time_scale=1.0)
    url = server.url
    sfn = client(url, "stepfunctions")
    role = setup_role(url)
    failing = make_function(url, role, "def handler(event, context):\n    raise RuntimeError('boom')\n")
    slow = make_function(url, role, MARK + "import time\ndef handler(event, context):\n"
                         "    mark('entered')\n    time.sleep(4)\n    return 1\n",
                         {"ENTRY_PORT": str(entry_log.port)})

    wait_sm = machine(url, role, {"StartAt": "W", "States": {
        "W": {"Type": "Wait", "Seconds": 3, "Next": "Done"}, "Done": {"Type": "Pass", "End": True}}})
    retry_sm = machine(url, role, {"StartAt": "T", "States": {"T": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": failing, "Payload": {}},
        "Retry": [{"ErrorEquals": ["RuntimeError"], "IntervalSeconds": 3, "MaxAttempts": 2, "BackoffRate": 1}],
        "End": True}}})
    map_sm = machine(url, role, {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ItemProcessor": {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3,
                                                                           "End": True}}},
        "End": True}}})
    task_sm = machine(url, role, {"StartAt": "T", "States": {
        "T": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
              "Parameters": {"FunctionName": slow, "Payload": {}},
              "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Handled"}], "End": True},
        "Handled": {"Type": "Pass", "End": True}}})

    waiting = sfn.start_execution(stateMachineArn=wait_sm, input='{"k": "wait"}')["executionArn"]
    backing_off = sfn.start_execution(stateMachineArn=retry_sm)["executionArn"]
    mapping = sfn.start_execution(stateMachineArn=map_sm, input="[1, 2, 3]")["executionArn"]
    running = sfn.start_execution(stateMachineArn=task_sm)["executionArn"]
    until(has_event(sfn, waiting, "WaitStateEntered"))
    until(has_event(sfn, backing_off, "TaskFailed"))
    until(has_event(sfn, mapping, "WaitStateEntered", 3))
    until(has_event(sfn, running, "TaskStarted"))
    until(lambda: "entered" in entry_log.snapshot())  # the handler runs: its outcome is in doubt now
    server.kill()

    server = server_factory(server.data_dir, time_scale=1.0)
    sfn = client(server.url, "stepfunctions")

    d = finished(sfn, waiting)
    assert (d["status"], d["output"]) == ("SUCCEEDED", '{"k":"wait"}')
    h = events(sfn, waiting)
    assert_unbroken(h)
    assert [e["type"] for e in h] == ["ExecutionStarted", "WaitStateEntered", "WaitStateExited",
                                      "PassStateEntered", "PassStateExited", "ExecutionSucceeded"]

    d = finished(sfn, backing_off)
    assert (d["status"], d["error"]) == ("FAILED", "RuntimeError")
    h = events(sfn, backing_off)
    assert_unbroken(h)
    types = [e["type"] for e in h]
    assert types.count("TaskScheduled") == 3 and types.count("TaskFailed") == 3  # 1 attempt + 2 retries

    d = finished(sfn, mapping)
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", [1, 2, 3])
    h = events(sfn, mapping)
    assert_unbroken(h)
    assert [e["type"] for e in h].count("MapIterationSucceeded") == 3

    d = finished(sfn, running)
    assert d["status"] == "SUCCEEDED"
    h = events(sfn, running)
    assert_unbroken(h)
    assert [e["type"] for e in h] == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted",
                                      "TaskFailed", "TaskStateExited", "PassStateEntered", "PassStateExited",
                                      "ExecutionSucceeded"]
    failed = h[4]["taskFailedEventDetails"]
    assert failed["error"] == "Lambda.ServiceException"
    assert "outcome of the call is unknown" in failed["cause"]
    assert json.loads(d["output"])["error"]["Error"] == "Lambda.ServiceException"


def test_clean_shutdown_records_the_running_task_and_starts_no_new_one(server_factory: Callable[..., Any]) -> None:
    """SIGTERM: the Lambda call in flight finishes and is recorded; the next task is not started
    until the restart, so nothing is reported lost."""
    server = server_factory(time_scale=1.0)
    sfn = client(server.url, "stepfunctions")
    role = setup_role(server.url)
    code = "import time\ndef handler(event, context):\n    time.sleep(2)\n    return 7\n"
    slow = make_function(server.url, role, code)
    task = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "OutputPath": "$.Payload",
            "Parameters": {"FunctionName": slow, "Payload": {}}}
    sm = machine(server.url, role, {"StartAt": "A", "States": {"A": {**task, "Next": "B"}, "B": {**task, "End": True}}})
    ex = sfn.start_execution(stateMachineArn=sm)["executionArn"]
    until(has_event(sfn, ex, "TaskStarted"))
    server.stop()

    server = server_factory(server.data_dir, time_scale=1.0)
    sfn = client(server.url, "stepfunctions")
    d = finished(sfn, ex)
    assert (d["status"], d["output"]) == ("SUCCEEDED", "7")
    h = events(sfn, ex)
    assert_unbroken(h)
    types = [e["type"] for e in h]
    assert "TaskFailed" not in types
    assert types.count("TaskScheduled") == 2 and types.count("TaskSucceeded") == 2
