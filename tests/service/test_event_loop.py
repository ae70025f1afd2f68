"""`onceflow serve --event-loop uvloop`: the same server on uvloop's event loop (the `uvloop` extra).

The loop is the one piece that changes; what runs on it (HTTP, commits answered after their
fsync, long polls waiting on the loop, drives handing results back) must behave as on asyncio's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from onceflow.cli import _serve_args, settings_from
from onceflow.server import run_loop
from serverproc import ServerProcess, client_factory

pytest.importorskip("uvloop")


def _loop_module(event_loop: str) -> str:
    seen: list[str] = []

    async def main() -> None:
        seen.append(type(asyncio.get_running_loop()).__module__)

    run_loop(main(), event_loop)
    return seen[0]


def test_run_loop_runs_on_the_loop_it_is_told() -> None:
    assert _loop_module("uvloop").startswith("uvloop")
    assert _loop_module("asyncio").startswith("asyncio")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    _serve_args(parser)
    return parser.parse_args(list(argv))


def test_the_flag_sets_the_setting_and_the_default_stays_asyncio() -> None:
    assert settings_from(_args("--in-memory", "--event-loop", "uvloop")).event_loop == "uvloop"
    assert settings_from(_args("--in-memory")).event_loop == "asyncio"


def test_without_uvloop_installed_the_flag_stops_the_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # find_spec then finds nothing
    with pytest.raises(SystemExit, match=r"--event-loop uvloop needs uvloop \(pip install 'onceflow\[uvloop\]'\)"):
        settings_from(_args("--in-memory", "--event-loop", "uvloop"))


@pytest.fixture
def on_uvloop(tmp_path: Path) -> Any:
    proc = ServerProcess(tmp_path / "data", extra_args=("--event-loop", "uvloop")).start()
    yield proc
    proc.kill()


def test_a_durable_server_on_uvloop_serves_writes_reads_long_polls_and_executions(on_uvloop: ServerProcess) -> None:
    assert on_uvloop.proc is not None
    maps = Path(f"/proc/{on_uvloop.proc.pid}/maps").read_text()
    assert "uvloop" in maps  # the server imported it (the CLI only looked it up)
    aws = client_factory(on_uvloop.url)

    ddb = aws("dynamodb")
    ddb.create_table(TableName="loop-t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    ddb.put_item(TableName="loop-t", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    assert ddb.get_item(TableName="loop-t", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}, "v": {"N": "1"}}
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(TableName="loop-t", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
    assert ddb.get_item(TableName="loop-t", Key={"pk": {"S": "a"}})["Item"]["v"] == {"N": "1"}

    sqs = aws("sqs")
    url = sqs.create_queue(QueueName="loop-q")["QueueUrl"]
    sender = threading.Timer(0.5, lambda: aws("sqs").send_message(QueueUrl=url, MessageBody="late"))
    sender.start()
    try:
        got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)  # waits on the loop for the send
    finally:
        sender.join()
    assert [m["Body"] for m in got["Messages"]] == ["late"]

    iam = aws("iam")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="loop-r", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    sfn = aws("stepfunctions")
    states: dict[str, Any] = {f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"} for i in range(2)}
    states["P2"] = {"Type": "Pass", "Result": {"done": True}, "End": True}
    machine = sfn.create_state_machine(name="loop-m", roleArn=role,
                                       definition=json.dumps({"StartAt": "P0", "States": states}))["stateMachineArn"]
    run = sfn.start_execution(stateMachineArn=machine, input='{"n": 1}')["executionArn"]
    described = sfn.describe_execution(executionArn=run)
    for _ in range(500):  # the drive thread ends it; 10 s at most
        if described["status"] != "RUNNING":
            break
        threading.Event().wait(0.02)
        described = sfn.describe_execution(executionArn=run)
    assert (described["status"], described["output"]) == ("SUCCEEDED", '{"done":true}')
    history = sfn.get_execution_history(executionArn=run)["events"]
    assert [e["type"] for e in history] == ["ExecutionStarted"] + ["PassStateEntered", "PassStateExited"] * 3 + [
        "ExecutionSucceeded"]

    assert on_uvloop.stop() == 0  # SIGTERM: the clean shutdown path on uvloop too
