"""UpdateItem's edges recorded on DynamoDB, and what in-process callers (Step Functions tasks) see of a
failed condition that returns the old item."""

from __future__ import annotations

import uuid
from typing import Any


def key(i: str) -> dict[str, Any]:
    return {"id": {"S": i}}


def test_a_failed_condition_returning_the_old_item_keeps_its_message_in_process(aws: Any, ddb: Any,
                                                                                table: str) -> None:
    """A Step Functions task calls DynamoDB in process: with ReturnValuesOnConditionCheckFailure=ALL_OLD its
    Cause still opens with DynamoDB's message (it was empty: the message lived only in the wire member)."""
    import json
    import time

    iam, sfn = aws("iam"), aws("stepfunctions")
    name = f"ddbcond-{uuid.uuid4().hex[:6]}"
    trust = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="ddb", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": "*"}]}))
    ddb.put_item(TableName=table, Item={"id": {"S": "taken"}})
    definition = {"StartAt": "Put", "States": {"Put": {
        "Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "End": True,
        "Parameters": {"TableName": table, "Item": {"id": {"S": "taken"}},
                       "ConditionExpression": "attribute_not_exists(id)",
                       "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}}}
    arn = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=role)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    deadline = time.monotonic() + 60
    while (d := sfn.describe_execution(executionArn=ex))["status"] == "RUNNING" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (d["status"], d["error"]) == ("FAILED", "DynamoDB.ConditionalCheckFailedException")
    assert d["cause"].startswith("The conditional request failed (Service: AmazonDynamoDBv2; Status Code: 400; "), d


def test_an_update_that_only_removes_does_not_create_an_absent_item(ddb: Any, table: str) -> None:
    """scylladb/scylladb test/alternator (test_item.py, test_returnvalues.py), run against DynamoDB: REMOVE
    or DELETE alone on an absent item writes nothing and returns no Attributes; SET, ADD and an empty
    AttributeUpdates create the item."""
    def stored(i: str) -> Any:
        return ddb.get_item(TableName=table, Key=key(i), ConsistentRead=True).get("Item")

    r = ddb.update_item(TableName=table, Key=key("r"), UpdateExpression="REMOVE a", ReturnValues="ALL_NEW")
    assert "Attributes" not in r and stored("r") is None
    ddb.update_item(TableName=table, Key=key("d"), UpdateExpression="REMOVE a DELETE s :x",
                    ExpressionAttributeValues={":x": {"SS": ["x"]}})
    ddb.update_item(TableName=table, Key=key("d"), AttributeUpdates={"a": {"Action": "DELETE"}})
    assert stored("d") is None
    ddb.transact_write_items(TransactItems=[{"Update": {"TableName": table, "Key": key("t"),
                                                        "UpdateExpression": "REMOVE a"}}])
    assert stored("t") is None
    r = ddb.update_item(TableName=table, Key=key("s"), UpdateExpression="SET b = :v REMOVE a",
                        ExpressionAttributeValues={":v": {"N": "1"}}, ReturnValues="ALL_NEW")
    assert r["Attributes"] == stored("s") == {"id": {"S": "s"}, "b": {"N": "1"}}
    ddb.update_item(TableName=table, Key=key("n"), UpdateExpression="ADD c :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    assert stored("n") == {"id": {"S": "n"}, "c": {"N": "1"}}
    r = ddb.update_item(TableName=table, Key=key("e"), AttributeUpdates={}, ReturnValues="ALL_NEW")
    assert r["Attributes"] == stored("e") == key("e")
