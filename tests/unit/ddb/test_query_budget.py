"""A Query on the event loop's budget (registry's "bounded" placement, reads.ON_LOOP): within it, the
very answer the unbudgeted read gives; past it (rows or bytes), OverBudget before any answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from onceflow.ddb.reads import ON_LOOP, Budget, Reader
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.store import MIGRATIONS
from onceflow.registry import OverBudget
from onceflow.store.db import Database

A, R = "123456789012", "us-east-1"


@pytest.fixture
def reader() -> Iterator[Reader]:
    db = Database(":memory:")
    db.migrate(MIGRATIONS)
    svc = DynamoDB(db)
    svc.create_table(A, R, {
        "TableName": "t", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"},
                                 {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}]})
    for i in range(3):
        put(svc, "few", i, "x")
    for i in range(ON_LOOP.rows + 1):
        put(svc, "many", i, "y")
    for i in range(2):
        put(svc, "big", i, "z", "b" * (ON_LOOP.bytes // 2))
    yield Reader(svc)
    db.close()


def put(svc: DynamoDB, pk: str, sk: int, g: str, v: str = "v") -> None:
    svc.put_item(A, R, {"TableName": "t", "Item": {"pk": {"S": pk}, "sk": {"N": str(sk)}, "g": {"S": g},
                                                   "v": {"S": v}}})


def query(pk: str, **extra: Any) -> dict[str, Any]:
    return {"TableName": "t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": pk}},
            **extra}


@pytest.mark.parametrize("p", [
    query("few"),
    query("few", FilterExpression="v = :v", ExpressionAttributeValues={":p": {"S": "few"}, ":v": {"S": "v"}}),
    query("few", ProjectionExpression="sk", ScanIndexForward=False),
    query("many", Limit=ON_LOOP.rows),  # a Limit within the budget ends the page there
    query("many", Limit=2, ExclusiveStartKey={"pk": {"S": "many"}, "sk": {"N": "3"}}),
    query("nobody"),
    {"TableName": "t", "IndexName": "by-g", "KeyConditionExpression": "g = :g",
     "ExpressionAttributeValues": {":g": {"S": "x"}}},
], ids=["whole", "filter", "projection", "limit", "start-key", "empty", "index"])
def test_within_the_budget_the_answer_is_the_unbudgeted_one(reader: Reader, p: dict[str, Any]) -> None:
    for raw in (False, True):
        assert reader.query(A, R, p, raw=raw, budget=ON_LOOP) == reader.query(A, R, p, raw=raw)


@pytest.mark.parametrize("p", [
    query("many"),  # more rows than one batch of the budget
    query("many", Limit=ON_LOOP.rows + 1),
    query("many", FilterExpression="v = :none", ExpressionAttributeValues={":p": {"S": "many"},
                                                                            ":none": {"S": "none"}}),
    query("big"),  # two items past the budget's bytes
    {"TableName": "t", "IndexName": "by-g", "KeyConditionExpression": "g = :g",
     "ExpressionAttributeValues": {":g": {"S": "y"}}},
], ids=["rows", "limit", "filter", "bytes", "index"])
def test_past_the_budget_the_read_hands_itself_on(reader: Reader, p: dict[str, Any]) -> None:
    with pytest.raises(OverBudget):
        reader.query(A, R, p, budget=ON_LOOP)
    assert reader.query(A, R, p)["ScannedCount"] > 0  # the same read, unbudgeted, answers


def test_a_bad_query_is_refused_the_same_on_the_budget(reader: Reader) -> None:
    from onceflow.errors import ServiceError

    bad = query("few", IndexName="nope")
    with pytest.raises(ServiceError) as on_loop:
        reader.query(A, R, bad, budget=Budget(rows=1, bytes=1))
    with pytest.raises(ServiceError) as unbudgeted:
        reader.query(A, R, bad)
    assert (on_loop.value.code, on_loop.value.message) == (unbudgeted.value.code, unbudgeted.value.message)
