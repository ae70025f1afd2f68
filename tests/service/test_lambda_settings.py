"""Provisioned concurrency (its workers started ahead), the runtime management configuration and
the recursive loop setting, through boto3."""

from __future__ import annotations

import base64
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import lambda_role, provisioning_settled, zip_of

ACCOUNT, REGION = "000000000000", "us-east-1"


def make_zip() -> bytes:
    return zip_of("def handler(event, context):\n    return 'ok'\n")


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "settings-role")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"set-{uuid.uuid4().hex[:10]}"
    lam = aws("lambda")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": make_zip()})  # fmt: skip
    lam.publish_version(FunctionName=name)
    lam.create_alias(FunctionName=name, Name="live", FunctionVersion="1")
    return name


def test_provisioned_concurrency(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    with pytest.raises(ClientError) as excinfo:
        lam.get_provisioned_concurrency_config(FunctionName=fn, Qualifier="live")
    assert excinfo.value.response["Error"] == {
        "Code": "ProvisionedConcurrencyConfigNotFoundException",
        "Message": "No Provisioned Concurrency Config found for this function"}  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="$LATEST", ProvisionedConcurrentExecutions=1)
    assert excinfo.value.response["Error"]["Message"] == (
        "Provisioned Concurrency Configs cannot be applied to unpublished function versions.")
    put = lam.put_provisioned_concurrency_config(FunctionName=fn, Qualifier="live", ProvisionedConcurrentExecutions=1)
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert (put["Status"], put["RequestedProvisionedConcurrentExecutions"]) == ("IN_PROGRESS", 1)
    got = provisioning_settled(lam, fn, "live")  # AWS: IN_PROGRESS until the environments are warm
    assert (got["Status"], got["AvailableProvisionedConcurrentExecutions"]) == ("READY", 1)
    listed = lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"]
    assert [c["FunctionArn"] for c in listed] == [f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}:live"]
    # The worker was started ahead: the first invocation through the alias is warm (no Init Duration).
    out = lam.invoke(FunctionName=fn, Qualifier="live", Payload=b"{}", LogType="Tail")
    assert out["Payload"].read() == b'"ok"'
    tail = base64.b64decode(out["LogResult"]).decode()
    assert "REPORT RequestId" in tail and "Init Duration" not in tail and "INIT_START" not in tail
    assert lam.delete_provisioned_concurrency_config(FunctionName=fn, Qualifier="live")[
        "ResponseMetadata"]["HTTPStatusCode"] == 204  # fmt: skip
    assert lam.list_provisioned_concurrency_configs(FunctionName=fn)["ProvisionedConcurrencyConfigs"] == []


def test_runtime_management_and_recursion(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}"
    got = lam.get_runtime_management_config(FunctionName=fn)
    assert (got["UpdateRuntimeOn"], got["FunctionArn"]) == ("Auto", arn) and "RuntimeVersionArn" not in got
    runtime = lam.get_function_configuration(FunctionName=fn)["RuntimeVersionConfig"]["RuntimeVersionArn"]
    put = lam.put_runtime_management_config(FunctionName=fn, UpdateRuntimeOn="Manual", RuntimeVersionArn=runtime)
    assert (put["UpdateRuntimeOn"], put["RuntimeVersionArn"]) == ("Manual", runtime)
    assert lam.get_runtime_management_config(FunctionName=fn)["UpdateRuntimeOn"] == "Manual"
    assert lam.get_runtime_management_config(FunctionName=fn, Qualifier="1")["UpdateRuntimeOn"] == "Auto"
    # a pinned runtime keeps its identifier until the mode is changed back
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=fn, Runtime="python3.13")
    assert excinfo.value.response["Error"]["Code"] == "InvalidParameterValueException"
    assert excinfo.value.response["Error"]["Message"] == (
        "Cannot change runtime identifier when runtime management configuration is set to 'Manual'. Change the "
        "runtime management configuration to 'Auto' or 'FunctionUpdate', then retry.")  # fmt: skip
    assert lam.get_function_configuration(FunctionName=fn)["Runtime"] == "python3.12"
    lam.update_function_configuration(FunctionName=fn, Description="same runtime is fine", Runtime="python3.12")
    lam.put_runtime_management_config(FunctionName=fn, UpdateRuntimeOn="Auto")
    assert lam.update_function_configuration(FunctionName=fn, Runtime="python3.13")["Runtime"] == "python3.13"

    assert lam.get_function_recursion_config(FunctionName=fn)["RecursiveLoop"] == "Terminate"
    assert lam.put_function_recursion_config(FunctionName=fn, RecursiveLoop="Allow")["RecursiveLoop"] == "Allow"
    assert lam.get_function_recursion_config(FunctionName=fn)["RecursiveLoop"] == "Allow"
    with pytest.raises(ClientError) as excinfo:
        lam.get_function_recursion_config(FunctionName="missing-function")
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_code_location_serves_the_zip(aws: Callable[..., Any], role: str, endpoint: str) -> None:
    lam = aws("lambda")
    name = f"code-{uuid.uuid4().hex[:8]}"
    data = make_zip()
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": data})  # fmt: skip
    code = lam.get_function(FunctionName=name)["Code"]
    assert code["RepositoryType"] == "S3" and code["Location"].startswith(endpoint + "/")
    assert "X-Amz-Expires=600" in code["Location"] and "X-Amz-Signature=" in code["Location"]
    with urllib.request.urlopen(code["Location"], timeout=30) as response:
        assert (response.status, response.read()) == (200, data)
    forged = code["Location"][:-4] + ("0000" if not code["Location"].endswith("0000") else "1111")
    with pytest.raises(urllib.error.HTTPError) as excinfo:
        urllib.request.urlopen(forged, timeout=30)
    assert excinfo.value.code == 403 and b"SignatureDoesNotMatch" in excinfo.value.read()
