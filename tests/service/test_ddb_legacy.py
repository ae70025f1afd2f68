"""The legacy parameters older SDK code still sends: Expected, AttributeUpdates, AttributesToGet,
KeyConditions, QueryFilter, ScanFilter, ConditionalOperator."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


@pytest.fixture
def table(ddb: Any) -> str:
    n = f"legacy-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}])
    return n


def key(p: str, s: int) -> dict[str, Any]:
    return {"pk": {"S": p}, "sk": {"N": str(s)}}


def test_expected_and_attribute_updates(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item=key("a", 1), Expected={"pk": {"Exists": False}})
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName=table, Item=key("a", 1), Expected={"pk": {"Exists": False}})
    assert e.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    r = ddb.update_item(TableName=table, Key=key("a", 1), ReturnValues="ALL_NEW", AttributeUpdates={
        "n": {"Action": "ADD", "Value": {"N": "2"}}, "s": {"Action": "PUT", "Value": {"SS": ["x", "y"]}}})
    assert r["Attributes"] == {**key("a", 1), "n": {"N": "2"}, "s": {"SS": ["x", "y"]}}
    r = ddb.update_item(TableName=table, Key=key("a", 1), ReturnValues="ALL_NEW",
                        Expected={"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "1"}]}},
                        AttributeUpdates={"n": {"Action": "DELETE"}, "s": {"Action": "DELETE", "Value": {"SS": ["x"]}}})
    assert r["Attributes"] == {**key("a", 1), "s": {"SS": ["y"]}}
    assert ddb.get_item(TableName=table, Key=key("a", 1), AttributesToGet=["s"])["Item"] == {"s": {"SS": ["y"]}}


def test_key_conditions_and_filters(ddb: Any, table: str) -> None:
    for i in range(6):
        ddb.put_item(TableName=table, Item={**key("q", i), "odd": {"BOOL": i % 2 == 1}})
    r = ddb.query(TableName=table, KeyConditions={
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "q"}]},
        "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "4"}]}},
        QueryFilter={"odd": {"ComparisonOperator": "EQ", "AttributeValueList": [{"BOOL": True}]}})
    assert [i["sk"]["N"] for i in r["Items"]] == ["1", "3"]
    r = ddb.scan(TableName=table, ConditionalOperator="OR", ScanFilter={
        "sk": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "0"}, {"N": "5"}]},
        "odd": {"ComparisonOperator": "NULL"}})
    assert sorted(i["sk"]["N"] for i in r["Items"]) == ["0", "5"]


def test_mixing_legacy_and_expressions_is_rejected(ddb: Any, table: str) -> None:
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName=table, Item=key("a", 1), Expected={"pk": {"Exists": False}},
                     ConditionExpression="attribute_not_exists(pk)")
    assert e.value.response["Error"]["Message"] == (  # PutItem's envelope (ddb/errors.py ENVELOPE)
        "1 validation error detected: Can not use both expression and non-expression parameters in the same "
        "request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")
