"""Multi-attribute GSI keys (up to 4 partition and 4 sort key attributes): items are indexed under
all of them, Query needs every partition attribute and the sort attributes from the first on, and
orders by the sort attributes in turn."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

INDEX = "byMatch"
ATTRS = [("pk", "S"), ("tour", "S"), ("region", "S"), ("round", "S"), ("seq", "N")]
ROWS = [("a", "w24", "na", "final", "1"), ("b", "w24", "na", "semi", "2"), ("c", "w24", "na", "semi", "-1"),
        ("d", "w24", "na", "semi", "10"), ("e", "w24", "na", "quarter", "0"), ("f", "w24", "eu", "semi", "1"),
        ("g", "s25", "na", "semi", "1")]


@pytest.fixture(scope="module")
def ddb(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb")


@pytest.fixture(scope="module")
def table(ddb: Any) -> str:
    name = f"mak-{uuid.uuid4().hex[:8]}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in ATTRS],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        GlobalSecondaryIndexes=[{"IndexName": INDEX, "Projection": {"ProjectionType": "ALL"}, "KeySchema": [
            {"AttributeName": "tour", "KeyType": "HASH"}, {"AttributeName": "region", "KeyType": "HASH"},
            {"AttributeName": "round", "KeyType": "RANGE"}, {"AttributeName": "seq", "KeyType": "RANGE"}]}])
    for pk, tour, region, rnd, seq in ROWS:
        ddb.put_item(TableName=name, Item={"pk": {"S": pk}, "tour": {"S": tour}, "region": {"S": region},
                                           "round": {"S": rnd}, "seq": {"N": seq}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "h"}, "tour": {"S": "w24"}, "round": {"S": "semi"},
                                       "seq": {"N": "3"}})  # no region: not in the index
    return name


def _query(ddb: Any, table: str, cond: str, **values: dict[str, str]) -> list[str]:
    vals = {":t": {"S": "w24"}, ":r": {"S": "na"}, **{f":{k}": v for k, v in values.items()}}
    got = ddb.query(TableName=table, IndexName=INDEX, KeyConditionExpression=f"tour = :t AND #r = :r{cond}",
                    ExpressionAttributeNames={"#r": "region", **({"#n": "round"} if "#n" in cond else {})},
                    ExpressionAttributeValues=vals)
    return [i["pk"]["S"] for i in got["Items"]]


def test_the_index_is_described_with_every_key_attribute(ddb: Any, table: str) -> None:
    ix = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert [(k["AttributeName"], k["KeyType"]) for k in ix["KeySchema"]] == [
        ("tour", "HASH"), ("region", "HASH"), ("round", "RANGE"), ("seq", "RANGE")]
    assert ix["ItemCount"] == 7  # the item without a region is not indexed


def test_query_orders_by_the_sort_attributes_in_turn(ddb: Any, table: str) -> None:
    assert _query(ddb, table, "") == ["a", "e", "c", "b", "d"]  # final, quarter, semi -1 < 2 < 10
    assert _query(ddb, table, " AND #n = :s", s={"S": "semi"}) == ["c", "b", "d"]
    assert _query(ddb, table, " AND #n = :s AND seq > :z", s={"S": "semi"}, z={"N": "0"}) == ["b", "d"]
    assert _query(ddb, table, " AND #n = :s AND seq <= :z", s={"S": "semi"}, z={"N": "2"}) == ["c", "b"]
    assert _query(ddb, table, " AND #n = :s AND seq BETWEEN :a AND :b", s={"S": "semi"}, a={"N": "-1"},
                  b={"N": "2"}) == ["c", "b"]
    assert _query(ddb, table, " AND #n > :s", s={"S": "quarter"}) == ["c", "b", "d"]
    assert _query(ddb, table, " AND #n < :s", s={"S": "semi"}) == ["a", "e"]
    assert _query(ddb, table, " AND begins_with(#n, :s)", s={"S": "s"}) == ["c", "b", "d"]
    got = ddb.query(TableName=table, IndexName=INDEX, KeyConditionExpression="tour = :t AND #r = :r",
                    ExpressionAttributeNames={"#r": "region"}, ScanIndexForward=False,
                    ExpressionAttributeValues={":t": {"S": "w24"}, ":r": {"S": "eu"}})
    assert [i["pk"]["S"] for i in got["Items"]] == ["f"]


def test_paging_resumes_after_the_last_key(ddb: Any, table: str) -> None:
    seen: list[str] = []
    start: dict[str, Any] | None = None
    while True:
        extra = {"ExclusiveStartKey": start} if start else {}
        got = ddb.query(TableName=table, IndexName=INDEX, KeyConditionExpression="tour = :t AND #r = :r",
                        ExpressionAttributeNames={"#r": "region"}, Limit=2,
                        ExpressionAttributeValues={":t": {"S": "w24"}, ":r": {"S": "na"}}, **extra)
        seen += [i["pk"]["S"] for i in got["Items"]]
        start = got.get("LastEvaluatedKey")
        if not start:
            break
        assert set(start) == {"pk", "tour", "region", "round", "seq"}
    assert seen == ["a", "e", "c", "b", "d"]


@pytest.mark.parametrize(("cond", "message"), [
    ("tour = :t", "Query condition missed key schema element: region"),
    ("tour = :t AND #r = :r AND seq = :z", "Query condition missed key schema element: round"),
    ("tour = :t AND #r = :r AND #n > :s AND seq = :z", "Query key condition not supported"),
])
def test_incomplete_key_conditions_are_refused(ddb: Any, table: str, cond: str, message: str) -> None:
    names = {k: v for k, v in {"#r": "region", "#n": "round"}.items() if k in cond}
    values = {k: v for k, v in {":t": {"S": "w24"}, ":r": {"S": "na"}, ":s": {"S": "semi"},
                                ":z": {"N": "1"}}.items() if k in cond}
    with pytest.raises(ClientError) as e:
        ddb.query(TableName=table, IndexName=INDEX, KeyConditionExpression=cond, ExpressionAttributeValues=values,
                  **({"ExpressionAttributeNames": names} if names else {}))
    assert (e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]) == ("ValidationException",
                                                                                          message)


def test_more_than_four_partition_attributes_are_refused(ddb: Any) -> None:
    names = [f"h{i}" for i in range(5)]
    with pytest.raises(ClientError) as e:
        ddb.create_table(TableName=f"mak-{uuid.uuid4().hex[:8]}", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ["pk", *names]],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         GlobalSecondaryIndexes=[{"IndexName": "wide", "Projection": {"ProjectionType": "ALL"},
                                                  "KeySchema": [{"AttributeName": n, "KeyType": "HASH"}
                                                                for n in names]}])
    assert e.value.response["Error"]["Code"] == "ValidationException"


def test_partiql_reads_a_multi_attribute_index(ddb: Any, table: str) -> None:
    got = ddb.execute_statement(Statement=f'SELECT pk FROM "{table}"."{INDEX}" WHERE tour = ? AND region = ? '
                                          'AND round = ?', Parameters=[{"S": "w24"}, {"S": "na"}, {"S": "semi"}])
    assert sorted(i["pk"]["S"] for i in got["Items"]) == ["b", "c", "d"]
