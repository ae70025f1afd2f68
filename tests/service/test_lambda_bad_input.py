"""Refused deployments: Lambda's error for each, and nothing deployed or changed afterwards."""

from __future__ import annotations

import io
import json
import stat
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
BAD_ZIP = "Could not unzip uploaded file. Please check your file, then try to upload again."
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
GOOD = {"app.py": "def handler(event, context):\n    return 'ok'\n"}


def make_zip(files: dict[str, str], symlink: str | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/passwd")
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"lambda-role-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


def create(aws: Callable[..., Any], name: str, role: str, zip_bytes: bytes, **kw: Any) -> dict[str, Any]:
    args = {"FunctionName": name, "Runtime": "python3.12", "Role": role, "Handler": "app.handler",
            "Code": {"ZipFile": zip_bytes}, **kw}  # fmt: skip
    return aws("lambda").create_function(**args)


def refused(aws: Callable[..., Any], role: str, zip_bytes: bytes, **kw: Any) -> dict[str, Any]:
    name = f"bad-{uuid.uuid4().hex[:10]}"
    with pytest.raises(ClientError) as err:
        create(aws, name, role, zip_bytes, **kw)
    with pytest.raises(ClientError) as missing:
        aws("lambda").get_function(FunctionName=name)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"  # nothing was deployed
    return err.value.response


@pytest.mark.parametrize(
    "zip_bytes",
    [
        b"this is not a zip",
        make_zip({**GOOD, "../escape.py": "x"}),
        make_zip({**GOOD, "/abs/escape.py": "x"}),
        make_zip(GOOD, symlink="link.py"),
    ],
    ids=["not-a-zip", "dotdot", "absolute", "symlink"],
)
def test_bad_zips(aws: Callable[..., Any], role: str, zip_bytes: bytes) -> None:
    response = refused(aws, role, zip_bytes)
    assert response["Error"] == {"Code": "InvalidParameterValueException", "Message": BAD_ZIP}
    assert response["Type"] == "User"
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_unzipped_too_large(aws: Callable[..., Any], role: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("app.py", GOOD["app.py"])
        zf.writestr("big.bin", b"\0" * 262_144_001)
    response = refused(aws, role, buf.getvalue())
    assert response["Error"]["Message"] == "Unzipped size must be smaller than 262144000 bytes"


def test_unknown_runtime(aws: Callable[..., Any], role: str) -> None:
    response = refused(aws, role, make_zip(GOOD), Runtime="python2.1")
    assert response["Error"]["Code"] == "InvalidParameterValueException"
    assert response["Error"]["Message"].startswith(
        "Value python2.1 at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: ["
    )
    assert response["Error"]["Message"].endswith("] or be a valid ARN")


def test_role_that_does_not_exist(aws: Callable[..., Any]) -> None:
    response = refused(aws, f"arn:aws:iam::{ACCOUNT}:role/no-such-role-{uuid.uuid4().hex[:6]}", make_zip(GOOD))
    assert response["Error"] == {
        "Code": "InvalidParameterValueException",
        "Message": "The role defined for the function cannot be assumed by Lambda.",
    }


def test_role_of_another_account(aws: Callable[..., Any]) -> None:
    response = refused(aws, "arn:aws:iam::111122223333:role/elsewhere", make_zip(GOOD))
    assert response["Error"] == {"Code": "AccessDeniedException", "Message": "Cross-account pass role is not allowed."}
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_role_not_trusting_lambda(aws: Callable[..., Any]) -> None:
    trust = {**TRUST, "Statement": [{**TRUST["Statement"][0], "Principal": {"Service": "states.amazonaws.com"}}]}
    name = f"sfn-role-{uuid.uuid4().hex[:8]}"
    arn = aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    assert refused(aws, arn, make_zip(GOOD))["Error"]["Message"] == (
        "The role defined for the function cannot be assumed by Lambda."
    )


def test_reserved_environment_variable(aws: Callable[..., Any], role: str) -> None:
    response = refused(aws, role, make_zip(GOOD), Environment={"Variables": {"AWS_REGION": "eu-west-1"}})
    assert response["Error"]["Message"].endswith("Reserved keys used in this request: AWS_REGION")


def test_bad_update_changes_nothing(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"keep-{uuid.uuid4().hex[:10]}"
    create(aws, name, role, make_zip(GOOD))
    before = lam.get_function_configuration(FunctionName=name)  # the create answer's revision is a transient one
    with pytest.raises(ClientError) as err:
        lam.update_function_code(FunctionName=name, ZipFile=make_zip({**GOOD, "../x.py": ""}))
    assert err.value.response["Error"]["Message"] == BAD_ZIP
    with pytest.raises(ClientError):
        lam.update_function_configuration(FunctionName=name, Runtime="cobol")
    after = lam.get_function_configuration(FunctionName=name)
    assert (after["CodeSha256"], after["RevisionId"], after["Runtime"]) == (
        before["CodeSha256"], before["RevisionId"], "python3.12"
    )  # fmt: skip
    assert json.loads(lam.invoke(FunctionName=name)["Payload"].read()) == "ok"


@pytest.mark.slow
def test_zip_over_50_mb(aws: Callable[..., Any], role: str) -> None:
    import os

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", GOOD["app.py"])
        zf.writestr("blob.bin", os.urandom(50 * 1024 * 1024))
    response = refused(aws, role, buf.getvalue())
    assert response["Error"] == {
        "Code": "RequestEntityTooLargeException",
        # recorded (test_oversized_zipped_create_lambda): the zipped size is named before the request's
        "Message": "Zipped size must be smaller than 52428800 bytes",
    }
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 413
    # recorded: no Type and no modeled message member beside the error
    assert sorted(response) == ["Error", "ResponseMetadata"]


def test_code_and_layers_over_the_quota_together(aws: Callable[..., Any], role: str) -> None:
    """Each under 262144000 bytes unpacked, the function and its layer over it together: refused."""
    def zeros(name: str, size: int) -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            zf.writestr("app.py", GOOD["app.py"])
            zf.writestr(name, b"\0" * size)
        return buf.getvalue()

    lam = aws("lambda")
    layer_zip = zeros("python/big.bin", 150_000_000)
    layer = lam.publish_layer_version(LayerName=f"big-{uuid.uuid4().hex[:6]}", Content={"ZipFile": layer_zip})
    code = zeros("big.bin", 120_000_000)
    total = 150_000_000 + 120_000_000 + 2 * len(GOOD["app.py"])
    response = refused(aws, role, code, Layers=[layer["LayerVersionArn"]])
    assert response["Error"] == {"Code": "InvalidParameterValueException", "Message": (
        "Function code combined with layers exceeds the maximum allowed size of 262144000 bytes. "
        f"The actual size is {total} bytes.")}  # fmt: skip
    # The same layer added to a function already deployed is refused too, and changes nothing.
    name = f"big-{uuid.uuid4().hex[:8]}"
    create(aws, name, role, code)
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Layers=[layer["LayerVersionArn"]])
    assert excinfo.value.response["Error"]["Message"].startswith("Function code combined with layers exceeds")
    assert "Layers" not in lam.get_function_configuration(FunctionName=name)
