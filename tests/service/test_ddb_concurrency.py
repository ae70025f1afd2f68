"""Atomic conditional writes under contention, and durability of acknowledged writes across kill -9."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import botocore.config

from serverproc import client_factory

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=64)


def client(url: str) -> Any:
    return client_factory(url)("dynamodb", config=CONFIG)


def make_table(ddb: Any) -> str:
    n = f"race-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    return n


def test_fifty_clients_race_one_conditional_put(endpoint: str) -> None:
    clients = [client(endpoint) for _ in range(50)]
    table = make_table(clients[0])
    barrier = threading.Barrier(50)
    wins: list[int] = []
    losses: list[dict[str, Any]] = []
    other: list[BaseException] = []

    def run(i: int) -> None:
        c = clients[i]
        barrier.wait()
        try:
            c.put_item(TableName=table, Item={"id": {"S": "order-1"}, "writer": {"N": str(i)}},
                       ConditionExpression="attribute_not_exists(id)", ReturnValuesOnConditionCheckFailure="ALL_OLD")
            wins.append(i)
        except c.exceptions.ConditionalCheckFailedException as e:
            losses.append(e.response["Item"])
        except BaseException as e:  # reported by the assertion below
            other.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert other == []
    assert len(wins) == 1 and len(losses) == 49
    winner = {"id": {"S": "order-1"}, "writer": {"N": str(wins[0])}}
    assert all(item == winner for item in losses)
    assert clients[0].get_item(TableName=table, Key={"id": {"S": "order-1"}})["Item"] == winner


def test_concurrent_counter_adds_are_not_lost(endpoint: str) -> None:
    clients = [client(endpoint) for _ in range(8)]
    table = make_table(clients[0])

    def run(c: Any) -> None:
        for _ in range(25):
            c.update_item(TableName=table, Key={"id": {"S": "n"}}, UpdateExpression="ADD hits :one",
                          ExpressionAttributeValues={":one": {"N": "1"}})

    threads = [threading.Thread(target=run, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert clients[0].get_item(TableName=table, Key={"id": {"S": "n"}})["Item"]["hits"] == {"N": "200"}


def test_acknowledged_writes_survive_kill_9(server_factory: Any, tmp_path: Any) -> None:
    data = tmp_path / "ddb-data"
    srv = server_factory(data)
    c = client(srv.url)
    table = make_table(c)
    for i in range(200):
        c.put_item(TableName=table, Item={"id": {"S": f"k{i}"}, "n": {"N": str(i)}})
    c.update_item(TableName=table, Key={"id": {"S": "k7"}}, UpdateExpression="ADD n :x",
                  ExpressionAttributeValues={":x": {"N": "1000"}})
    c.delete_item(TableName=table, Key={"id": {"S": "k8"}})
    c.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"id": {"S": "tx1"}}}},
        {"Update": {"TableName": table, "Key": {"id": {"S": "k9"}}, "UpdateExpression": "SET done = :t",
                    "ExpressionAttributeValues": {":t": {"BOOL": True}}}}])
    c.batch_write_item(RequestItems={table: [{"PutRequest": {"Item": {"id": {"S": f"b{i}"}}}} for i in range(25)]})
    srv.kill()
    srv2 = server_factory(data)
    c2 = client(srv2.url)
    assert c2.describe_table(TableName=table)["Table"]["ItemCount"] == 199 + 1 + 25
    assert c2.get_item(TableName=table, Key={"id": {"S": "k9"}})["Item"]["done"] == {"BOOL": True}
    assert "Item" in c2.get_item(TableName=table, Key={"id": {"S": "b24"}})
    assert c2.get_item(TableName=table, Key={"id": {"S": "k7"}})["Item"]["n"] == {"N": "1007"}
    assert "Item" not in c2.get_item(TableName=table, Key={"id": {"S": "k8"}})
    assert c2.get_item(TableName=table, Key={"id": {"S": "k199"}})["Item"]["n"] == {"N": "199"}


def test_racing_transactions_commit_once(endpoint: str) -> None:
    clients = [client(endpoint) for _ in range(20)]
    table = make_table(clients[0])
    barrier = threading.Barrier(20)
    outcomes: list[str] = []

    def run(i: int) -> None:
        c = clients[i]
        barrier.wait()
        try:
            c.transact_write_items(TransactItems=[
                {"Put": {"TableName": table, "Item": {"id": {"S": "slot"}, "owner": {"N": str(i)}},
                         "ConditionExpression": "attribute_not_exists(id)"}},
                {"Update": {"TableName": table, "Key": {"id": {"S": "claims"}}, "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
            outcomes.append("won")
        except c.exceptions.TransactionCanceledException as e:
            outcomes.append(e.response["CancellationReasons"][0]["Code"])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ConditionalCheckFailed"] * 19 + ["won"]
    assert clients[0].get_item(TableName=table, Key={"id": {"S": "claims"}})["Item"]["n"] == {"N": "1"}
