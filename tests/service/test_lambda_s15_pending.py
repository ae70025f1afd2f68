"""A version whose State is Pending is not invokable, through boto3 against a real server.

Expected: AWS's answer as its documentation quotes it (Lambda troubleshooting, "Lambda: Operation
cannot be performed ResourceConflictException": "The operation cannot be performed at this time. The
function is currently in the following state: Pending"); the Pending moment after UpdateFunctionCode
with Publish as recorded (test_lambda_api.snapshot.json, TestLambdaVersions::test_publish_with_update).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

PENDING = "The operation cannot be performed at this time. The function is currently in the following state: Pending"


def make_zip(value: int) -> bytes:
    return zip_of(f"def handler(event, context):\n    return {value}\n")


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "s15-pending")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"pend-{uuid.uuid4().hex[:10]}"
    lam = aws("lambda")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": make_zip(1)})  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    return name


@pytest.mark.parametrize("kind", ["RequestResponse", "Event", "DryRun"])
def test_a_pending_version_refuses_invoke_until_it_is_active(aws: Callable[..., Any], fn: str, kind: str) -> None:
    lam = aws("lambda")
    updated = lam.update_function_code(FunctionName=fn, ZipFile=make_zip(2), Publish=True)
    assert (updated["Version"], updated["State"]) == ("1", "Pending")
    with pytest.raises(ClientError) as refused:
        lam.invoke(FunctionName=fn, Qualifier="1", InvocationType=kind, Payload=b"{}")
    err = refused.value.response
    assert (err["Error"]["Code"], err["Error"]["Message"]) == ("ResourceConflictException", PENDING)
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 409 and err.get("Type") == "User"

    lam.get_waiter("published_version_active").wait(FunctionName=fn, Qualifier="1")
    answer = lam.invoke(FunctionName=fn, Qualifier="1")
    assert (answer["StatusCode"], answer["ExecutedVersion"], json.load(answer["Payload"])) == (200, "1", 2)


def test_latest_in_progress_stays_invokable(aws: Callable[..., Any], fn: str) -> None:
    """Docs (same page): during an update (LastUpdateStatus InProgress) the function can be invoked."""
    lam = aws("lambda")
    lam.update_function_code(FunctionName=fn, ZipFile=make_zip(3), Publish=True)
    assert lam.get_function(FunctionName=fn)["Configuration"]["LastUpdateStatus"] == "InProgress"
    answer = lam.invoke(FunctionName=fn)
    assert (answer["StatusCode"], answer["ExecutedVersion"], json.load(answer["Payload"])) == (200, "$LATEST", 3)
