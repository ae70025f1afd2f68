"""Layers: a function naming a layer version that does not exist gets Lambda's answer and nothing
changes; published layer versions are listed, found by ARN, deleted, and laid out in the order a
function names them where Lambda's /opt is on the path."""

from __future__ import annotations

import io
import json
import re
import urllib.request
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
LAYER = "arn:aws:lambda:us-east-1:000000000000:layer:missing-layer:3"
OTHER_ACCOUNT_LAYER = "arn:aws:lambda:us-east-1:123456789012:layer:shared-tools:1"


def function_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", "def handler(event, context):\n    return 1\n")
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"layers-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


def assert_no_such_layer(excinfo: pytest.ExceptionInfo[ClientError], arn: str) -> None:
    response = excinfo.value.response
    assert response["Error"] == {"Code": "InvalidParameterValueException",
                                 "Message": f"Layer version {arn} does not exist."}
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Type"] == "User"


@pytest.mark.parametrize("layers", [[LAYER], [OTHER_ACCOUNT_LAYER, LAYER]])
def test_create_function_with_a_missing_layer(aws: Callable[..., Any], role: str, layers: list[str]) -> None:
    lam = aws("lambda")
    name = f"layered-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": function_zip()}, Layers=layers)
    assert_no_such_layer(excinfo, layers[0])
    with pytest.raises(ClientError) as missing:
        lam.get_function(FunctionName=name)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_update_function_configuration_with_a_missing_layer(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"layered-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": function_zip()})
    before = lam.get_function_configuration(FunctionName=name)
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Layers=[LAYER], Timeout=9)
    assert_no_such_layer(excinfo, LAYER)
    config = lam.get_function_configuration(FunctionName=name)
    assert config["RevisionId"] == before["RevisionId"] and config["Timeout"] == 3 and "Layers" not in config
    # An empty list names no layer: accepted, as removing every layer is.
    updated = lam.update_function_configuration(FunctionName=name, Layers=[], Timeout=9)
    assert updated["Timeout"] == 9 and "Layers" not in updated


# ---------------------------------------------------------------------------------------- published layers
def layer_zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


LAYERED_APP = '''
import os, sys
import shared, deep


def handler(event, context):
    return {"shared": shared.WHO, "deep": deep.WHO, "path": sys.path[:4], "task": os.environ["LAMBDA_TASK_ROOT"]}
'''


def test_layer_versions(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    name = f"tools-{uuid.uuid4().hex[:8]}"
    first = lam.publish_layer_version(LayerName=name, Description="one", CompatibleRuntimes=["python3.12"],
                                      Content={"ZipFile": layer_zip({"python/shared.py": "WHO = 1\n"})})  # fmt: skip
    assert first["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert first["Version"] == 1 and first["LayerArn"] == f"arn:aws:lambda:us-east-1:000000000000:layer:{name}"
    assert first["LayerVersionArn"] == first["LayerArn"] + ":1"
    assert first["Content"]["CodeSize"] > 0 and first["Content"]["CodeSha256"]
    assert first["CompatibleRuntimes"] == ["python3.12"] and first["Description"] == "one"
    two = layer_zip({"python/shared.py": "WHO = 2\n"})
    second = lam.publish_layer_version(LayerName=name, Content={"ZipFile": two})
    assert second["Version"] == 2
    assert lam.get_layer_version(LayerName=name, VersionNumber=1)["Description"] == "one"
    assert lam.get_layer_version_by_arn(Arn=second["LayerVersionArn"])["Version"] == 2
    versions = lam.list_layer_versions(LayerName=name)["LayerVersions"]
    assert [v["Version"] for v in versions] == [2, 1]
    assert [v["Version"] for v in lam.list_layer_versions(LayerName=name, CompatibleRuntime="python3.12")[
        "LayerVersions"]] == [1]  # fmt: skip
    listed = {layer["LayerName"]: layer for layer in lam.list_layers()["Layers"]}
    assert listed[name]["LatestMatchingVersion"]["Version"] == 2
    lam.delete_layer_version(LayerName=name, VersionNumber=2)
    with pytest.raises(ClientError) as excinfo:
        lam.get_layer_version(LayerName=name, VersionNumber=2)
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"
    third = lam.publish_layer_version(LayerName=name, Content={"ZipFile": layer_zip({"python/x.py": ""})})
    assert third["Version"] == 3  # a deleted version's number is not given again


def test_layer_content_location_serves_the_zip(aws: Callable[..., Any], endpoint: str) -> None:
    """Content.Location is a presigned https-style URL that serves the zip, as GetFunction's Code.Location."""
    lam = aws("lambda")
    name = f"zipped-{uuid.uuid4().hex[:8]}"
    data = layer_zip({"python/served.py": "X = 1\n"})
    published = lam.publish_layer_version(LayerName=name, Content={"ZipFile": data})
    fetched = lam.get_layer_version(LayerName=name, VersionNumber=published["Version"])
    for location in (published["Content"]["Location"], fetched["Content"]["Location"]):
        assert location.startswith(endpoint + "/") and "X-Amz-Signature=" in location
        with urllib.request.urlopen(location, timeout=30) as response:
            assert (response.status, response.read()) == (200, data)


def test_layers_are_laid_out_in_order_on_the_path(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    base = lam.publish_layer_version(LayerName=f"base-{uuid.uuid4().hex[:6]}", Content={"ZipFile": layer_zip({
        "python/shared.py": "WHO = 'base'\n",
        "python/lib/python3.12/site-packages/deep.py": "WHO = 'base-deep'\n",
        "python/lib/python3.13/site-packages/deep.py": "WHO = 'base-deep'\n",
        "python/lib/python3.11/site-packages/deep.py": "WHO = 'base-deep'\n",
    })})  # fmt: skip
    top = lam.publish_layer_version(LayerName=f"top-{uuid.uuid4().hex[:6]}",
                                    Content={"ZipFile": layer_zip({"python/shared.py": "WHO = 'top'\n"})})  # fmt: skip
    name = f"layered-{uuid.uuid4().hex[:8]}"
    created = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": layer_zip({"app.py": LAYERED_APP})},
                                  Layers=[base["LayerVersionArn"], top["LayerVersionArn"]])  # fmt: skip
    assert created["Layers"] == [
        {"Arn": base["LayerVersionArn"], "CodeSize": base["Content"]["CodeSize"]},
        {"Arn": top["LayerVersionArn"], "CodeSize": top["Content"]["CodeSize"]},
    ]
    out = json.loads(lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read())
    assert out["shared"] == "top" and out["deep"] == "base-deep"  # the later layer wins; site-packages found
    assert out["path"][0] == out["task"]
    # After the task root: /opt/python/lib/pythonX.Y/site-packages, then /opt/python (at /opt itself
    # when the sandbox can mount it there).
    assert re.fullmatch(r".*/python/lib/python3\.\d+/site-packages", out["path"][1])
    assert out["path"][2] == out["path"][1].split("/python/lib/")[0] + "/python"

    lam.update_function_configuration(FunctionName=name, Layers=[top["LayerVersionArn"], base["LayerVersionArn"]])
    out = json.loads(lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read())
    assert out["shared"] == "base"  # order reversed: base now wins

    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Layers=[top["LayerVersionArn"]] * 6)
    assert excinfo.value.response["Error"]["Message"] == "Cannot reference more than 5 layers."


def test_layer_version_permissions(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    name = f"shared-{uuid.uuid4().hex[:8]}"
    arn = lam.publish_layer_version(LayerName=name, Content={"ZipFile": layer_zip({"python/x.py": ""})})[
        "LayerVersionArn"]  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.get_layer_version_policy(LayerName=name, VersionNumber=1)
    assert excinfo.value.response["Error"]["Message"] == "No policy is associated with the given resource."
    added = lam.add_layer_version_permission(LayerName=name, VersionNumber=1, StatementId="org",
                                             Action="lambda:GetLayerVersion", Principal="*",
                                             OrganizationId="o-abc1234567")  # fmt: skip
    assert json.loads(added["Statement"]) == {
        "Sid": "org", "Effect": "Allow", "Principal": "*", "Action": "lambda:GetLayerVersion", "Resource": arn,
        "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-abc1234567"}},
    }  # fmt: skip
    lam.add_layer_version_permission(LayerName=name, VersionNumber=1, StatementId="acct",
                                     Action="lambda:GetLayerVersion", Principal="123456789012")  # fmt: skip
    got = lam.get_layer_version_policy(LayerName=name, VersionNumber=1)
    statements = json.loads(got["Policy"])["Statement"]
    assert [s["Sid"] for s in statements] == ["org", "acct"]
    assert statements[1]["Principal"] == {"AWS": "arn:aws:iam::123456789012:root"}
    with pytest.raises(ClientError) as excinfo:
        lam.add_layer_version_permission(LayerName=name, VersionNumber=1, StatementId="acct",
                                         Action="lambda:GetLayerVersion", Principal="*")  # fmt: skip
    assert excinfo.value.response["Error"]["Code"] == "ResourceConflictException"
    lam.remove_layer_version_permission(LayerName=name, VersionNumber=1, StatementId="org")
    remaining = json.loads(lam.get_layer_version_policy(LayerName=name, VersionNumber=1)["Policy"])["Statement"]
    assert [s["Sid"] for s in remaining] == ["acct"]
