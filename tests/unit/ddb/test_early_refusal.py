"""A single-item write whose condition fails is refused from a reader's snapshot, before any write
transaction (service._refuse_early); a bad request is still refused as such first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from onceflow.ddb.service import DynamoDB
from onceflow.ddb.store import MIGRATIONS
from onceflow.ddb.values import dumps
from onceflow.errors import ServiceError
from onceflow.store.db import Database

A, R = "123456789012", "us-east-1"
KEY = {"pk": {"S": "a"}}
FAILS = {"ConditionExpression": "attribute_not_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}


@pytest.fixture
def svc(tmp_path: Any) -> Iterator[DynamoDB]:
    db = Database(str(tmp_path / "d.db"))  # on disk: reads go through the readers' connections
    db.migrate(MIGRATIONS)
    service = DynamoDB(db)
    service.create_table(A, R, {"TableName": "t", "BillingMode": "PAY_PER_REQUEST",
                                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})
    service.put_item(A, R, {"TableName": "t", "Item": {**KEY, "v": {"N": "1"}}})
    yield service
    db.close()


def no_transactions(svc: DynamoDB, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> None:
        raise AssertionError("a write transaction was opened")

    monkeypatch.setattr(svc.db, "transaction", refused)


@pytest.mark.parametrize("call", [
    lambda s: s.put_item(A, R, {"TableName": "t", "Item": {**KEY, "v": {"N": "2"}}, **FAILS}),
    lambda s: s.delete_item(A, R, {"TableName": "t", "Key": KEY, **FAILS}),
    lambda s: s.update_item(A, R, {"TableName": "t", "Key": KEY, "UpdateExpression": "SET v = :two",
                                   "ExpressionAttributeValues": {":two": {"N": "2"}}, **FAILS}),
], ids=["put", "delete", "update"])
def test_a_failing_condition_is_refused_without_a_write_transaction(svc: DynamoDB, call: Any,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    no_transactions(svc, monkeypatch)
    with pytest.raises(ServiceError) as refused:
        call(svc)
    assert refused.value.code == "ConditionalCheckFailedException"
    monkeypatch.undo()
    assert svc.get_item(A, R, {"TableName": "t", "Key": KEY})["Item"]["v"] == {"N": "1"}


def test_a_bad_item_is_refused_as_such_even_when_its_condition_fails(svc: DynamoDB,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    no_transactions(svc, monkeypatch)
    with pytest.raises(ServiceError) as refused:
        svc.put_item(A, R, {"TableName": "t", "Item": {**KEY, "big": {"S": "x" * 410_000}}, **FAILS})
    assert refused.value.code == "ValidationException"


def test_a_condition_that_holds_on_the_snapshot_is_checked_again_in_the_transaction(
        svc: DynamoDB, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = dumps({**KEY, "v": {"N": "1"}})  # the item as a snapshot taken before the next write holds it
    svc.put_item(A, R, {"TableName": "t", "Item": {**KEY, "v": {"N": "3"}}})  # a write the snapshot missed
    monkeypatch.setattr(svc.store, "read", lambda *key: stale)
    with pytest.raises(ServiceError) as refused:
        svc.put_item(A, R, {"TableName": "t", "Item": {**KEY, "v": {"N": "4"}}, "ConditionExpression": "v = :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}})
    assert refused.value.code == "ConditionalCheckFailedException"
    monkeypatch.undo()
    assert svc.get_item(A, R, {"TableName": "t", "Key": KEY})["Item"]["v"] == {"N": "3"}
