"""Invoking Python handlers through boto3: results, the runtime's error documents, the environment,
warm and separate workers, timeouts, throttling, log lines in CloudWatch Logs, and boto3 calls
from inside a handler reaching onceflow's DynamoDB as the function's role."""

from __future__ import annotations

import base64
import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
DDB_POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": ["dynamodb:*", "lambda:InvokeFunction"], "Resource": "*"}],
}

APP = '''
import json, logging, os, sys, time

logger = logging.getLogger()
logger.setLevel(logging.INFO)
print("cold start")


class TransientOrderError(Exception):
    pass


class Silent(Exception):
    def __init__(self):
        pass


def handler(event, context):
    mode = event.get("mode")
    if mode == "raise":
        raise TransientOrderError("order o1 not ready")
    if mode == "silent":
        raise Silent()
    if mode == "sleep":
        time.sleep(event["seconds"])
        return {"pid": os.getpid()}
    if mode == "exit":
        sys.exit(2)
    if mode == "set":
        return {1, 2}
    if mode == "print":
        print("\\nmulti\\nline\\nstring\\nanother\\rline\\n")
        logger.info("logged %s", "here")
        return None
    if mode == "env":
        keys = ["AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
                "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME", "AWS_REGION", "AWS_DEFAULT_REGION",
                "_HANDLER", "LAMBDA_TASK_ROOT", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                "AWS_SESSION_TOKEN", "ORDERS_TABLE"]
        return {
            "env": {k: os.environ.get(k) for k in keys},
            "ctx": {
                "aws_request_id": context.aws_request_id,
                "function_name": context.function_name,
                "function_version": context.function_version,
                "invoked_function_arn": context.invoked_function_arn,
                "memory_limit_in_mb": context.memory_limit_in_mb,
                "log_group_name": context.log_group_name,
                "log_stream_name": context.log_stream_name,
                "remaining": context.get_remaining_time_in_millis(),
            },
            "cwd": os.getcwd(),
            "tz": time.strftime("%Z"),
            "pid": os.getpid(),
        }
    if mode == "ddb":
        import boto3
        db = boto3.client("dynamodb")
        db.put_item(TableName=event["table"], Item={"id": {"S": event["id"]}, "by": {"S": context.function_name}})
        who = boto3.client("sts").get_caller_identity()["Arn"]
        return {"item": db.get_item(TableName=event["table"], Key={"id": {"S": event["id"]}})["Item"], "who": who}
    if mode == "client_context":
        cc = context.client_context
        return {"custom": cc.custom, "env": cc.env, "app_title": cc.client.app_title}
    if mode == "nest":
        import boto3
        out = boto3.client("lambda").invoke(FunctionName=event["child"], Payload=b'{"from": "parent"}')
        return {"child": json.loads(out["Payload"].read()), "pid": os.getpid()}
    return {"pid": os.getpid(), "event": event}
'''


def make_zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"lambda-role-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="ddb", PolicyDocument=json.dumps(DDB_POLICY))
    return arn


@pytest.fixture(scope="module")
def deploy(aws: Callable[..., Any], role: str) -> Callable[..., str]:
    def make(files: dict[str, str] | None = None, handler: str = "app.handler", **kw: Any) -> str:
        name = f"inv-{uuid.uuid4().hex[:10]}"
        aws("lambda").create_function(
            FunctionName=name, Runtime="python3.12", Role=role, Handler=handler,
            Code={"ZipFile": make_zip(files or {"app.py": APP})}, **kw,
        )  # fmt: skip
        return name

    return make


@pytest.fixture(scope="module")
def fn(deploy: Callable[..., str]) -> str:
    return deploy(Environment={"Variables": {"ORDERS_TABLE": "orders"}}, MemorySize=256, Timeout=10)


def read_logs(aws: Callable[..., Any], name: str, reports: int) -> list[dict[str, Any]]:
    """The function's log events once `reports` invocations have shipped theirs (Lambda delivers logs
    asynchronously, onceflow too)."""
    deadline = time.monotonic() + 30
    events: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            events = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        except ClientError:
            events = []
        if sum(e["message"].startswith("REPORT ") for e in events) >= reports:
            return events
        time.sleep(0.02)
    raise AssertionError(f"expected {reports} REPORT lines, got {[e['message'] for e in events]}")


def call(aws: Callable[..., Any], name: str, event: Any = None, **kw: Any) -> tuple[dict[str, Any], Any]:
    out = aws("lambda").invoke(FunctionName=name, Payload=json.dumps(event or {}).encode(), **kw)
    return out, json.loads(out["Payload"].read() or b"null")


def test_result_and_request_ids(aws: Callable[..., Any], fn: str) -> None:
    out, body = call(aws, fn, {"mode": "env"})
    assert out["StatusCode"] == 200 and "FunctionError" not in out
    assert out["ExecutedVersion"] == "$LATEST"
    request_id = out["ResponseMetadata"]["RequestId"]
    assert body["ctx"]["aws_request_id"] == request_id
    assert body["ctx"]["invoked_function_arn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{fn}"
    assert body["ctx"]["memory_limit_in_mb"] == "256"
    assert body["ctx"]["function_version"] == "$LATEST"
    assert 0 < body["ctx"]["remaining"] <= 10_000


def test_environment(aws: Callable[..., Any], fn: str, endpoint: str) -> None:
    _, body = call(aws, fn, {"mode": "env"})
    env = body["env"]
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == fn
    assert env["AWS_LAMBDA_FUNCTION_VERSION"] == "$LATEST"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "256"
    assert env["AWS_LAMBDA_LOG_GROUP_NAME"] == f"/aws/lambda/{fn}"
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\[\$LATEST\][0-9a-f]{32}", env["AWS_LAMBDA_LOG_STREAM_NAME"])
    assert env["AWS_LAMBDA_LOG_STREAM_NAME"] == body["ctx"]["log_stream_name"]
    assert env["AWS_REGION"] == env["AWS_DEFAULT_REGION"] == "us-east-1"
    assert env["_HANDLER"] == "app.handler"
    assert env["LAMBDA_TASK_ROOT"] == body["cwd"]
    assert env["AWS_ENDPOINT_URL"] == endpoint
    assert env["AWS_ACCESS_KEY_ID"].startswith("ASIA") and env["AWS_SECRET_ACCESS_KEY"] and env["AWS_SESSION_TOKEN"]
    assert env["ORDERS_TABLE"] == "orders"
    assert body["tz"] == "UTC"


def test_handler_exception_document(aws: Callable[..., Any], fn: str) -> None:
    out, body = call(aws, fn, {"mode": "raise"})
    assert out["StatusCode"] == 200 and out["FunctionError"] == "Unhandled"
    assert list(body) == ["errorMessage", "errorType", "requestId", "stackTrace"]
    assert body["errorMessage"] == "order o1 not ready"
    assert body["errorType"] == "TransientOrderError"
    assert body["requestId"] == out["ResponseMetadata"]["RequestId"]
    assert body["stackTrace"] == [
        '  File "/var/task/app.py", line 21, in handler\n    raise TransientOrderError("order o1 not ready")\n'
    ]
    _, silent = call(aws, fn, {"mode": "silent"})
    assert (silent["errorMessage"], silent["errorType"]) == ("", "Silent")


def test_invoke_with_response_stream(aws: Callable[..., Any], fn: str) -> None:
    """A Python function's answer as one PayloadChunk and InvokeComplete; an error ends the stream."""
    lam = aws("lambda")
    out = lam.invoke_with_response_stream(FunctionName=fn, Payload=json.dumps({"n": 1}), LogType="Tail")
    assert out["StatusCode"] == 200 and out["ExecutedVersion"] == "$LATEST"
    events = list(out["EventStream"])
    assert [next(iter(e)) for e in events] == ["PayloadChunk", "InvokeComplete"]
    assert json.loads(events[0]["PayloadChunk"]["Payload"])["event"] == {"n": 1}
    assert "REPORT RequestId" in base64.b64decode(events[1]["InvokeComplete"]["LogResult"]).decode()
    failed = list(lam.invoke_with_response_stream(FunctionName=fn, Payload=b'{"mode": "raise"}')["EventStream"])
    assert failed == [{"InvokeComplete": {"ErrorCode": "TransientOrderError", "ErrorDetails": "order o1 not ready"}}]
    with pytest.raises(ClientError) as excinfo:
        lam.invoke_with_response_stream(FunctionName=f"{fn}-gone", Payload=b"{}")
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_raw_error_bytes_use_the_runtime_separators(aws: Callable[..., Any], fn: str) -> None:
    out = aws("lambda").invoke(FunctionName=fn, Payload=b'{"mode": "raise"}')
    raw = out["Payload"].read()
    assert raw.startswith(b'{"errorMessage": "order o1 not ready", "errorType": "TransientOrderError", "requestId": ')


def test_runtime_errors(aws: Callable[..., Any], deploy: Callable[..., str], fn: str) -> None:
    out, body = call(aws, deploy(handler="missing.handler"))
    assert out["FunctionError"] == "Unhandled"
    assert body == {
        "errorMessage": "Unable to import module 'missing': No module named 'missing'",
        "errorType": "Runtime.ImportModuleError",
        "requestId": "",  # reported by the init phase, before any request
        "stackTrace": [],
    }
    out, body = call(aws, deploy(handler="app.nothere"))
    assert (body["errorType"], body["errorMessage"], body["requestId"]) == (
        "Runtime.HandlerNotFound", "Handler 'nothere' missing on module 'app'", out["ResponseMetadata"]["RequestId"]
    )  # fmt: skip
    out, body = call(aws, fn, {"mode": "set"})
    assert out["FunctionError"] == "Unhandled"
    assert (body["errorType"], body["errorMessage"]) == (
        "Runtime.MarshalError", "Unable to marshal response: Object of type set is not JSON serializable"
    )  # fmt: skip
    out, body = call(aws, fn, {"mode": "exit"})
    request_id = out["ResponseMetadata"]["RequestId"]
    assert out["FunctionError"] == "Unhandled"
    assert body == {
        "errorType": "Runtime.ExitError",
        "errorMessage": f"RequestId: {request_id} Error: Runtime exited with error: exit status 2",
    }


@pytest.mark.parametrize("app", ["import sys\ndef handler(event, context):\n    sys.exit(0)\n",
                                 "import sys\nsys.exit(0)\n"])  # fmt: skip
def test_a_clean_exit_gives_no_reason(aws: Callable[..., Any], deploy: Callable[..., str], app: str) -> None:
    """As recorded: a handler or module calling sys.exit(0) ends the runtime "without providing a reason"."""
    out, body = call(aws, deploy({"app.py": app}))
    assert out["FunctionError"] == "Unhandled"
    assert body == {
        "errorType": "Runtime.ExitError",
        "errorMessage": f"RequestId: {out['ResponseMetadata']['RequestId']} Error: Runtime exited without providing "
        "a reason",
    }


def test_a_failed_init_logs_the_runtime_warning_before_the_error(
    aws: Callable[..., Any], deploy: Callable[..., str]
) -> None:
    """As AWS's Python runtime does (lambda_literals; AWS's logs): a [WARNING] record with no request id."""
    out, _ = call(aws, deploy(handler="missing.handler"), LogType="Tail")
    lines = base64.b64decode(out["LogResult"]).decode().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[ERROR] Runtime.ImportModuleError: "))
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    warning = (rf"\[WARNING\]\t{stamp}\t\tLAMBDA_WARNING: Unhandled exception\. The most likely cause is an issue in "
               r"the function code\. .* For more information, see "
               r"https://docs\.aws\.amazon\.com/lambda/latest/dg/runtimes-update\.html")  # fmt: skip
    assert re.fullmatch(warning, lines[at - 1])


def test_handler_without_a_dot_fails_at_invoke(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    _, body = call(aws, deploy(handler="app"))
    assert (body["errorType"], body["errorMessage"]) == (
        "Runtime.MalformedHandlerName", "Bad handler 'app': not enough values to unpack (expected 2, got 1)"
    )  # fmt: skip


def test_timeout_kills_the_worker(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy(Timeout=1)
    out, body = call(aws, name, {"mode": "sleep", "seconds": 30})
    request_id = out["ResponseMetadata"]["RequestId"]
    assert out["FunctionError"] == "Unhandled"
    assert body["errorType"] == "Sandbox.Timedout"
    assert re.fullmatch(rf"RequestId: {request_id} Error: Task timed out after 1\.\d\d seconds", body["errorMessage"])
    _, again = call(aws, name, {"mode": "sleep", "seconds": 0})  # a fresh worker serves the next call
    assert "pid" in again


def test_warm_reuse_and_retire_on_update(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy()
    first = call(aws, name)[1]["pid"]
    assert call(aws, name)[1]["pid"] == first
    aws("lambda").update_function_code(FunctionName=name, ZipFile=make_zip({"app.py": APP + "\nNEW = 1\n"}))
    assert call(aws, name)[1]["pid"] != first
    second = call(aws, name)[1]["pid"]
    aws("lambda").update_function_configuration(FunctionName=name, Timeout=5)
    assert call(aws, name)[1]["pid"] != second


def test_concurrent_invocations_get_separate_workers(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy(Timeout=10)
    # Each call holds its worker for 3 s, so the four overlap even when a loaded machine is slow to
    # send them (at 0.5 s, one finished before the last was sent and its worker was reused).
    with ThreadPoolExecutor(4) as pool:
        pids = list(pool.map(lambda _: call(aws, name, {"mode": "sleep", "seconds": 3})[1]["pid"], range(4)))
    assert len(set(pids)) == 4


def test_reserved_concurrency_throttles(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy()
    aws("lambda").put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)
    with pytest.raises(ClientError) as err:
        call(aws, name)
    assert err.value.response["Error"]["Code"] == "TooManyRequestsException"
    assert err.value.response["Error"]["Message"] == "Rate Exceeded."
    assert err.value.response["Reason"] == "ReservedFunctionConcurrentInvocationLimitExceeded"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 429


def test_invocation_types(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    assert lam.invoke(FunctionName=fn, InvocationType="DryRun")["StatusCode"] == 204
    event = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b'{"mode": "print"}')
    assert event["StatusCode"] == 202
    assert event["Payload"].read() == b""


def test_log_lines_in_cloudwatch(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy()
    out, body = call(aws, name, {"mode": "print"})
    assert body is None
    request_id = out["ResponseMetadata"]["RequestId"]
    call(aws, name, {"mode": "raise"})
    events = read_logs(aws, name, 2)
    messages = [e["message"] for e in events]
    assert messages[0].startswith("INIT_START Runtime Version: python:3.12")
    assert messages[1:8] == [
        "cold start\n",
        f"START RequestId: {request_id} Version: $LATEST\n",
        "multi\n", "line\n", "string\n", "another\rline\n",
        messages[7],
    ]  # fmt: skip
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    assert re.fullmatch(rf"\[INFO\]\t{stamp}\t{request_id}\tlogged here\n", messages[7])
    assert messages[8] == f"END RequestId: {request_id}\n"
    assert re.fullmatch(
        rf"REPORT RequestId: {request_id}\tDuration: \d+\.\d\d ms\tBilled Duration: \d+ ms\tMemory Size: 128 MB\t"
        r"Max Memory Used: \d+ MB\tInit Duration: \d+\.\d\d ms\t\n",
        messages[9],
    )
    assert messages[10].startswith("START RequestId: ")
    assert messages[11] == (
        "[ERROR] TransientOrderError: order o1 not ready\nTraceback (most recent call last):\n"
        '\u00a0\u00a0File "/var/task/app.py", line 21, in handler\n'
        '\u00a0\u00a0\u00a0\u00a0raise TransientOrderError("order o1 not ready")'
    )
    assert "Init Duration" not in messages[13]
    streams = {e["logStreamName"] for e in events}
    assert len(streams) == 1
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\[\$LATEST\][0-9a-f]{32}", streams.pop())


def test_log_type_tail(aws: Callable[..., Any], fn: str) -> None:
    out, _ = call(aws, fn, {"mode": "print"}, LogType="Tail")
    tail = base64.b64decode(out["LogResult"]).decode()
    request_id = out["ResponseMetadata"]["RequestId"]
    assert f"START RequestId: {request_id} Version: $LATEST\n" in tail
    assert "another\rline\n" in tail
    assert tail.endswith("\n") and f"REPORT RequestId: {request_id}\t" in tail


def test_payload_limits_and_bad_json(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    with pytest.raises(ClientError) as err:
        lam.invoke(FunctionName=fn, Payload=b'"' + b"x" * 6_291_456 + b'"')
    assert err.value.response["Error"]["Code"] == "RequestEntityTooLargeException"
    assert err.value.response["Error"]["Message"] == (
        "Request must be smaller than 6291456 bytes for the InvokeFunction operation"
    )
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 413
    assert sorted(err.value.response) == ["Error", "ResponseMetadata"]  # the words under Message, no Type
    with pytest.raises(ClientError) as err:
        lam.invoke(FunctionName=fn, Payload=b"{not json")
    assert err.value.response["Error"]["Code"] == "InvalidRequestContentException"


def test_handler_calls_dynamodb_as_its_role(aws: Callable[..., Any], fn: str) -> None:
    ddb = aws("dynamodb")
    table = f"orders-{uuid.uuid4().hex[:8]}"
    ddb.create_table(
        TableName=table, AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST",
    )  # fmt: skip
    out, body = call(aws, fn, {"mode": "ddb", "table": table, "id": "o1"})
    assert "FunctionError" not in out, body
    assert body["item"] == {"id": {"S": "o1"}, "by": {"S": fn}}
    assert re.fullmatch(rf"arn:aws:sts::{ACCOUNT}:assumed-role/lambda-role-[0-9a-f]{{8}}/{fn}", body["who"])
    assert ddb.get_item(TableName=table, Key={"id": {"S": "o1"}})["Item"]["by"] == {"S": fn}


def test_event_invocation_runs(aws: Callable[..., Any], deploy: Callable[..., str]) -> None:
    name = deploy()
    aws("lambda").invoke(FunctionName=name, InvocationType="Event", Payload=b'{"mode": "print"}')
    messages = [e["message"] for e in read_logs(aws, name, 1)]
    assert "multi\n" in messages


def test_handler_invokes_another_function(aws: Callable[..., Any], fn: str, deploy: Callable[..., str]) -> None:
    child = deploy()
    out, body = call(aws, fn, {"mode": "nest", "child": child})
    assert "FunctionError" not in out, body
    assert body["child"]["event"] == {"from": "parent"}
    assert body["child"]["pid"] != body["pid"]


def test_client_context(aws: Callable[..., Any], fn: str) -> None:
    value = {"custom": {"k": "v"}, "env": {"e": "1"}, "client": {"app_title": "shop"}}
    encoded = base64.b64encode(json.dumps(value).encode()).decode()
    _, body = call(aws, fn, {"mode": "client_context"}, ClientContext=encoded)
    assert body == {"custom": {"k": "v"}, "env": {"e": "1"}, "app_title": "shop"}
