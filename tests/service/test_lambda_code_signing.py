"""Code signing configs through boto3: their CRUD, a function's config (CreateFunction's
CodeSigningConfigArn or PutFunctionCodeSigningConfig), ListFunctionsByCodeSigningConfig, and what
UntrustedArtifactOnDeployment does with code onceflow cannot verify (all of it: no AWS Signer here):
Warn deploys it, Enforce refuses it."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT, REGION = "000000000000", "us-east-1"
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
PROFILE = f"arn:aws:signer:{REGION}:{ACCOUNT}:/signing-profiles/team/abcdef0123"


def code() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", "def handler(event, context):\n    return 1\n")
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return str(aws("iam").create_role(RoleName=f"csc-{uuid.uuid4().hex[:8]}",
                                      AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"])  # fmt: skip


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[int, str]:
    return excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"], excinfo.value.response["Error"]["Code"]


def test_configs_and_functions(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    created = lam.create_code_signing_config(Description="team", AllowedPublishers={
        "SigningProfileVersionArns": [PROFILE]})["CodeSigningConfig"]  # fmt: skip
    arn, csc_id = created["CodeSigningConfigArn"], created["CodeSigningConfigId"]
    assert arn == f"arn:aws:lambda:{REGION}:{ACCOUNT}:code-signing-config:{csc_id}" and len(csc_id) == 21
    assert created["CodeSigningPolicies"] == {"UntrustedArtifactOnDeployment": "Warn"}
    assert created["AllowedPublishers"] == {"SigningProfileVersionArns": [PROFILE]}
    assert lam.get_code_signing_config(CodeSigningConfigArn=arn)["CodeSigningConfig"] == created
    assert arn in [c["CodeSigningConfigArn"] for c in lam.list_code_signing_configs()["CodeSigningConfigs"]]
    lam.tag_resource(Resource=arn, Tags={"team": "a", "tier": "1"})
    lam.untag_resource(Resource=arn, TagKeys=["tier"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "a"}

    # Warn: code onceflow cannot verify is deployed.
    name = f"csc-fn-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": code()}, CodeSigningConfigArn=arn)  # fmt: skip
    got = lam.get_function_code_signing_config(FunctionName=name)
    assert (got["CodeSigningConfigArn"], got["FunctionName"]) == (arn, name)
    other = f"csc-fn-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=other, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": code()})  # fmt: skip
    put = lam.put_function_code_signing_config(FunctionName=other, CodeSigningConfigArn=arn)
    assert (put["CodeSigningConfigArn"], put["FunctionName"]) == (arn, other)
    # Warn: so is an unverified layer.
    layers = [lam.publish_layer_version(LayerName=f"csc-layer-{uuid.uuid4().hex[:6]}", Content={"ZipFile": code()})[
        "LayerVersionArn"] for _ in range(2)]  # fmt: skip
    lam.update_function_configuration(FunctionName=name, Layers=layers[:1])
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    listed = lam.list_functions_by_code_signing_config(CodeSigningConfigArn=arn)["FunctionArns"]
    assert sorted(listed) == sorted(f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{n}" for n in (name, other))

    # Enforce: the same code is refused, and nothing changes.
    updated = lam.update_code_signing_config(CodeSigningConfigArn=arn, CodeSigningPolicies={
        "UntrustedArtifactOnDeployment": "Enforce"})["CodeSigningConfig"]  # fmt: skip
    assert updated["CodeSigningPolicies"] == {"UntrustedArtifactOnDeployment": "Enforce"}
    assert updated["Description"] == "team"
    before = lam.get_function_configuration(FunctionName=name)["RevisionId"]
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_code(FunctionName=name, ZipFile=code())
    assert refused(excinfo) == (400, "CodeVerificationFailedException")
    assert lam.get_function_configuration(FunctionName=name)["RevisionId"] == before
    # A layer is code too: one the function does not have yet is refused, the one it has is kept.
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Layers=layers, Description="with layers")
    assert refused(excinfo) == (400, "CodeVerificationFailedException")
    assert layers[1] in excinfo.value.response["Error"]["Message"]
    assert lam.get_function_configuration(FunctionName=name)["RevisionId"] == before
    lam.update_function_configuration(FunctionName=name, Layers=layers[:1], Description="same layer")
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    with pytest.raises(ClientError) as excinfo:
        lam.create_function(FunctionName=f"{name}-x", Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": code()}, CodeSigningConfigArn=arn)  # fmt: skip
    assert refused(excinfo) == (400, "CodeVerificationFailedException")
    with pytest.raises(ClientError):
        lam.get_function(FunctionName=f"{name}-x")

    # In use: not deleted; once no function names it, deleted.
    with pytest.raises(ClientError) as excinfo:
        lam.delete_code_signing_config(CodeSigningConfigArn=arn)
    assert refused(excinfo) == (409, "ResourceConflictException")
    lam.delete_function_code_signing_config(FunctionName=name)
    assert "CodeSigningConfigArn" not in lam.get_function_code_signing_config(FunctionName=name)
    lam.update_function_code(FunctionName=name, ZipFile=code())  # no config: deployed
    lam.delete_function(FunctionName=other)
    assert lam.list_functions_by_code_signing_config(CodeSigningConfigArn=arn)["FunctionArns"] == []
    lam.delete_code_signing_config(CodeSigningConfigArn=arn)
    with pytest.raises(ClientError) as excinfo:
        lam.get_code_signing_config(CodeSigningConfigArn=arn)
    assert refused(excinfo) == (404, "ResourceNotFoundException")


def test_bad_input(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    missing = f"arn:aws:lambda:{REGION}:{ACCOUNT}:code-signing-config:csc-0123456789abcdefg"
    name = f"csc-fn-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": code()}, CodeSigningConfigArn=missing)  # fmt: skip
    assert refused(excinfo) == (404, "CodeSigningConfigNotFoundException")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": code()})  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.put_function_code_signing_config(FunctionName=name, CodeSigningConfigArn=missing)
    assert refused(excinfo) == (404, "CodeSigningConfigNotFoundException")
    with pytest.raises(ClientError) as excinfo:
        lam.get_function_code_signing_config(FunctionName=f"{name}-none")
    assert refused(excinfo) == (404, "ResourceNotFoundException")
    with pytest.raises(ClientError) as excinfo:
        lam.update_code_signing_config(CodeSigningConfigArn=missing, Description="x")
    assert refused(excinfo) == (404, "ResourceNotFoundException")
    with pytest.raises(ClientError) as excinfo:
        lam.create_code_signing_config(AllowedPublishers={"SigningProfileVersionArns": [PROFILE]},
                                       CodeSigningPolicies={"UntrustedArtifactOnDeployment": "Sometimes"})
    assert refused(excinfo) == (400, "ValidationException")  # the model's enum, checked before the operation
