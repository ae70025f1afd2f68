"""DynamoDB resource-based policies: Put/Get/DeleteResourcePolicy with revision ids, validated as
IAM validates resource policies, and enforced beside identity policies (either allows within the
account; an explicit deny in either wins)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCT, REGION = "000000000000", "us-east-1"


def _role(aws: Callable[..., Any], statements: list[dict[str, Any]], service: str = "dynamodb") -> tuple[str, Any]:
    name = f"rp-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    iam = aws("iam")
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))
    if statements:
        iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": statements}))
    arn = f"arn:aws:iam::{ACCT}:role/{name}"
    creds = aws("sts").assume_role(RoleArn=arn, RoleSessionName="s1")["Credentials"]
    return arn, aws(service, access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                    session_token=creds["SessionToken"])


def _table(aws: Callable[..., Any]) -> tuple[str, str]:
    name = f"rp-{uuid.uuid4().hex[:8]}"
    aws("dynamodb").create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    aws("dynamodb").put_item(TableName=name, Item={"pk": {"S": "a"}})
    return name, f"arn:aws:dynamodb:{REGION}:{ACCT}:table/{name}"


def _policy(effect: str, principal: str, actions: list[str], resource: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": effect, "Principal": {"AWS": principal}, "Action": actions, "Resource": resource}]})


def test_put_get_delete_with_revision_ids(aws: Callable[..., Any]) -> None:
    ddb = aws("dynamodb")
    _, arn = _table(aws)
    with pytest.raises(ClientError) as e:
        ddb.get_resource_policy(ResourceArn=arn)
    assert e.value.response["Error"]["Code"] == "PolicyNotFoundException"
    doc = _policy("Allow", f"arn:aws:iam::{ACCT}:root", ["dynamodb:GetItem"], arn)
    rev = ddb.put_resource_policy(ResourceArn=arn, Policy=doc)["RevisionId"]
    assert ddb.put_resource_policy(ResourceArn=arn, Policy=doc)["RevisionId"] == rev  # idempotent
    got = ddb.get_resource_policy(ResourceArn=arn)
    assert (got["Policy"], got["RevisionId"]) == (doc, rev)
    with pytest.raises(ClientError) as e:
        ddb.put_resource_policy(ResourceArn=arn, Policy=doc.replace("GetItem", "Query"), ExpectedRevisionId="nope")
    assert e.value.response["Error"]["Code"] == "PolicyNotFoundException"
    assert ddb.get_resource_policy(ResourceArn=arn)["Policy"] == doc  # unchanged
    rev2 = ddb.put_resource_policy(ResourceArn=arn, Policy=doc.replace("GetItem", "Query"),
                                   ExpectedRevisionId=rev)["RevisionId"]
    assert rev2 != rev
    assert ddb.delete_resource_policy(ResourceArn=arn)["RevisionId"] == rev2
    with pytest.raises(ClientError) as e:
        ddb.delete_resource_policy(ResourceArn=arn)
    assert e.value.response["Error"]["Code"] == "PolicyNotFoundException"


def test_revision_conflicts_and_unknown_tables_answer_in_aws_words(aws: Callable[..., Any]) -> None:
    """The messages recorded on DynamoDB: the revisions in conflict, NO_POLICY, an unknown table's name."""
    ddb = aws("dynamodb")
    name, arn = _table(aws)
    doc = _policy("Allow", f"arn:aws:iam::{ACCT}:root", ["dynamodb:GetItem"], arn)
    first = ddb.put_resource_policy(ResourceArn=arn, Policy=doc, ExpectedRevisionId="NO_POLICY")["RevisionId"]
    second = ddb.put_resource_policy(ResourceArn=arn, Policy=doc.replace("GetItem", "PutItem"),
                                     ExpectedRevisionId=first)["RevisionId"]
    prefix = "Resource-based policy not found for the provided ResourceArn: "
    stale = (f"{prefix}Requested update for policy with revision id {first}, but the policy associated to target "
             f"table {name} has revision id {second}.")
    for call in (lambda: ddb.put_resource_policy(ResourceArn=arn, Policy=doc, ExpectedRevisionId=first),
                 lambda: ddb.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=first)):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["Error"] == {"Code": "PolicyNotFoundException", "Message": stale}
    with pytest.raises(ClientError) as e:
        ddb.put_resource_policy(ResourceArn=arn, Policy=doc, ExpectedRevisionId="NO_POLICY")
    assert e.value.response["Error"]["Message"] == (
        f"{prefix}Requested policy update expecting none to be present for table {name}, but a policy exists with "
        f"revision id {second}.")
    assert ddb.get_resource_policy(ResourceArn=arn)["RevisionId"] == second  # nothing changed
    for call in (lambda: ddb.get_resource_policy(ResourceArn=arn + "x"),
                 lambda: ddb.delete_resource_policy(ResourceArn=arn + "x"),
                 lambda: ddb.put_resource_policy(ResourceArn=arn + "x", Policy=doc)):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["Error"] == {"Code": "ResourceNotFoundException",
                                             "Message": f"Requested resource not found: Table: {name}x not found"}


def test_bad_documents_and_missing_tables_are_refused(aws: Callable[..., Any]) -> None:
    ddb = aws("dynamodb")
    _, arn = _table(aws)
    no_principal = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": arn}]})
    for bad in ("{not json", no_principal):
        with pytest.raises(ClientError) as e:
            ddb.put_resource_policy(ResourceArn=arn, Policy=bad)
        assert e.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as e:
        ddb.get_resource_policy(ResourceArn=arn)
    assert e.value.response["Error"]["Code"] == "PolicyNotFoundException"
    with pytest.raises(ClientError) as e:
        ddb.put_resource_policy(ResourceArn=arn + "-gone", Policy=_policy("Allow", ACCT, ["dynamodb:*"], arn))
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_table_policy_grants_a_role_without_identity_permissions(aws: Callable[..., Any]) -> None:
    name, arn = _table(aws)
    role_arn, ddb = _role(aws, [])
    with pytest.raises(ClientError) as e:
        ddb.get_item(TableName=name, Key={"pk": {"S": "a"}})
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    aws("dynamodb").put_resource_policy(ResourceArn=arn, Policy=_policy("Allow", role_arn, ["dynamodb:GetItem"], arn))
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName=name, Item={"pk": {"S": "b"}})
    assert "because no identity-based policy allows the dynamodb:PutItem action" in e.value.response["Error"]["Message"]
    assert "Item" not in aws("dynamodb").get_item(TableName=name, Key={"pk": {"S": "b"}})


def test_an_explicit_deny_in_either_policy_wins(aws: Callable[..., Any]) -> None:
    name, arn = _table(aws)
    role_arn, ddb = _role(aws, [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
                                {"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": arn}])
    aws("dynamodb").put_resource_policy(ResourceArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": role_arn}, "Action": "dynamodb:*", "Resource": arn},
        {"Effect": "Deny", "Principal": {"AWS": role_arn}, "Action": "dynamodb:PutItem", "Resource": arn}]}))
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName=name, Item={"pk": {"S": "c"}})
    assert "with an explicit deny in a resource-based policy" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as e:
        ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})
    assert "with an explicit deny in an identity-based policy" in e.value.response["Error"]["Message"]
    assert ddb.get_item(TableName=name, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}


def test_create_table_with_a_policy_and_a_stream_policy(aws: Callable[..., Any]) -> None:
    ddb = aws("dynamodb")
    role_arn, mine = _role(aws, [])
    streams_role, streams = _role(aws, [], "dynamodbstreams")
    name = f"rp-{uuid.uuid4().hex[:8]}"
    arn = f"arn:aws:dynamodb:{REGION}:{ACCT}:table/{name}"
    spec: dict[str, Any] = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}}
    with pytest.raises(ClientError) as e:
        ddb.create_table(**spec, ResourcePolicy='{"Statement": []}')
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert name not in ddb.list_tables()["TableNames"]  # a refused policy creates nothing
    doc = _policy("Allow", role_arn, ["dynamodb:DescribeTable"], arn)
    stream_arn = ddb.create_table(**spec, ResourcePolicy=doc)["TableDescription"]["LatestStreamArn"]
    assert ddb.get_resource_policy(ResourceArn=arn)["Policy"] == doc
    assert mine.describe_table(TableName=name)["Table"]["TableName"] == name
    with pytest.raises(ClientError) as e:
        streams.describe_stream(StreamArn=stream_arn)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    ddb.put_resource_policy(ResourceArn=stream_arn, Policy=_policy("Allow", streams_role,
                                                                   ["dynamodb:DescribeStream"], stream_arn))
    assert streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["StreamArn"] == stream_arn
