"""What writes report of their cost: ConsumedCapacity per table and per index (an index is charged
only for what changes in it), and ItemCollectionMetrics on tables with a local secondary index."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


@pytest.fixture
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


@pytest.fixture
def orders(ddb: Any) -> str:
    """customer + order keys; a GSI on status projecting only `total`; an LSI on placed, projecting all."""
    name = f"cap-{uuid.uuid4().hex[:10]}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"}
                              for a in ("customer", "order", "status", "placed")],
        KeySchema=[{"AttributeName": "customer", "KeyType": "HASH"}, {"AttributeName": "order", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-status",
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}}],
        LocalSecondaryIndexes=[{"IndexName": "by-placed",
                                "KeySchema": [{"AttributeName": "customer", "KeyType": "HASH"},
                                              {"AttributeName": "placed", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    return name


def arms(cc: dict[str, Any]) -> tuple[float, float, float | None, float | None]:
    """(total, table, by-status GSI, by-placed LSI) units of an INDEXES ConsumedCapacity."""
    gsi = cc.get("GlobalSecondaryIndexes", {}).get("by-status", {}).get("CapacityUnits")
    lsi = cc.get("LocalSecondaryIndexes", {}).get("by-placed", {}).get("CapacityUnits")
    return cc["CapacityUnits"], cc["Table"]["CapacityUnits"], gsi, lsi


def order(customer: str, **attrs: str) -> dict[str, Any]:
    return {"customer": {"S": customer}, "order": {"S": "o1"}, **{k: {"S": v} for k, v in attrs.items()}}


def test_put_charges_each_index_the_item_enters(ddb: Any, orders: str) -> None:
    c = uuid.uuid4().hex
    put = ddb.put_item(TableName=orders, Item=order(c, status="new", placed="d1", total="9"),
                       ReturnConsumedCapacity="INDEXES")
    assert arms(put["ConsumedCapacity"]) == (3.0, 1.0, 1.0, 1.0)
    assert put["ConsumedCapacity"]["TableName"] == orders
    assert "WriteCapacityUnits" not in put["ConsumedCapacity"]
    # the same item again: neither index changes, only the table is written
    again = ddb.put_item(TableName=orders, Item=order(c, status="new", placed="d1", total="9"),
                         ReturnConsumedCapacity="INDEXES")
    assert again["ConsumedCapacity"] == {"TableName": orders, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}
    # TOTAL folds the indexes in and names no arm
    total = ddb.put_item(TableName=orders, Item=order(uuid.uuid4().hex, status="new"), ReturnConsumedCapacity="TOTAL")
    assert total["ConsumedCapacity"] == {"TableName": orders, "CapacityUnits": 2.0}
    sparse = ddb.put_item(TableName=orders, Item=order(uuid.uuid4().hex, note="x"), ReturnConsumedCapacity="INDEXES")
    assert arms(sparse["ConsumedCapacity"]) == (1.0, 1.0, None, None)


@pytest.mark.parametrize(("expression", "values", "expected"), [
    ("SET note = :v", {":v": {"S": "n"}}, (2.0, 1.0, None, 1.0)),  # not projected in the GSI
    ("SET #t = :v", {":v": {"S": "10"}}, (3.0, 1.0, 1.0, 1.0)),  # projected: one update of the entry
    ("SET #s = :v", {":v": {"S": "paid"}}, (4.0, 1.0, 2.0, 1.0)),  # index key moves: delete + insert
    ("REMOVE #s", None, (3.0, 1.0, 1.0, 1.0)),  # leaves the GSI: one delete
    ("SET placed = :v", {":v": {"S": "d2"}}, (3.0, 1.0, None, 2.0)),
])
def test_update_charges_an_index_for_what_changes_in_it(ddb: Any, orders: str, expression: str,
                                                       values: dict[str, Any] | None,
                                                       expected: tuple[float, ...]) -> None:
    c = uuid.uuid4().hex
    ddb.put_item(TableName=orders, Item=order(c, status="new", placed="d1", total="9", note="a"))
    extra = {"ExpressionAttributeValues": values} if values else {}
    names = {k: v for k, v in (("#s", "status"), ("#t", "total")) if k in expression}
    if names:
        extra["ExpressionAttributeNames"] = names
    got = ddb.update_item(TableName=orders, Key={"customer": {"S": c}, "order": {"S": "o1"}},
                          UpdateExpression=expression, ReturnConsumedCapacity="INDEXES", **extra)
    assert arms(got["ConsumedCapacity"]) == expected


def test_delete_and_batch_write_charge_the_indexes_they_touch(ddb: Any, orders: str) -> None:
    c = uuid.uuid4().hex
    ddb.put_item(TableName=orders, Item=order(c, status="new", placed="d1"))
    gone = ddb.delete_item(TableName=orders, Key={"customer": {"S": c}, "order": {"S": "o1"}},
                           ReturnConsumedCapacity="INDEXES")
    assert arms(gone["ConsumedCapacity"]) == (3.0, 1.0, 1.0, 1.0)
    missing = ddb.delete_item(TableName=orders, Key={"customer": {"S": c}, "order": {"S": "o1"}},
                              ReturnConsumedCapacity="INDEXES")
    assert arms(missing["ConsumedCapacity"]) == (1.0, 1.0, None, None)
    batch = ddb.batch_write_item(RequestItems={orders: [
        {"PutRequest": {"Item": order(uuid.uuid4().hex, status="new")}},
        {"PutRequest": {"Item": order(uuid.uuid4().hex)}},
    ]}, ReturnConsumedCapacity="INDEXES")
    assert [arms(cc) for cc in batch["ConsumedCapacity"]] == [(3.0, 2.0, 1.0, None)]
    assert "ConsumedCapacity" not in ddb.batch_write_item(RequestItems={orders: [
        {"PutRequest": {"Item": order(uuid.uuid4().hex)}}]})


def test_item_collection_metrics_on_a_table_with_an_lsi(ddb: Any, orders: str) -> None:
    c = uuid.uuid4().hex
    key = {"customer": {"S": c}, "order": {"S": "o1"}}
    expected = {"ItemCollectionKey": {"customer": {"S": c}}, "SizeEstimateRangeGB": [0.0, 1.0]}
    put = ddb.put_item(TableName=orders, Item=order(c, placed="d1"), ReturnItemCollectionMetrics="SIZE")
    assert put["ItemCollectionMetrics"] == expected
    upd = ddb.update_item(TableName=orders, Key=key, UpdateExpression="SET note = :v",
                          ExpressionAttributeValues={":v": {"S": "n"}}, ReturnItemCollectionMetrics="SIZE")
    assert upd["ItemCollectionMetrics"] == expected
    assert "ItemCollectionMetrics" not in ddb.put_item(TableName=orders, Item=order(c, placed="d1"),
                                                       ReturnItemCollectionMetrics="NONE")
    gone = ddb.delete_item(TableName=orders, Key=key, ReturnItemCollectionMetrics="SIZE")
    assert gone["ItemCollectionMetrics"] == expected
    batch = ddb.batch_write_item(RequestItems={orders: [{"PutRequest": {"Item": order(c, placed="d2")}}]},
                                 ReturnItemCollectionMetrics="SIZE")
    assert batch["ItemCollectionMetrics"] == {orders: [expected]}


def test_no_item_collection_metrics_without_an_lsi(ddb: Any) -> None:
    name = f"cap-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    put = ddb.put_item(TableName=name, Item={"id": {"S": "a"}}, ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in put


def test_transactions_charge_two_units_per_item_and_split_reads_from_writes(ddb: Any, orders: str) -> None:
    c = uuid.uuid4().hex
    key = {"customer": {"S": c}, "order": {"S": "o1"}}
    wrote = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": orders, "Item": order(c, status="new")}},
        {"Put": {"TableName": orders, "Item": {**order(c), "order": {"S": "o2"}}}},
    ], ReturnConsumedCapacity="INDEXES")
    # A transaction splits read from write units at the top, in either mode, and a ConditionCheck is
    # charged as a write (nubo-db/dynamodb-conformance tests/tier2/transactions, recorded on DynamoDB).
    assert wrote["ConsumedCapacity"] == [{
        "TableName": orders, "CapacityUnits": 6.0, "WriteCapacityUnits": 4.0,
        "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0},
        "GlobalSecondaryIndexes": {"by-status": {"CapacityUnits": 2.0}}}]
    checked = ddb.transact_write_items(TransactItems=[
        {"ConditionCheck": {"TableName": orders, "Key": key, "ConditionExpression": "attribute_exists(customer)"}},
        {"Delete": {"TableName": orders, "Key": {**key, "order": {"S": "o2"}}}},
    ], ReturnConsumedCapacity="TOTAL")
    assert checked["ConsumedCapacity"] == [{"TableName": orders, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}]
    got = ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": orders, "Key": key}},
        {"Get": {"TableName": orders, "Key": {**key, "order": {"S": "missing"}}}},
    ], ReturnConsumedCapacity="INDEXES")
    assert got["ConsumedCapacity"] == [{"TableName": orders, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0,
                                        "Table": {"CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}}]
    assert "ConsumedCapacity" not in ddb.transact_get_items(TransactItems=[{"Get": {"TableName": orders, "Key": key}}])


@pytest.fixture
def keyed(ddb: Any) -> str:
    """pk + sk keys; a KEYS_ONLY LSI on rank; three items of pk p, each a little over 4 KB."""
    name = f"capr-{uuid.uuid4().hex[:10]}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "rank")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        LocalSecondaryIndexes=[{"IndexName": "by-rank",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "rank", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    for n in "123":
        ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": f"s{n}"}, "rank": {"S": f"r{n}"},
                                           "body": {"S": "x" * 4200}, "tag": {"S": n}})
    return name


def query_arms(ddb: Any, table: str, **kw: Any) -> tuple[float, float, float]:
    """(total, table, by-rank LSI) units of a Query of partition p on the LSI."""
    cc = ddb.query(TableName=table, IndexName="by-rank", KeyConditionExpression="pk = :p",
                   ExpressionAttributeValues={":p": {"S": "p"}, **kw.pop("values", {})},
                   ReturnConsumedCapacity="INDEXES", **kw)["ConsumedCapacity"]
    return cc["CapacityUnits"], cc["Table"]["CapacityUnits"], cc["LocalSecondaryIndexes"]["by-rank"]["CapacityUnits"]


def test_an_lsi_read_of_projected_attributes_is_sized_on_the_index_alone(ddb: Any, keyed: str) -> None:
    # The index holds only keys (three small entries, under 4 KB together): half a unit, nothing from the table.
    assert query_arms(ddb, keyed) == (0.5, 0.0, 0.5)
    assert query_arms(ddb, keyed, ProjectionExpression="sk, #r", ExpressionAttributeNames={"#r": "rank"}) == \
        (0.5, 0.0, 0.5)


def test_an_lsi_read_reaching_back_is_charged_each_walked_item_whole_on_the_table(ddb: Any, keyed: str) -> None:
    # Each fetched item (4.2 KB) is two 4 KB units, halved when eventually consistent: 3 x 1.0 on the table.
    assert query_arms(ddb, keyed, ProjectionExpression="body") == (3.5, 3.0, 0.5)
    assert query_arms(ddb, keyed, ProjectionExpression="body", ConsistentRead=True) == (7.0, 6.0, 1.0)
    # A filter keeps nothing but every walked item was fetched; a Limit walks fewer.
    assert query_arms(ddb, keyed, ProjectionExpression="body", FilterExpression="tag = :none",
                      values={":none": {"S": "none"}}) == (3.5, 3.0, 0.5)
    assert query_arms(ddb, keyed, ProjectionExpression="body", Limit=1) == (1.5, 1.0, 0.5)


def test_select_all_attributes_on_an_lsi_fetches_whole_items_from_the_table(ddb: Any, keyed: str) -> None:
    r = ddb.query(TableName=keyed, IndexName="by-rank", KeyConditionExpression="pk = :p", Select="ALL_ATTRIBUTES",
                  ExpressionAttributeValues={":p": {"S": "p"}}, ReturnConsumedCapacity="INDEXES")
    assert [set(i) for i in r["Items"]] == [{"pk", "sk", "rank", "body", "tag"}] * 3
    assert r["ConsumedCapacity"]["Table"]["CapacityUnits"] == 3.0
    # The index's own projection, without Select, reads the index alone.
    r = ddb.query(TableName=keyed, IndexName="by-rank", KeyConditionExpression="pk = :p",
                  ExpressionAttributeValues={":p": {"S": "p"}})
    assert [set(i) for i in r["Items"]] == [{"pk", "sk", "rank"}] * 3


def test_a_transactions_check_replay_and_cancel_as_recorded(ddb: Any, keyed: str, orders: str) -> None:
    """nubo-db/dynamodb-conformance tests/tier2/transactions/transactWrite.test.ts (recorded on DynamoDB): a
    ConditionCheck on its own table costs 2 write units; a 1.5 KB Put costs 4 write units and its same-token
    replay 2 read units; a cancelled transaction reports no capacity."""
    c = uuid.uuid4().hex
    ddb.put_item(TableName=orders, Item=order(c))
    put = {"Put": {"TableName": keyed, "Item": {"pk": {"S": c}, "sk": {"S": "x"}, "big": {"S": "x" * 1536}}}}
    check = {"ConditionCheck": {"TableName": orders, "Key": {"customer": {"S": c}, "order": {"S": "o1"}},
                                "ConditionExpression": "attribute_exists(customer)"}}
    r = ddb.transact_write_items(TransactItems=[put, check], ReturnConsumedCapacity="INDEXES", ClientRequestToken=c)
    by_table = {cc["TableName"]: cc for cc in r["ConsumedCapacity"]}
    assert (by_table[orders]["CapacityUnits"], by_table[orders]["WriteCapacityUnits"]) == (2.0, 2.0)
    assert (by_table[keyed]["WriteCapacityUnits"], "ReadCapacityUnits" in by_table[keyed]) == (4.0, False)
    again = ddb.transact_write_items(TransactItems=[put, check], ReturnConsumedCapacity="INDEXES",
                                     ClientRequestToken=c)
    replay = {cc["TableName"]: cc for cc in again["ConsumedCapacity"]}[keyed]
    assert (replay["ReadCapacityUnits"], "WriteCapacityUnits" in replay) == (2.0, False)
    with pytest.raises(ClientError) as e:
        ddb.transact_write_items(TransactItems=[{**check, "ConditionCheck": {
            **check["ConditionCheck"], "ConditionExpression": "attribute_not_exists(customer)"}}],
            ReturnConsumedCapacity="TOTAL")
    assert "ConsumedCapacity" not in e.value.response
