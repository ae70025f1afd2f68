"""IAM enforced where the seed system relies on it (issue 6): a function's own calls are its
role's, a role without CloudWatch Logs permissions writes no log lines under --enforce-iam, and a
policy change applies to the next call."""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

LAMBDA_TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
HANDLER = '''
import boto3, os
from botocore.exceptions import ClientError

def handler(event, context):
    print("writing", event["id"])
    try:
        boto3.client("dynamodb").put_item(TableName=os.environ["TABLE"], Item={"id": {"S": event["id"]}})
    except ClientError as error:
        return {"code": error.response["Error"]["Code"], "message": error.response["Error"]["Message"]}
    return {"code": None}
'''


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", HANDLER)
    return buf.getvalue()


def _policy(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


@pytest.fixture
def enforced(server_factory: Callable[..., Any]) -> Callable[[str], Any]:
    return server_factory(extra_args=("--enforce-iam",)).client


def _deploy(client: Callable[[str], Any], name: str, table_policy: bool, logs_policy: bool) -> str:
    iam, ddb, lam = client("iam"), client("dynamodb"), client("lambda")
    ddb.create_table(TableName=f"{name}-t", BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    role = iam.create_role(RoleName=f"{name}-role", AssumeRolePolicyDocument=json.dumps(LAMBDA_TRUST))["Role"]["Arn"]
    table_arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{name}-t"
    if table_policy:
        iam.put_role_policy(RoleName=f"{name}-role", PolicyName="table", PolicyDocument=_policy(
            {"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": table_arn}))
    if logs_policy:
        iam.attach_role_policy(RoleName=f"{name}-role",
                               PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": _zip()}, Environment={"Variables": {"TABLE": f"{name}-t"}})
    return role


def _invoke(client: Callable[[str], Any], name: str, order: str) -> dict[str, Any]:
    out = client("lambda").invoke(FunctionName=name, Payload=json.dumps({"id": order}).encode())
    assert "FunctionError" not in out
    return json.loads(out["Payload"].read())


def _log_groups(client: Callable[[str], Any], name: str) -> list[str]:
    """The function's log groups, once they appear (Lambda ships log lines just after the invoke
    returns, as AWS does); empty if none appears within a few seconds."""
    deadline = time.monotonic() + 10
    while True:
        groups = client("logs").describe_log_groups(logGroupNamePrefix=f"/aws/lambda/{name}")["logGroups"]
        if groups or time.monotonic() > deadline:
            return [g["logGroupName"] for g in groups]
        time.sleep(0.1)


def test_a_functions_own_call_is_denied_without_the_permission(enforced: Callable[[str], Any]) -> None:
    _deploy(enforced, "seed-deny", table_policy=False, logs_policy=True)
    result = _invoke(enforced, "seed-deny", "o-1")
    assert result["code"] == "AccessDeniedException"
    assert result["message"] == (
        "User: arn:aws:sts::000000000000:assumed-role/seed-deny-role/seed-deny is not authorized to perform: "
        "dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:000000000000:table/seed-deny-t because no "
        "identity-based policy allows the dynamodb:PutItem action")
    assert enforced("dynamodb").scan(TableName="seed-deny-t")["Items"] == []
    # A policy change applies to the next call.
    enforced("iam").put_role_policy(RoleName="seed-deny-role", PolicyName="table", PolicyDocument=_policy(
        {"Effect": "Allow", "Action": "dynamodb:PutItem",
         "Resource": "arn:aws:dynamodb:us-east-1:000000000000:table/seed-deny-t"}))
    assert _invoke(enforced, "seed-deny", "o-2") == {"code": None}
    assert enforced("dynamodb").scan(TableName="seed-deny-t")["Count"] == 1


def test_a_role_without_logs_permissions_writes_no_log_lines(enforced: Callable[[str], Any]) -> None:
    _deploy(enforced, "seed-quiet", table_policy=True, logs_policy=False)
    assert _invoke(enforced, "seed-quiet", "o-1") == {"code": None}
    enforced("iam").attach_role_policy(RoleName="seed-quiet-role",
                                       PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
    assert _invoke(enforced, "seed-quiet", "o-2") == {"code": None}
    assert _log_groups(enforced, "seed-quiet") == ["/aws/lambda/seed-quiet"]
    events = enforced("logs").filter_log_events(logGroupName="/aws/lambda/seed-quiet")["events"]
    messages = [e["message"] for e in events]
    # Lines are shipped in order: o-2's being there proves o-1's were dropped, not late.
    assert any(m.startswith("writing o-2") for m in messages)
    assert not any(m.startswith("writing o-1") for m in messages)


def test_logs_are_written_without_enforcement(aws: Callable[..., Any]) -> None:
    """Without --enforce-iam the default mode keeps every function's logs, whatever its role says."""
    _deploy(aws, "seed-default-logs", table_policy=True, logs_policy=False)
    assert _invoke(aws, "seed-default-logs", "o-1") == {"code": None}
    assert _log_groups(aws, "seed-default-logs") == ["/aws/lambda/seed-default-logs"]


@pytest.mark.parametrize("service, call, code", [
    ("sts", lambda c: c.get_caller_identity(), "InvalidClientTokenId"),
    ("dynamodb", lambda c: c.list_tables(), "UnrecognizedClientException"),
    ("lambda", lambda c: c.list_functions(), "UnrecognizedClientException"),
])
def test_unknown_issued_keys_are_refused_under_enforcement(server_factory: Callable[..., Any], service: str,
                                                           call: Callable[[Any], Any], code: str) -> None:
    server = server_factory(extra_args=("--enforce-iam",))
    client = server.client(service, access_key="AKIAIOSFODNN7EXAMPLE", secret_key="x")
    with pytest.raises(ClientError) as caught:
        call(client)
    assert caught.value.response["Error"]["Code"] == code
    assert caught.value.response["Error"]["Message"] == "The security token included in the request is invalid."
    # Any other key still acts as the account root, as in the default mode.
    root = server.client("sts")
    assert root.get_caller_identity()["Arn"] == "arn:aws:iam::000000000000:root"
