"""Lambda's answers as AWS recorded them in LocalStack's aws-validated test_lambda_api.py snapshot
(tests/aws/services/lambda_/test_lambda_api.snapshot.json), the entries earlier sessions had not
encoded; each test names the entry it holds. Compared after LocalStack's normalisations: ARNs,
request ids, dates and sizes are not compared, the rest is."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

ARN = "arn:aws:lambda:us-east-1:000000000000:function:"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "rec14")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": zip_of()})  # fmt: skip
    return name


def refused(call: Callable[..., Any], **params: Any) -> dict[str, Any]:
    """The error answer as the recordings keep it: Error, the extra members, the status."""
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    response = dict(excinfo.value.response)
    response["Status"] = response.pop("ResponseMetadata")["HTTPStatusCode"]
    return response


def test_reserved_concurrency_refuses_a_latest_qualified_arn(aws: Callable[..., Any], fn: str) -> None:
    """TestLambdaReservedConcurrency test_function_concurrency_exceptions, put_function_concurrency_with_
    qualified_arn: the ARN GetFunctionConfiguration answers for Qualifier $LATEST is refused."""
    lam = aws("lambda")
    qualified = lam.get_function_configuration(FunctionName=fn, Qualifier="$LATEST")["FunctionArn"]
    assert qualified == f"{ARN}{fn}:$LATEST"
    message = ("This operation is permitted on Lambda functions only. Aliases and versions do not support this "
               "operation. Please specify either a function name or an unqualified function ARN.")
    assert refused(lam.put_function_concurrency, FunctionName=qualified, ReservedConcurrentExecutions=0) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User", "message": message,
        "Status": 400}
    assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName=fn)
