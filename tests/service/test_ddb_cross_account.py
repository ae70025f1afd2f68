"""Another account's DynamoDB table, reached by its ARN once that table's resource policy grants the call
(AWS's "Using resource-based policies for DynamoDB" and "API operations supported by resource-based
policies": across accounts both the caller's identity policy and the table's policy must allow; only the
data plane, DescribeTable/UpdateTable/DeleteTable and the tagging calls are served across accounts)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

CALLER, OWNER, REGION = "000000000000", "111111111111", "us-east-1"


@pytest.fixture(scope="module")
def owner(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb", access_key=OWNER)  # a 12-digit key acts as that account's root


@pytest.fixture(scope="module")
def caller(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb")


def _table(owner: Any, actions: list[str] | None, principal: str = f"arn:aws:iam::{CALLER}:root") -> str:
    name = f"xa-{uuid.uuid4().hex[:8]}"
    arn = owner.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                             AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                   {"AttributeName": "sk", "AttributeType": "S"}],
                             KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                        {"AttributeName": "sk", "KeyType": "RANGE"}])["TableDescription"]["TableArn"]
    assert f":{OWNER}:" in arn
    owner.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "v": {"S": "owner's"}})
    if actions:
        owner.put_resource_policy(ResourceArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": principal}, "Action": actions, "Resource": arn}]}))
    return str(arn)


def _denied(call: Callable[..., Any], **params: Any) -> str:
    with pytest.raises(ClientError) as e:
        call(**params)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    return str(e.value.response["Error"]["Message"])


def test_a_granted_call_reaches_the_other_accounts_table(owner: Any, caller: Any) -> None:
    arn = _table(owner, ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:DescribeTable"])
    key = {"pk": {"S": "a"}, "sk": {"S": "1"}}
    assert caller.get_item(TableName=arn, Key=key)["Item"]["v"] == {"S": "owner's"}
    caller.put_item(TableName=arn, Item={"pk": {"S": "a"}, "sk": {"S": "2"}, "v": {"S": "caller's"}})
    got = caller.query(TableName=arn, KeyConditionExpression="pk = :a", ExpressionAttributeValues={":a": {"S": "a"}})
    assert [i["sk"]["S"] for i in got["Items"]] == ["1", "2"]
    described = caller.describe_table(TableName=arn)["Table"]
    assert (described["TableArn"], described["ItemCount"]) == (arn, 2)
    # The item was written to the owner's table, not to one of the caller's.
    assert owner.get_item(TableName=arn.split("/")[-1], Key={**key, "sk": {"S": "2"}})["Item"]["v"] == {"S": "caller's"}
    assert arn.split("/")[-1] not in caller.list_tables()["TableNames"]


def test_only_the_granted_actions_reach_it(owner: Any, caller: Any) -> None:
    arn = _table(owner, ["dynamodb:GetItem"])
    message = _denied(caller.delete_item, TableName=arn, Key={"pk": {"S": "a"}, "sk": {"S": "1"}})
    assert message == (f"User: arn:aws:iam::{CALLER}:root is not authorized to perform: dynamodb:DeleteItem on "
                       f"resource: {arn} because no resource-based policy allows the dynamodb:DeleteItem action")
    assert "Item" in owner.get_item(TableName=arn, Key={"pk": {"S": "a"}, "sk": {"S": "1"}})  # nothing changed


def test_operations_dynamodb_does_not_serve_across_accounts_are_refused_whatever_the_policy(
        owner: Any, caller: Any) -> None:
    arn = _table(owner, ["dynamodb:*"])
    for call, action, params in (
            (caller.update_time_to_live, "UpdateTimeToLive",
             {"TableName": arn, "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "exp"}}),
            (caller.execute_statement, "PartiQLSelect", {"Statement": f'SELECT * FROM "{arn}"'}),
            (caller.get_resource_policy, "GetResourcePolicy", {"ResourceArn": arn})):
        message = _denied(call, **params)
        assert message.endswith(f"because no resource-based policy allows the dynamodb:{action} action"), message
    assert owner.describe_time_to_live(TableName=arn)["TimeToLiveDescription"]["TimeToLiveStatus"] == "DISABLED"


def test_tags_and_batches_reach_it_too(owner: Any, caller: Any) -> None:
    arn = _table(owner, ["dynamodb:TagResource", "dynamodb:ListTagsOfResource", "dynamodb:BatchGetItem",
                         "dynamodb:BatchWriteItem"])
    caller.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])
    assert owner.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    caller.batch_write_item(RequestItems={arn: [{"PutRequest": {"Item": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}]})
    got = caller.batch_get_item(RequestItems={arn: {"Keys": [{"pk": {"S": "b"}, "sk": {"S": "1"}}]}})
    assert got["Responses"] == {arn: [{"pk": {"S": "b"}, "sk": {"S": "1"}}]}


def test_across_accounts_the_callers_identity_policy_must_allow_too(aws: Callable[..., Any], owner: Any) -> None:
    """A role of the calling account named by the table's policy still needs its own permission; within
    the table's account the policy alone would do (test_ddb_resource_policies)."""
    iam, sts = aws("iam"), aws("sts")

    def session(statements: list[dict[str, Any]]) -> tuple[str, Any]:
        name = f"xa-{uuid.uuid4().hex[:8]}"
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{CALLER}:root"}, "Action": "sts:AssumeRole"}]}
        role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
        if statements:
            iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=json.dumps(
                {"Version": "2012-10-17", "Statement": statements}))
        c = sts.assume_role(RoleArn=role, RoleSessionName="s1")["Credentials"]
        return role, aws("dynamodb", access_key=c["AccessKeyId"], secret_key=c["SecretAccessKey"],
                         session_token=c["SessionToken"])

    arn = _table(owner, ["dynamodb:GetItem"], principal=f"arn:aws:iam::{CALLER}:root")
    key = {"pk": {"S": "a"}, "sk": {"S": "1"}}
    _, bare = session([])
    message = _denied(bare.get_item, TableName=arn, Key=key)
    assert "because no identity-based policy allows the dynamodb:GetItem action" in message
    _, allowed = session([{"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": arn}])
    assert allowed.get_item(TableName=arn, Key=key)["Item"]["v"] == {"S": "owner's"}
