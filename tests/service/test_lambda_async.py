"""Event invocations: answered 202 at once, retried twice on a function error with the same request
id (Lambda waits ~1 then ~2 minutes; this server runs with --time-scale 60, so 1 s and 2 s)."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from serverproc import client_factory

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
APP = """
def handler(event, context):
    print("attempt of " + context.aws_request_id)
    if event.get("fail"):
        raise RuntimeError("always fails")
    return "ok"
"""


def client(url: str, service: str) -> Any:
    return client_factory(url)(service)


def messages(url: str, group: str, reports: int) -> list[str]:
    deadline = time.monotonic() + 60
    found: list[str] = []
    while time.monotonic() < deadline:
        try:
            found = [e["message"] for e in client(url, "logs").filter_log_events(logGroupName=group)["events"]]
        except ClientError:
            found = []
        if sum(m.startswith("REPORT ") for m in found) >= reports:
            return found
        time.sleep(0.1)
    raise AssertionError(f"expected {reports} REPORT lines in {found}")


def test_failed_event_invocations_are_retried_twice(server_factory: Callable[..., Any]) -> None:
    server = server_factory(time_scale=60.0)
    role = client(server.url, "iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:6]}",
                                                 AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    lam = client(server.url, "lambda")
    for name in ("fails", "works"):
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": buf.getvalue()})
    out = lam.invoke(FunctionName="fails", InvocationType="Event", Payload=b'{"fail": true}')
    assert out["StatusCode"] == 202
    request_id = out["ResponseMetadata"]["RequestId"]
    lines = messages(server.url, "/aws/lambda/fails", 3)
    assert lines.count(f"attempt of {request_id}\n") == 3
    starts = [m for m in lines if m.startswith("START ")]
    assert starts == [f"START RequestId: {request_id} Version: $LATEST\n"] * 3
    assert sum(bool(re.match(r"\[ERROR\] RuntimeError: always fails", m)) for m in lines) == 3

    ok = lam.invoke(FunctionName="works", InvocationType="Event", Payload=b"{}")
    assert ok["StatusCode"] == 202
    assert sum(m.startswith("START ") for m in messages(server.url, "/aws/lambda/works", 1)) == 1


HOLDS = """
import time
def handler(event, context):
    if event.get("hold"):
        time.sleep(1)
    return "ok"
"""


def test_event_invocations_take_reserved_concurrency_and_wait_when_throttled(
    server_factory: Callable[..., Any],
) -> None:
    """Recorded on AWS: an Event invocation holding a function's one reserved slot throttles a synchronous
    call (ReservedFunctionConcurrentInvocationLimitExceeded); a throttled event is queued, not refused."""
    server = server_factory(time_scale=60.0)
    role = client(server.url, "iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:6]}",
                                                 AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]  # fmt: skip
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", HOLDS)
    lam = client(server.url, "lambda")
    lam.create_function(FunctionName="one", Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": buf.getvalue()})  # fmt: skip
    lam.put_function_concurrency(FunctionName="one", ReservedConcurrentExecutions=1)
    events = [lam.invoke(FunctionName="one", InvocationType="Event", Payload=b'{"hold": true}') for _ in range(2)]
    assert [e["StatusCode"] for e in events] == [202, 202]
    deadline, answered, throttled = time.monotonic() + 30, 0, None
    while throttled is None and time.monotonic() < deadline:
        try:
            lam.invoke(FunctionName="one", Payload=b"{}")
            answered += 1
        except ClientError as exc:
            throttled = exc.response
    assert throttled is not None, "a synchronous call never met the event holding the slot"
    assert throttled["Error"]["Code"] == "TooManyRequestsException"
    assert throttled["Reason"] == "ReservedFunctionConcurrentInvocationLimitExceeded"
    lines = messages(server.url, "/aws/lambda/one", 2 + answered)
    for event in events:  # both ran, once each: the one that met a busy slot waited for it
        request_id = event["ResponseMetadata"]["RequestId"]
        assert lines.count(f"START RequestId: {request_id} Version: $LATEST\n") == 1


def test_a_queued_event_runs_the_code_of_an_update_made_while_it_waited(server_factory: Callable[..., Any]) -> None:
    server = server_factory(time_scale=60.0)
    role = client(server.url, "iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:6]}",
                                                 AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]  # fmt: skip

    def variant(n: int) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("app.py", HOLDS.replace('return "ok"', f'print("variant-{n}")\n    return "ok"'))
        return buf.getvalue()

    lam = client(server.url, "lambda")
    lam.create_function(FunctionName="q", Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": variant(1)})  # fmt: skip
    lam.put_function_concurrency(FunctionName="q", ReservedConcurrentExecutions=1)
    lam.invoke(FunctionName="q", InvocationType="Event", Payload=b'{"hold": true}')
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # until the first event holds the slot
        try:
            lam.invoke(FunctionName="q", Payload=b"{}")
        except ClientError:
            break
    queued = lam.invoke(FunctionName="q", InvocationType="Event", Payload=b"{}")["ResponseMetadata"]["RequestId"]
    lam.update_function_code(FunctionName="q", ZipFile=variant(2))
    lines = messages(server.url, "/aws/lambda/q", 1)
    deadline = time.monotonic() + 30
    while f"END RequestId: {queued}\n" not in lines and time.monotonic() < deadline:
        lines = messages(server.url, "/aws/lambda/q", 1)
    start = lines.index(f"START RequestId: {queued} Version: $LATEST\n")
    assert lines[start + 1] == "variant-2\n"
