"""Region names as the botocore model's Lambda patterns write them (FunctionName, FunctionArn, ...:
`(eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\\d{1}`, the European Sovereign Cloud's `eusc-` prefix
included), through boto3 against a real server: a function ARN and a function URL's host in such a region.
"""

from __future__ import annotations

import urllib.request
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, zip_of

EUSC = "eusc-de-east-1"


def make_zip() -> bytes:
    return zip_of("def handler(event, context):\n    return {'statusCode': 200, 'body': 'eusc'}\n")


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "s15-regions")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"eusc-{uuid.uuid4().hex[:10]}"
    lam = aws("lambda", region=EUSC)
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": make_zip()})  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    return name


def test_an_eusc_function_arn_names_the_function(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda", region=EUSC)
    arn = lam.get_function_configuration(FunctionName=fn)["FunctionArn"]
    assert lam.get_function_configuration(FunctionName=arn)["FunctionName"] == fn
    assert lam.get_function_configuration(FunctionName=f"{EUSC}:{arn.split(':')[4]}:function:{fn}")["FunctionArn"] \
        == arn
    # From another region the ARN is another region's function (errors.other_region's wording, recorded).
    with pytest.raises(ClientError) as elsewhere:
        aws("lambda").get_function_configuration(FunctionName=arn)
    assert elsewhere.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert elsewhere.value.response["Error"]["Message"] == (
        f"Functions from '{EUSC}' are not reachable in this region ('us-east-1')")


def test_an_eusc_function_url_is_served_at_its_host(aws: Callable[..., Any], endpoint: str, fn: str) -> None:
    lam = aws("lambda", region=EUSC)
    url = lam.create_function_url_config(FunctionName=fn, AuthType="NONE")["FunctionUrl"]
    for statement, action, extra in (("url", "lambda:InvokeFunctionUrl", {"FunctionUrlAuthType": "NONE"}),
                                     ("invoke", "lambda:InvokeFunction", {"InvokedViaFunctionUrl": True})):
        lam.add_permission(FunctionName=fn, StatementId=statement, Action=action, Principal="*", **extra)
    host = urlsplit(url).netloc
    assert host.endswith(f".lambda-url.{EUSC}.localhost") or f".lambda-url.{EUSC}.localhost:" in host
    request = urllib.request.Request(endpoint + "/", headers={"Host": host})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert (response.status, response.read()) == (200, b"eusc")
