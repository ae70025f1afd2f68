"""Lambda's answers where AWS's recorded behaviour is particular: which checks come first, which reads
look nothing up, what a delete of something absent does."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

ACCOUNT = "000000000000"
ARN = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "recorded-role")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"rec-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": zip_of()})  # fmt: skip
    return name


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def test_deleting_latest_is_refused_before_the_function_is_looked_up(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.delete_function, FunctionName=f"{ARN}{missing}:$LATEST", Qualifier="$LATEST") == (
        "InvalidParameterValueException", "$LATEST version cannot be deleted without deleting the function.", 400)
    assert refused(lam.delete_function, FunctionName=missing, Qualifier="3") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{missing}", 404)


def test_deleting_a_version_that_is_not_there_is_idempotent(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    for _ in range(2):
        assert lam.delete_function(FunctionName=fn, Qualifier="1233")["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert lam.get_function(FunctionName=fn)["Configuration"]["FunctionName"] == fn  # the function stays
    lam.delete_function(FunctionName=fn)
    assert refused(lam.delete_function, FunctionName=fn, Qualifier="1233") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{fn}", 404)


def test_reading_an_invoke_config_looks_no_function_up(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.get_function_event_invoke_config, FunctionName=missing) == (
        "ResourceNotFoundException", f"The function {ARN}{missing}:$LATEST doesn't have an EventInvokeConfig", 404)
    assert refused(lam.get_function_event_invoke_config, FunctionName=fn, Qualifier="1221") == (
        "ResourceNotFoundException", f"The function {ARN}{fn}:1221 doesn't have an EventInvokeConfig", 404)
    # A write still needs the function.
    assert refused(lam.put_function_event_invoke_config, FunctionName=missing, MaximumRetryAttempts=1)[0] == (
        "ResourceNotFoundException")


def test_reading_a_url_config_of_a_missing_function(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    missing = f"none-{uuid.uuid4().hex[:8]}"
    assert refused(lam.get_function_url_config, FunctionName=missing) == (
        "ResourceNotFoundException", "The resource you requested does not exist.", 404)
    assert refused(lam.create_function_url_config, FunctionName=missing, AuthType="NONE") == (
        "ResourceNotFoundException", f"Function not found: {ARN}{missing}", 404)


def test_publish_with_another_code_sha(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    sha = lam.get_function(FunctionName=fn)["Configuration"]["CodeSha256"]
    assert refused(lam.publish_version, FunctionName=fn, CodeSha256="other") == (
        "InvalidParameterValueException",
        f"CodeSHA256 (other) is different from current CodeSHA256 in $LATEST ({sha}). Please try again with the "
        "CodeSHA256 in $LATEST.", 400)  # fmt: skip
    assert lam.list_versions_by_function(FunctionName=fn)["Versions"][-1]["Version"] == "$LATEST"
