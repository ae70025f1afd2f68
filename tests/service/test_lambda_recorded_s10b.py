"""Lambda's asynchronous answers as AWS recorded them in LocalStack's aws-validated
test_lambda_destinations (every entry of its snapshot): EventInvokeConfig answers, the records sent
to an SQS / EventBridge destination, the dead-letter queue's message and attributes, and the error
payload and log of a failed invocation. The server runs at --time-scale 60: Lambda's 1 and 2 minute
retry waits take 1 and 2 seconds."""

from __future__ import annotations

import base64
import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from lambda_setup import admin_role

from serverproc import ServerProcess, client_factory

ACCOUNT, REGION = "000000000000", "us-east-1"
FN_ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:"
# The recordings' handler: prints, logs, raises when asked, else answers the event and its context.
HANDLER = '''import logging
logger = logging.getLogger()
logger.setLevel(logging.INFO)


def handler(event, context):
    print("Lambda log message - print function")
    logger.info("Lambda log message - logging module")
    if event.get("raise_error"):
        raise Exception("Test exception (this is intentional)")
    return {"event": event, "context": {
        "invoked_function_arn": context.invoked_function_arn,
        "function_version": context.function_version,
        "function_name": context.function_name,
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "aws_request_id": context.aws_request_id,
        "log_group_name": context.log_group_name,
        "log_stream_name": context.log_stream_name,
        "client_context": context.client_context}}
'''
RAISE_LINE = 10  # the line of HANDLER's raise, as its stackTrace names it
ERROR_DOC_KEYS = ["errorMessage", "errorType", "requestId", "stackTrace"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("data"), time_scale=60).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def aws(server: ServerProcess) -> Callable[..., Any]:
    return client_factory(server.url)  # type: ignore[no-any-return]  # boto3 client factory


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    """An administrator role, as the recordings used (lambda_su_role)."""
    return admin_role(aws, "rec10b")


def zipped(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("handler.py", text)
    return buf.getvalue()


def create(aws: Callable[..., Any], role: str, runtime: str = "python3.9", code: str = HANDLER,
           **extra: Any) -> dict[str, Any]:  # fmt: skip
    """As the recordings' create_lambda_function fixture: an empty Environment, a 30 s timeout."""
    name = f"rec10b-{uuid.uuid4().hex[:10]}"
    params = {"Timeout": 30, "Environment": {"Variables": {}}, **extra}
    answer = aws("lambda").create_function(
        FunctionName=name, Runtime=runtime, Role=role, Handler="handler.handler", Code={"ZipFile": zipped(code)},
        **params,
    )  # fmt: skip
    return dict(answer)


def queue(aws: Callable[..., Any]) -> tuple[str, str]:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=f"rec10b-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    return url, sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def received(aws: Callable[..., Any], url: str, count: int = 1) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while len(got) < count and time.monotonic() < deadline:
        got += aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=1, MaxNumberOfMessages=10,
                                          MessageAttributeNames=["All"]).get("Messages", [])  # fmt: skip
    assert len(got) == count, got
    return got


def stack_line(text: str = 'raise Exception("Test exception (this is intentional)")', line: int = RAISE_LINE) -> str:
    return f'  File "/var/task/handler.py", line {line}, in handler\n    {text}\n'


def test_success_record_and_the_put_answer(aws: Callable[..., Any], role: str) -> None:
    """test_assess_lambda_destination_invocation[payload0]: the answer names $LATEST and echoes
    MaximumRetryAttempts; the Success record carries the response and its executed version."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    url, arn = queue(aws)
    put = lam.put_function_event_invoke_config(
        FunctionName=name, MaximumRetryAttempts=0,
        DestinationConfig={"OnSuccess": {"Destination": arn}, "OnFailure": {"Destination": arn}},
    )  # fmt: skip
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 200
    put.pop("ResponseMetadata")
    assert sorted(put) == ["DestinationConfig", "FunctionArn", "LastModified", "MaximumRetryAttempts"]
    assert put["FunctionArn"] == f"{FN_ARN}{name}:$LATEST" and put["MaximumRetryAttempts"] == 0
    assert put["DestinationConfig"] == {"OnFailure": {"Destination": arn}, "OnSuccess": {"Destination": arn}}
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=b"{}")
    [message] = received(aws, url)
    assert sorted(message) == ["Body", "MD5OfBody", "MessageId", "ReceiptHandle"]
    body = json.loads(message["Body"])
    request_id = body["requestContext"]["requestId"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body.pop("timestamp"))
    stream = body["responsePayload"]["context"].pop("log_stream_name")
    assert re.fullmatch(r"\d{4}/\d\d/\d\d/\[\$LATEST\][0-9a-f]{32}", stream)
    assert body == {
        "version": "1.0",
        "requestContext": {"requestId": request_id, "functionArn": f"{FN_ARN}{name}:$LATEST",
                           "condition": "Success", "approximateInvokeCount": 1},
        "requestPayload": {},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST"},
        "responsePayload": {"event": {}, "context": {
            "invoked_function_arn": f"{FN_ARN}{name}", "function_version": "$LATEST", "function_name": name,
            "memory_limit_in_mb": "128", "aws_request_id": request_id, "log_group_name": f"/aws/lambda/{name}",
            "client_context": None}},
    }  # fmt: skip
    assert list(body) == ["version", "requestContext", "requestPayload", "responseContext", "responsePayload"]


def failure_body(message: dict[str, Any], name: str, count: int, condition: str = "RetriesExhausted") -> None:
    body = json.loads(message["Body"])
    request_id = body["requestContext"]["requestId"]
    body.pop("timestamp")
    assert body == {
        "version": "1.0",
        "requestContext": {"requestId": request_id, "functionArn": f"{FN_ARN}{name}:$LATEST",
                           "condition": condition, "approximateInvokeCount": count},
        "requestPayload": {"raise_error": 1},
        "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
        "responsePayload": {"errorMessage": "Test exception (this is intentional)", "errorType": "Exception",
                            "requestId": request_id, "stackTrace": [stack_line()]},
    }  # fmt: skip
    assert list(body["responsePayload"]) == ERROR_DOC_KEYS


def test_failure_record_without_retries(aws: Callable[..., Any], role: str) -> None:
    """test_assess_lambda_destination_invocation[payload1]: MaximumRetryAttempts 0, one attempt."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    url, arn = queue(aws)
    lam.put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=0, DestinationConfig={
        "OnSuccess": {"Destination": arn}, "OnFailure": {"Destination": arn}})  # fmt: skip
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"raise_error": 1}))
    [message] = received(aws, url)
    failure_body(message, name, 1)


def test_default_retries_make_three_attempts(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_destination_default_retries: an answer without MaximumRetryAttempts when none was
    given, and the failure record after the two default retries (approximateInvokeCount 3)."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    url, arn = queue(aws)
    put = lam.put_function_event_invoke_config(FunctionName=name, DestinationConfig={
        "OnSuccess": {"Destination": arn}, "OnFailure": {"Destination": arn}})  # fmt: skip
    put.pop("ResponseMetadata")
    assert sorted(put) == ["DestinationConfig", "FunctionArn", "LastModified"]
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"raise_error": 1}))
    [message] = received(aws, url)
    failure_body(message, name, 3)


def test_dead_letter_queue_message_and_a_failed_invocations_log(aws: Callable[..., Any], role: str) -> None:
    """test_dead_letter_queue (python3.9): the event as it was sent, with RequestID / ErrorCode /
    ErrorMessage; DeadLetterConfig {} leaves the queue configured; the synchronous error's log, with
    the runtime's LAMBDA_WARNING line and its [ERROR] event running on into END."""
    lam = aws("lambda")
    url, arn = queue(aws)
    created = create(aws, role, DeadLetterConfig={"TargetArn": arn})
    name = created["FunctionName"]
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert created["DeadLetterConfig"] == {"TargetArn": arn} and created["Environment"] == {"Variables": {}}
    assert (created["State"], created["StateReasonCode"]) == ("Pending", "Creating")
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"raise_error": 1}))
    [message] = received(aws, url)
    assert json.loads(message["Body"]) == {"raise_error": 1}
    assert message["MD5OfBody"] == "ba08269cbd0ce515889bfba6593731e1"  # recorded: the body as the caller sent it
    attributes = message["MessageAttributes"]
    assert re.fullmatch(r"[0-9a-f-]{36}", attributes.pop("RequestID")["StringValue"])
    assert attributes == {"ErrorCode": {"DataType": "Number", "StringValue": "200"},
                          "ErrorMessage": {"DataType": "String",
                                           "StringValue": "Test exception (this is intentional)"}}  # fmt: skip

    updated = lam.update_function_configuration(FunctionName=name, DeadLetterConfig={})
    assert updated["DeadLetterConfig"] == {"TargetArn": arn}
    assert updated["RevisionId"] != created["RevisionId"]
    assert lam.get_function_configuration(FunctionName=name)["DeadLetterConfig"] == {"TargetArn": arn}

    out = lam.invoke(FunctionName=name, Payload=json.dumps({"raise_error": 1}), LogType="Tail")
    payload = json.loads(out["Payload"].read())
    request_id = out["ResponseMetadata"]["RequestId"]
    assert (out["StatusCode"], out["FunctionError"], out["ExecutedVersion"]) == (200, "Unhandled", "$LATEST")
    assert payload == {"errorMessage": "Test exception (this is intentional)", "errorType": "Exception",
                       "requestId": request_id, "stackTrace": [stack_line()]}  # fmt: skip
    lines = [line for line in base64.b64decode(out["LogResult"]).decode().splitlines()
             if not line.startswith("REPORT")]  # fmt: skip
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    assert lines[:3] == [f"START RequestId: {request_id} Version: $LATEST", "Lambda log message - print function",
                         lines[2]]  # fmt: skip
    assert re.fullmatch(rf"\[INFO\]\t{stamp}\t{request_id}\tLambda log message - logging module", lines[2])
    assert lines[3].startswith("LAMBDA_WARNING: Unhandled exception. The most likely cause is an issue in the "
                               "function code. However, in rare cases, a Lambda runtime update")  # fmt: skip
    assert lines[3].endswith("see https://docs.aws.amazon.com/lambda/latest/dg/runtimes-update.html")
    assert lines[4:] == [
        "[ERROR] Exception: Test exception (this is intentional)",
        "Traceback (most recent call last):",
        f'\u00a0\u00a0File "/var/task/handler.py", line {RAISE_LINE}, in handler',
        f'\u00a0\u00a0\u00a0\u00a0raise Exception("Test exception (this is intentional)")END RequestId: {request_id}',
    ]


def test_the_runtime_interface_client_warns_at_init_only(aws: Callable[..., Any], role: str) -> None:
    """python3.12 and later run AWS's runtime interface client, whose failed invocation logs the
    [ERROR] event with no LAMBDA_WARNING before it (awslambdaric bootstrap.handle_event_request)."""
    name = create(aws, role, runtime="python3.12")["FunctionName"]
    out = aws("lambda").invoke(FunctionName=name, Payload=json.dumps({"raise_error": 1}), LogType="Tail")
    lines = base64.b64decode(out["LogResult"]).decode().splitlines()
    assert not any("LAMBDA_WARNING" in line for line in lines)
    at = lines.index("[ERROR] Exception: Test exception (this is intentional)")
    assert lines[at + 3].endswith(f'")END RequestId: {out["ResponseMetadata"]["RequestId"]}')


def test_retries_keep_the_request_id_and_count_the_attempts(aws: Callable[..., Any], role: str) -> None:
    """test_retries: MaximumRetryAttempts 2, OnFailure only: three runs of one request id, one log
    stream, then the record (approximateInvokeCount 3) once in the queue."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    url, arn = queue(aws)
    lam.put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=2,
                                         DestinationConfig={"OnFailure": {"Destination": arn}})  # fmt: skip
    assert lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"raise_error": 1}))[
        "StatusCode"] == 202  # fmt: skip
    [message] = received(aws, url)
    failure_body(message, name, 3)
    request_id = json.loads(message["Body"])["requestContext"]["requestId"]
    logs = aws("logs")
    starts = [e["message"] for e in logs.filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
              if e["message"].startswith("START ")]  # fmt: skip
    assert starts == [f"START RequestId: {request_id} Version: $LATEST\n"] * 3
    assert len(logs.describe_log_streams(logGroupName=f"/aws/lambda/{name}")["logStreams"]) == 1


def test_eventbridge_destination_event(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaDestinationEventbridge: the record reaches a rule on the bus as a `lambda` event,
    its detail the record (docs: "Lambda Function Invocation Result - Success")."""
    lam, events = aws("lambda"), aws("events")
    name = create(aws, role)["FunctionName"]
    url, queue_arn = queue(aws)
    bus = events.create_event_bus(Name=f"rec10b-{uuid.uuid4().hex[:8]}")["EventBusArn"]
    rule = f"rec10b-{uuid.uuid4().hex[:8]}"
    events.put_rule(Name=rule, EventBusName=bus, EventPattern=json.dumps({"source": ["lambda"]}))
    aws("sqs").set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"},
                                                "Action": "sqs:SendMessage", "Resource": queue_arn}]})})  # fmt: skip
    events.put_targets(Rule=rule, EventBusName=bus, Targets=[{"Id": "q", "Arn": queue_arn}])
    lam.put_function_event_invoke_config(FunctionName=name, DestinationConfig={"OnSuccess": {"Destination": bus}})
    lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"hello": "world", "val": 5}))
    [message] = received(aws, url)
    event = json.loads(message["Body"])
    assert (event["source"], event["detail-type"]) == ("lambda", "Lambda Function Invocation Result - Success")
    assert (event["account"], event["region"]) == (ACCOUNT, REGION)
    detail = event["detail"]
    assert detail["requestContext"]["condition"] == "Success"
    assert detail["requestPayload"] == {"hello": "world", "val": 5}
    assert detail["responsePayload"]["event"] == {"hello": "world", "val": 5}


INTROSPECT = """import os
def handler(event, context):
    return {"ctx": {
        "aws_request_id": context.aws_request_id, "function_name": context.function_name,
        "function_version": context.function_version, "invoked_function_arn": context.invoked_function_arn,
        "log_group_name": context.log_group_name, "log_stream_name": context.log_stream_name,
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "remaining_time_in_millis": context.get_remaining_time_in_millis()},
        "environment": dict(os.environ), "packages": []}
"""
# What test_lambda_common's introspection recorded for python3.9 (2023), less LD_LIBRARY_PATH (AWS's
# /lib64:/usr/lib64:... would steer the host's loader) and with PWD / LAMBDA_TASK_ROOT the sandbox's copy.
RECORDED_PY39_ENV = {
    "AWS_ACCESS_KEY_ID", "AWS_DEFAULT_REGION", "AWS_EXECUTION_ENV", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME", "AWS_LAMBDA_RUNTIME_API", "AWS_REGION",
    "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_XRAY_CONTEXT_MISSING", "AWS_XRAY_DAEMON_ADDRESS",
    "LAMBDA_RUNTIME_DIR", "LAMBDA_TASK_ROOT", "LANG", "PATH", "PWD", "PYTHONPATH", "SHLVL", "TEST_KEY", "TZ",
    "_AWS_XRAY_DAEMON_ADDRESS", "_AWS_XRAY_DAEMON_PORT", "_HANDLER", "_X_AMZN_TRACE_ID",
}  # fmt: skip


@pytest.mark.parametrize("qualifier", ["", ":$LATEST"])
def test_introspection_environment_and_context(aws: Callable[..., Any], role: str, qualifier: str) -> None:
    """test_lambda_common test_introspection_invoke[python3.9]: the context as the handler sees it
    (the ARN as invoked) and every variable Lambda set, with the values that are not per call."""
    created = create(aws, role, code=INTROSPECT, MemorySize=1024, Timeout=3,
                     Environment={"Variables": {"TEST_KEY": "TEST_VAL"}})  # fmt: skip
    name = created["FunctionName"]
    assert created["Environment"] == {"Variables": {"TEST_KEY": "TEST_VAL"}} and created["MemorySize"] == 1024
    out = aws("lambda").invoke(FunctionName=name + qualifier)
    body = json.loads(out["Payload"].read())
    ctx, env = body["ctx"], body["environment"]
    assert 0 < ctx.pop("remaining_time_in_millis") <= 3000
    stream = ctx.pop("log_stream_name")
    assert ctx == {"aws_request_id": out["ResponseMetadata"]["RequestId"], "function_name": name,
                   "function_version": "$LATEST", "invoked_function_arn": f"{FN_ARN}{name}{qualifier}",
                   "log_group_name": f"/aws/lambda/{name}", "memory_limit_in_mb": "1024"}  # fmt: skip
    assert RECORDED_PY39_ENV <= set(env), RECORDED_PY39_ENV - set(env)
    assert env["AWS_LAMBDA_LOG_STREAM_NAME"] == stream
    assert {key: env[key] for key in (
        "AWS_DEFAULT_REGION", "AWS_EXECUTION_ENV", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_VERSION", "AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_LAMBDA_LOG_GROUP_NAME",
        "AWS_LAMBDA_RUNTIME_API", "AWS_REGION", "AWS_XRAY_CONTEXT_MISSING", "AWS_XRAY_DAEMON_ADDRESS",
        "LAMBDA_RUNTIME_DIR", "LANG", "PYTHONPATH", "SHLVL", "TEST_KEY", "TZ", "_AWS_XRAY_DAEMON_ADDRESS",
        "_AWS_XRAY_DAEMON_PORT", "_HANDLER")} == {
        "AWS_DEFAULT_REGION": REGION, "AWS_EXECUTION_ENV": "AWS_Lambda_python3.9",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024", "AWS_LAMBDA_FUNCTION_NAME": name,
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
        "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}", "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001",
        "AWS_REGION": REGION, "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR", "AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129:2000",
        "LAMBDA_RUNTIME_DIR": "/var/runtime", "LANG": "en_US.UTF-8", "PYTHONPATH": "/var/runtime", "SHLVL": "0",
        "TEST_KEY": "TEST_VAL", "TZ": ":UTC", "_AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129",
        "_AWS_XRAY_DAEMON_PORT": "2000", "_HANDLER": "handler.handler",
    }  # fmt: skip
    assert env["PATH"].endswith(":/usr/local/bin:/usr/bin/:/bin:/opt/bin")
    assert env["PWD"] == env["LAMBDA_TASK_ROOT"]
