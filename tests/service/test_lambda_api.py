"""Lambda's control plane through boto3 against a real server: lifecycle, versions, aliases, concurrency."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def make_zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


def code_sha(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


HANDLER = "def handler(event, context):\n    return {'v': VERSION, 'event': event}\nVERSION = %d\n"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"lambda-role-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"fn-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(
        FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": HANDLER % 1})},
    )  # fmt: skip
    return name


def test_create_get_update_delete(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"fn-{uuid.uuid4().hex[:10]}"
    data = make_zip({"app.py": HANDLER % 1})
    created = lam.create_function(
        FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler", Code={"ZipFile": data},
        Environment={"Variables": {"ORDERS_TABLE": "orders"}}, Description="d",
    )  # fmt: skip
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert created["FunctionArn"] == f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{name}"
    assert created["CodeSha256"] == code_sha(data)
    assert created["CodeSize"] == len(data)
    assert created["State"] == "Pending" and created["StateReasonCode"] == "Creating"
    assert (created["Timeout"], created["MemorySize"], created["Version"]) == (3, 128, "$LATEST")
    assert created["Environment"] == {"Variables": {"ORDERS_TABLE": "orders"}}
    assert created["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{name}"}

    got = lam.get_function(FunctionName=name)
    assert got["Configuration"]["State"] == "Active"
    assert got["Configuration"]["LastUpdateStatus"] == "Successful"
    assert got["Code"]["RepositoryType"] == "S3"
    lam.get_waiter("function_active_v2").wait(FunctionName=name)

    new = make_zip({"app.py": HANDLER % 2})
    updated = lam.update_function_code(FunctionName=name, ZipFile=new)
    assert updated["CodeSha256"] == code_sha(new) != created["CodeSha256"]
    assert updated["LastUpdateStatus"] == "InProgress"
    assert updated["RevisionId"] != created["RevisionId"]
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)

    conf = lam.update_function_configuration(FunctionName=name, Timeout=30, MemorySize=256)
    assert (conf["Timeout"], conf["MemorySize"]) == (30, 256)
    assert lam.get_function_configuration(FunctionName=name)["Timeout"] == 30

    deleted = lam.delete_function(FunctionName=name)
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as err:
        lam.get_function(FunctionName=name)
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert err.value.response["Error"]["Message"] == (
        f"Function not found: arn:aws:lambda:us-east-1:{ACCOUNT}:function:{name}"
    )
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_create_twice_conflicts(aws: Callable[..., Any], role: str, fn: str) -> None:
    with pytest.raises(ClientError) as err:
        aws("lambda").create_function(
            FunctionName=fn, Runtime="python3.12", Role=role, Handler="app.handler",
            Code={"ZipFile": make_zip({"app.py": HANDLER % 1})},
        )  # fmt: skip
    assert err.value.response["Error"]["Code"] == "ResourceConflictException"
    assert err.value.response["Error"]["Message"] == f"Function already exist: {fn}"
    assert err.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409


def test_names_arns_and_partial_arns(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    arn = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{fn}"
    for name in (fn, arn, f"{ACCOUNT}:function:{fn}"):
        assert lam.get_function_configuration(FunctionName=name)["FunctionArn"] == arn


def test_list_functions_pages(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    prefix = f"page-{uuid.uuid4().hex[:6]}"
    for i in range(3):
        lam.create_function(
            FunctionName=f"{prefix}-{i}", Runtime="python3.11", Role=role, Handler="app.handler",
            Code={"ZipFile": make_zip({"app.py": HANDLER % i})},
        )  # fmt: skip
    seen: list[str] = []
    for page in lam.get_paginator("list_functions").paginate(PaginationConfig={"PageSize": 2}):
        seen += [f["FunctionName"] for f in page["Functions"]]
    assert [n for n in seen if n.startswith(prefix)] == [f"{prefix}-{i}" for i in range(3)]
    assert len(seen) == len(set(seen))


def test_versions_and_aliases(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    v1 = lam.publish_version(FunctionName=fn)
    assert v1["Version"] == "1"
    assert v1["FunctionArn"].endswith(f":function:{fn}:1")
    assert lam.publish_version(FunctionName=fn)["Version"] == "1"  # nothing changed: same version
    lam.update_function_code(FunctionName=fn, ZipFile=make_zip({"app.py": HANDLER % 2}))
    assert lam.publish_version(FunctionName=fn)["Version"] == "2"
    versions = [v["Version"] for v in lam.list_versions_by_function(FunctionName=fn)["Versions"]]
    assert versions == ["$LATEST", "1", "2"]
    everything = lam.get_paginator("list_functions").paginate(FunctionVersion="ALL").build_full_result()["Functions"]
    # every entry of FunctionVersion=ALL is named by its version, $LATEST too (moto's AWS-verified test_list_functions)
    assert [f["FunctionArn"].split(f"function:{fn}")[1] for f in everything if f["FunctionName"] == fn] == [
        ":$LATEST", ":1", ":2"
    ]
    assert [v["FunctionArn"].split(f"function:{fn}")[1] for v in lam.list_versions_by_function(FunctionName=fn)[
        "Versions"]] == [":$LATEST", ":1", ":2"]  # fmt: skip
    assert lam.list_functions()["Functions"][0]["FunctionArn"].count(":") == 6  # the plain list: unqualified

    alias = lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    assert alias["AliasArn"].endswith(f":function:{fn}:live")
    with pytest.raises(ClientError) as err:
        lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    assert err.value.response["Error"]["Code"] == "ResourceConflictException"

    def invoke(name: str, **kw: Any) -> tuple[dict[str, Any], str]:
        out = lam.invoke(FunctionName=name, Payload=b"{}", **kw)
        return json.loads(out["Payload"].read()), out["ExecutedVersion"]

    assert invoke(fn) == ({"v": 2, "event": {}}, "$LATEST")
    assert invoke(f"{fn}:1") == ({"v": 1, "event": {}}, "1")
    assert invoke(fn, Qualifier="live") == ({"v": 1, "event": {}}, "1")
    lam.update_alias(FunctionName=fn, Name="live", FunctionVersion="2")
    assert invoke(f"{fn}:live") == ({"v": 2, "event": {}}, "2")
    assert [a["Name"] for a in lam.list_aliases(FunctionName=fn)["Aliases"]] == ["live"]
    assert lam.get_alias(FunctionName=fn, Name="live")["FunctionVersion"] == "2"
    lam.delete_alias(FunctionName=fn, Name="live")
    with pytest.raises(ClientError) as err:
        lam.get_alias(FunctionName=fn, Name="live")
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as err:
        lam.invoke(FunctionName=fn, Qualifier="9")
    assert err.value.response["Error"]["Message"].endswith(f":function:{fn}:9")


def test_concurrency_settings(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName=fn)
    assert lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=5)[
        "ReservedConcurrentExecutions"
    ] == 5
    assert lam.get_function_concurrency(FunctionName=fn)["ReservedConcurrentExecutions"] == 5
    assert lam.get_function(FunctionName=fn)["Concurrency"] == {"ReservedConcurrentExecutions": 5}
    with pytest.raises(ClientError) as err:
        lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=901)
    assert err.value.response["Error"]["Message"] == (
        "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution "
        "below its minimum value of [100]."
    )
    lam.delete_function_concurrency(FunctionName=fn)
    assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName=fn)


def test_missing_function_errors(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    arn = f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:nope-{uuid.uuid4().hex[:6]}"
    name = arn.rsplit(":", 1)[1]
    for call in (lam.get_function_configuration, lam.delete_function):
        with pytest.raises(ClientError) as err:
            call(FunctionName=name)
        assert err.value.response["Error"]["Message"] == f"Function not found: {arn}"
        assert err.value.response["Type"] == "User"
    with pytest.raises(ClientError) as err:
        lam.invoke(FunctionName=name)
    assert err.value.response["Error"]["Message"] == f"Function not found: {arn}:$LATEST"


def test_tags_and_account_settings(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"tagged-{uuid.uuid4().hex[:8]}"
    arn = lam.create_function(
        FunctionName=name, Runtime="python3.13", Role=role, Handler="app.handler",
        Code={"ZipFile": make_zip({"app.py": HANDLER % 1})}, Tags={"team": "orders"},
    )["FunctionArn"]  # fmt: skip
    assert lam.get_function(FunctionName=name)["Tags"] == {"team": "orders"}
    lam.tag_resource(Resource=arn, Tags={"env": "dev"})
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "orders", "env": "dev"}
    lam.untag_resource(Resource=arn, TagKeys=["team"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"env": "dev"}
    settings = lam.get_account_settings()
    assert settings["AccountLimit"]["ConcurrentExecutions"] == 1000
    assert settings["AccountUsage"]["FunctionCount"] >= 1
