"""The runtime as Lambda builds it: its variables, the working directory, LoggingConfig applied
(JSON records, levels, a custom group), the timeout line and the REPORT figures."""

from __future__ import annotations

import io
import json
import os
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
APP = '''
import logging, os, time

log = logging.getLogger("orders")


def handler(event, context):
    mode = event.get("mode")
    if mode == "env":
        return {"env": dict(os.environ), "cwd": os.getcwd()}
    if mode == "log":
        print("plain print")
        log.debug("a debug line")
        log.info("an info line", extra={"orderId": "o-1"})
        log.warning("a warning line")
        return "logged"
    if mode == "sleep":
        time.sleep(event["seconds"])
    if mode == "raise":
        raise ValueError("bad order")
    return "ok"
'''


def make_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"runtime-role-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


@pytest.fixture
def deploy(aws: Callable[..., Any], role: str) -> Callable[..., str]:
    def make(**extra: Any) -> str:
        name = f"rt-{uuid.uuid4().hex[:10]}"
        aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                      Code={"ZipFile": make_zip()}, **extra)  # fmt: skip
        return name

    return make


def call(aws: Callable[..., Any], name: str, event: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    out = aws("lambda").invoke(FunctionName=name, Payload=json.dumps(event).encode())
    return out, json.loads(out["Payload"].read() or b"null")


def read_logs(aws: Callable[..., Any], group: str, done: Callable[[list[str]], bool]) -> list[str]:
    """The group's messages once `done` says they are all there (logs are shipped asynchronously)."""
    deadline = time.monotonic() + 30
    messages: list[str] = []
    while time.monotonic() < deadline:
        try:
            messages = [e["message"] for e in aws("logs").filter_log_events(logGroupName=group)["events"]]
        except ClientError:
            messages = []
        if done(messages):
            return messages
        time.sleep(0.05)
    raise AssertionError(f"log lines never complete: {messages}")


def test_the_variables_lambda_sets(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy()
    _, body = call(aws, name, {"mode": "env"})
    env = body["env"]
    assert env["AWS_LAMBDA_RUNTIME_API"] == "127.0.0.1:9001"
    assert env["AWS_EXECUTION_ENV"] == "AWS_Lambda_python3.12"
    assert env["LAMBDA_RUNTIME_DIR"] == "/var/runtime"
    assert env["TZ"] == ":UTC" and env["_HANDLER"] == "app.handler"
    assert (env["LANG"], env["LC_CTYPE"], env["SHLVL"]) == ("en_US.UTF-8", "C.UTF-8", "0")  # recorded
    # The working directory is the function's code, and PWD says so, as /var/task on Lambda.
    assert env["PWD"] == env["LAMBDA_TASK_ROOT"] == body["cwd"]
    assert os.path.isfile(os.path.join(body["cwd"], "app.py"))
    assert env["AWS_XRAY_CONTEXT_MISSING"] == "LOG_ERROR"
    assert env["AWS_XRAY_DAEMON_ADDRESS"] == "169.254.79.129:2000"
    assert (env["_AWS_XRAY_DAEMON_ADDRESS"], env["_AWS_XRAY_DAEMON_PORT"]) == ("169.254.79.129", "2000")
    assert re.fullmatch(r"Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0", env["_X_AMZN_TRACE_ID"])
    _, again = call(aws, name, {"mode": "env"})
    assert again["env"]["_X_AMZN_TRACE_ID"] != env["_X_AMZN_TRACE_ID"]  # one trace per invocation
    assert "AWS_LAMBDA_LOG_FORMAT" not in env


def test_json_logs_with_levels_in_a_custom_group(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    group = f"/custom/{uuid.uuid4().hex[:8]}"
    name = deploy(LoggingConfig={"LogFormat": "JSON", "ApplicationLogLevel": "INFO", "LogGroup": group})
    out, body = call(aws, name, {"mode": "log"})
    assert body == "logged"
    request_id = out["ResponseMetadata"]["RequestId"]
    _, env = call(aws, name, {"mode": "env"})
    assert env["env"]["AWS_LAMBDA_LOG_GROUP_NAME"] == group
    assert (env["env"]["AWS_LAMBDA_LOG_FORMAT"], env["env"]["AWS_LAMBDA_LOG_LEVEL"]) == ("JSON", "INFO")

    messages = read_logs(aws, group, lambda ms: sum('"platform.report"' in m for m in ms) >= 2)
    records = [json.loads(m) for m in messages if m.startswith("{")]
    kinds = [r.get("type") for r in records if "type" in r]
    assert kinds[:3] == ["platform.initStart", "platform.start", "platform.report"]
    start = next(r for r in records if r.get("type") == "platform.start")
    assert start["record"] == {"requestId": request_id, "version": "$LATEST"}
    report = next(r for r in records if r.get("type") == "platform.report")
    assert report["record"]["requestId"] == request_id and report["record"]["status"] == "success"
    assert report["record"]["metrics"]["memorySizeMB"] == 128
    assert report["record"]["metrics"]["maxMemoryUsedMB"] > 0 and "initDurationMs" in report["record"]["metrics"]
    app = [r for r in records if "level" in r]
    assert [(r["level"], r["message"]) for r in app] == [("INFO", "an info line"), ("WARNING", "a warning line")]
    assert app[0]["logger"] == "orders" and app[0]["requestId"] == request_id and app[0]["orderId"] == "o-1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", app[0]["timestamp"])
    assert any(m.rstrip("\n") == "plain print" for m in messages)  # print stays text
    assert not any("START RequestId" in m for m in messages)
    with pytest.raises(ClientError):  # nothing went to the default group
        aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")


def test_system_log_level_warn_leaves_platform_lines_out(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy(LoggingConfig={"LogFormat": "JSON", "ApplicationLogLevel": "DEBUG", "SystemLogLevel": "WARN"})
    call(aws, name, {"mode": "log"})
    messages = read_logs(aws, f"/aws/lambda/{name}", lambda ms: any("a warning line" in m for m in ms))
    levels = [json.loads(m)["level"] for m in messages if m.startswith("{")]
    assert levels == ["DEBUG", "INFO", "WARNING"]
    assert not any("platform." in m for m in messages)


def test_json_error_record(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy(LoggingConfig={"LogFormat": "JSON"})
    out, body = call(aws, name, {"mode": "raise"})
    assert out["FunctionError"] == "Unhandled" and body["errorType"] == "ValueError"
    messages = read_logs(aws, f"/aws/lambda/{name}", lambda ms: any('"platform.report"' in m for m in ms))
    error = next(json.loads(m) for m in messages if '"log_level"' in m)
    assert (error["log_level"], error["errorType"], error["errorMessage"]) == ("ERROR", "ValueError", "bad order")
    assert error["requestId"] == out["ResponseMetadata"]["RequestId"] and error["stackTrace"]


def test_timeout_line_and_report(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy(Timeout=1)
    out, body = call(aws, name, {"mode": "sleep", "seconds": 5})
    request_id = out["ResponseMetadata"]["RequestId"]
    assert body["errorType"] == "Sandbox.Timedout"
    messages = read_logs(aws, f"/aws/lambda/{name}", lambda ms: any(m.startswith("REPORT ") for m in ms))
    timed_out = [m for m in messages if "Task timed out" in m]
    assert len(timed_out) == 1
    assert re.fullmatch(
        rf"\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{{3}}Z {request_id} Task timed out after \d+\.\d\d seconds\n",
        timed_out[0],
    )
    order = [m.split(" ")[0] for m in messages if m.startswith(("START", "END", "REPORT")) or "Task timed" in m]
    assert order[1:] == [timed_out[0].split(" ")[0], "END", "REPORT"]
    report = next(m for m in messages if m.startswith("REPORT "))
    assert "Status: timeout" in report
    assert int(re.search(r"Max Memory Used: (\d+) MB", report).group(1)) > 0  # type: ignore[union-attr]
