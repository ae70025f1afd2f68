"""Entries of LocalStack's AWS-validated test_lambda.snapshot.json not compared before (session 15),
rebuilt as the tests make the calls, through boto3 against a real server. Values the snapshot's
transformers redact (ARNs' account and region, dates, sizes, revision ids) are not compared."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
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
