"""Resource policies (AddPermission, RemovePermission, GetPolicy) through boto3, and may_invoke,
the check SNS, EventBridge and S3 make before they invoke, on an in-process stack."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import ECHO, LAMBDA_TRUST, lambda_role, zip_of

from onceflow import internal
from onceflow.config import Settings
from onceflow.context import Principal
from onceflow.server import build_stack
from onceflow.stack import Stack

ACCOUNT, REGION = "000000000000", "us-east-1"


def make_zip() -> bytes:
    return zip_of(ECHO)


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "perm-role")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"perm-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip()})  # fmt: skip
    return name


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def test_add_get_remove(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}"
    with pytest.raises(ClientError) as excinfo:
        lam.get_policy(FunctionName=fn)
    assert refused(excinfo) == ("ResourceNotFoundException", "The resource you requested does not exist.", 404)

    added = lam.add_permission(FunctionName=fn, StatementId="s3", Action="lambda:InvokeFunction",
                               Principal="s3.amazonaws.com", SourceArn="arn:aws:s3:::orders",
                               SourceAccount=ACCOUNT)  # fmt: skip
    assert added["ResponseMetadata"]["HTTPStatusCode"] == 201
    statement = {
        "Sid": "s3", "Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"},
        "Action": "lambda:InvokeFunction", "Resource": arn,
        "Condition": {"StringEquals": {"AWS:SourceAccount": ACCOUNT},
                      "ArnLike": {"AWS:SourceArn": "arn:aws:s3:::orders"}},
    }  # fmt: skip
    assert json.loads(added["Statement"]) == statement
    lam.add_permission(FunctionName=arn, StatementId="url", Action="lambda:InvokeFunctionUrl", Principal="*",
                       FunctionUrlAuthType="NONE")  # fmt: skip
    got = lam.get_policy(FunctionName=fn)
    doc = json.loads(got["Policy"])
    assert (doc["Version"], doc["Id"]) == ("2012-10-17", "default")
    assert doc["Statement"][0] == statement
    assert doc["Statement"][1]["Condition"] == {"StringEquals": {"lambda:FunctionUrlAuthType": "NONE"}}
    assert got["RevisionId"]

    with pytest.raises(ClientError) as excinfo:
        lam.add_permission(FunctionName=fn, StatementId="s3", Action="lambda:InvokeFunction", Principal="*")
    assert refused(excinfo) == (
        "ResourceConflictException",
        "The statement id (s3) provided already exists. Please provide a new statement id, or remove the existing "
        "statement.", 409)  # fmt: skip  (the id is named: AWS's recording)
    with pytest.raises(ClientError) as excinfo:
        lam.add_permission(FunctionName=fn, StatementId="x", Action="lambda:InvokeFunction", Principal="nobody")
    assert refused(excinfo)[:2] == (
        "InvalidParameterValueException",
        "The provided principal was invalid. Please check the principal and try again.")  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.add_permission(FunctionName=fn, StatementId="x", Action="lambda:InvokeFunction", Principal="*",
                           RevisionId="stale")  # fmt: skip
    assert refused(excinfo)[0] == "PreconditionFailedException"
    assert len(json.loads(lam.get_policy(FunctionName=fn)["Policy"])["Statement"]) == 2  # nothing added

    removed = lam.remove_permission(FunctionName=fn, StatementId="s3")
    assert removed["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError) as excinfo:
        lam.remove_permission(FunctionName=fn, StatementId="s3")
    assert refused(excinfo) == ("ResourceNotFoundException", "Statement s3 is not found in resource policy.", 404)
    lam.remove_permission(FunctionName=fn, StatementId="url")
    with pytest.raises(ClientError) as excinfo:  # the last statement gone: no policy at all
        lam.get_policy(FunctionName=fn)
    assert refused(excinfo)[0] == "ResourceNotFoundException"


def test_qualified_policies(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    lam.add_permission(FunctionName=fn, Qualifier="live", StatementId="sns", Action="lambda:InvokeFunction",
                       Principal="sns.amazonaws.com")  # fmt: skip
    doc = json.loads(lam.get_policy(FunctionName=f"{fn}:live")["Policy"])
    assert doc["Statement"][0]["Resource"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}:live"
    with pytest.raises(ClientError):  # the unqualified function has none of its own
        lam.get_policy(FunctionName=fn)
    with pytest.raises(ClientError) as excinfo:
        lam.add_permission(FunctionName=fn, Qualifier="$LATEST", StatementId="x", Action="lambda:InvokeFunction",
                           Principal="*")  # fmt: skip
    assert refused(excinfo)[:2] == ("InvalidParameterValueException",
                                    "We currently do not support adding policies for $LATEST.")  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.add_permission(FunctionName=fn, Qualifier="nope", StatementId="x", Action="lambda:InvokeFunction",
                           Principal="*")  # fmt: skip
    # a missing alias is named as one (AWS's recording: add_permission_fn_alias_doesnotexist)
    assert refused(excinfo)[1] == f"Cannot find alias arn: arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}:nope"
    lam.delete_alias(FunctionName=fn, Name="live")
    lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    with pytest.raises(ClientError):  # the alias's policy went with it
        lam.get_policy(FunctionName=fn, Qualifier="live")


def test_invoke_async(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    answer = lam.invoke_async(FunctionName=fn, InvokeArgs=b'{"a": 1}')
    assert answer["Status"] == 202 and answer["ResponseMetadata"]["HTTPStatusCode"] == 202
    with pytest.raises(ClientError) as excinfo:
        lam.invoke_async(FunctionName=f"{fn}-gone", InvokeArgs=b"{}")
    assert refused(excinfo)[0::2] == ("ResourceNotFoundException", 404)


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    stack = build_stack(Settings(in_memory=True))
    yield stack
    for hook in stack.on_shutdown:
        hook()
    stack.db.close()


def test_may_invoke(stack: Stack) -> None:
    root = Principal.root(ACCOUNT)

    def call(operation: str, **params: Any) -> dict[str, Any]:
        return internal.call(stack, root, "lambda", operation, params, region=REGION)

    trust = json.dumps(LAMBDA_TRUST)
    internal.call(stack, root, "iam", "CreateRole", {"RoleName": "r", "AssumeRolePolicyDocument": trust}, region=REGION)
    call("CreateFunction", FunctionName="target", Runtime="python3.12", Role=f"arn:aws:iam::{ACCOUNT}:role/r",
         Handler="app.handler", Code={"ZipFile": make_zip()})  # fmt: skip
    may = stack.services["lambda"].may_invoke
    topic = f"arn:aws:sns:{REGION}:{ACCOUNT}:orders"
    assert not may(ACCOUNT, "target", "sns.amazonaws.com", topic)  # no policy yet
    call("AddPermission", FunctionName="target", StatementId="sns", Action="lambda:InvokeFunction",
         Principal="sns.amazonaws.com", SourceArn=topic)  # fmt: skip
    assert may(ACCOUNT, "target", "sns.amazonaws.com", topic)
    assert may(ACCOUNT, f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:target", "sns.amazonaws.com", topic)
    assert not may(ACCOUNT, "target", "sns.amazonaws.com", f"arn:aws:sns:{REGION}:{ACCOUNT}:other")
    assert not may(ACCOUNT, "target", "events.amazonaws.com", topic)
    assert not may(ACCOUNT, "target", "sns.amazonaws.com")  # a SourceArn condition needs a source
    assert not may(ACCOUNT, "missing", "sns.amazonaws.com", topic)
    assert not may(ACCOUNT, "target:live", "sns.amazonaws.com", topic)  # no such alias
    call("AddPermission", FunctionName="target", StatementId="s3", Action="lambda:*", Principal="s3.amazonaws.com",
         SourceAccount=ACCOUNT)  # fmt: skip
    assert may(ACCOUNT, "target", "s3.amazonaws.com", "arn:aws:s3:::bucket", source_account=ACCOUNT)
    assert not may(ACCOUNT, "target", "s3.amazonaws.com", "arn:aws:s3:::bucket", source_account="111122223333")
