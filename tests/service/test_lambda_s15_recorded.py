"""Entries of LocalStack's AWS-validated test_lambda.snapshot.json not compared before (session 15),
rebuilt as the tests make the calls, through boto3 against a real server. Values the snapshot's
transformers redact (ARNs' account and region, dates, sizes, revision ids) are not compared."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

ENV_HANDLER = "import os\ndef handler(event, context):\n    return {'Hello': os.environ['Hello']}\n"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "s15-recorded-role")


def _name() -> str:
    return f"rec15-{uuid.uuid4().hex[:10]}"


def test_function_state(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaBaseFeatures::test_function_state (2025-11): CreateFunction answers 201 Pending /
    Creating with LoggingConfig Text, SnapStart off, no LastUpdateStatus; GetFunction once active:
    Active, LastUpdateStatus Successful, no StateReason, Code RepositoryType S3."""
    lam = aws("lambda")
    name = _name()
    made = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                               Code={"ZipFile": zip_of(name="handler.py")})  # fmt: skip
    assert made["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert (made["State"], made["StateReason"], made["StateReasonCode"]) == (
        "Pending", "The function is being created.", "Creating")  # fmt: skip
    assert "LastUpdateStatus" not in made
    assert made["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{name}"}
    assert made["SnapStart"] == {"ApplyOn": "None", "OptimizationStatus": "Off"}
    assert (made["Version"], made["Timeout"], made["MemorySize"], made["EphemeralStorage"], made["Architectures"],
            made["TracingConfig"], made["PackageType"], made["Description"]) == (
        "$LATEST", 3, 128, {"Size": 512}, ["x86_64"], {"Mode": "PassThrough"}, "Zip", "")  # fmt: skip
    assert made["RuntimeVersionConfig"]["RuntimeVersionArn"].split(":")[:6] == [
        "arn", "aws", "lambda", "us-east-1", "", "runtime"]  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    got = lam.get_function(FunctionName=name)
    config = got["Configuration"]
    assert (config["State"], config["LastUpdateStatus"]) == ("Active", "Successful")
    assert not {"StateReason", "StateReasonCode", "LastUpdateStatusReason"} & set(config)
    assert got["Code"]["RepositoryType"] == "S3" and set(got["Code"]) == {"Location", "RepositoryType"}


def test_lambda_environment(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaFeatures::test_lambda_environment (2022-09): the variables in the create answer, the
    handler's os.environ, and GetFunctionConfiguration (Active, Successful)."""
    lam = aws("lambda")
    name = _name()
    made = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                               Timeout=30, Environment={"Variables": {"Hello": "World"}},
                               Code={"ZipFile": zip_of(ENV_HANDLER, "handler.py")})  # fmt: skip
    assert made["Environment"] == {"Variables": {"Hello": "World"}} and made["Timeout"] == 30
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    answer = lam.invoke(FunctionName=name, Payload=b"{}")
    assert (answer["StatusCode"], answer["ExecutedVersion"], json.load(answer["Payload"])) == (
        200, "$LATEST", {"Hello": "World"})  # fmt: skip
    assert "FunctionError" not in answer and "LogResult" not in answer
    config = lam.get_function_configuration(FunctionName=name)
    assert (config["Environment"], config["State"], config["LastUpdateStatus"]) == (
        {"Variables": {"Hello": "World"}}, "Active", "Successful")  # fmt: skip


def test_invocation_type_event(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaFeatures::test_invocation_type_event[python3.10] (2025-11): 202, an empty payload, no
    ExecutedVersion."""
    lam = aws("lambda")
    name = _name()
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                        Code={"ZipFile": zip_of(name="handler.py")})  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    answer = lam.invoke(FunctionName=name, InvocationType="Event", Payload=b"{}")
    assert (answer["StatusCode"], answer["ResponseMetadata"]["HTTPStatusCode"], answer["Payload"].read()) == (
        202, 202, b"")  # fmt: skip
    assert "ExecutedVersion" not in answer and "FunctionError" not in answer


REQID_HANDLER = ("import json\ndef handler(event, context):\n    if event.get('fail'):\n"
                 "        raise Exception('failing as asked')\n    return context.aws_request_id\n")  # fmt: skip


def test_request_id_async_invoke_with_retry(server_factory: Callable[..., Any]) -> None:
    """TestRequestIdHandling::test_request_id_async_invoke_with_retry (2025-11): an Event invocation
    failing with MaximumRetryAttempts 1 runs twice under the Invoke's request id: two REPORT lines
    naming it and END lines `END RequestId: <request-id>` twice. The retry's ~1 minute runs at
    --time-scale 60 (a second)."""
    server = server_factory(time_scale=60)
    lam, logs = server.client("lambda"), server.client("logs")
    role = lambda_role(lambda service, **kw: server.client(service, **kw), "s15-retry-role")
    name = _name()
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                        Code={"ZipFile": zip_of(REQID_HANDLER, "handler.py")})  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    lam.put_function_event_invoke_config(FunctionName=name, MaximumRetryAttempts=1)
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    result = lam.invoke(FunctionName=name, InvocationType="Event", Payload=json.dumps({"fail": 1}))
    assert (result["StatusCode"], result["Payload"].read()) == (202, b"")
    request_id = result["ResponseMetadata"]["RequestId"]

    def messages() -> list[str]:
        try:
            return [e["message"] for e in logs.filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]]
        except ClientError:  # the group is made with the first events
            return []

    deadline = time.monotonic() + 60
    while sum("REPORT" in m for m in messages()) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(3)  # 3 minutes of AWS's time: a third attempt (there must be none) would have run by then
    found = messages()
    reports = [m for m in found if "REPORT" in m]
    assert len(reports) == 2 and all(request_id in m for m in reports)
    assert [m.rstrip() for m in found if "END" in m] == [f"END RequestId: {request_id}"] * 2
