"""The effect ledger in a stack built as `onceflow serve` builds it (in memory, no wire): what it
keeps for a task call's write, what it skips, and a recorder another service registers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from onceflow.config import Settings
from onceflow.context import TASK_CALL, Principal, RequestContext
from onceflow.prove import recorders
from onceflow.prove.recorders import Effect
from onceflow.server import build_stack
from onceflow.stack import Stack

EXECUTION = "arn:aws:states:us-east-1:000000000000:execution:m:e"


@pytest.fixture
def stack() -> Iterator[Stack]:
    built = build_stack(Settings(port=0, in_memory=True))
    call(built, "dynamodb", "CreateTable", {
        "TableName": "orders", "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"},
                                 {"AttributeName": "line", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}, {"AttributeName": "line", "KeyType": "RANGE"}]})
    yield built
    for hook in reversed(built.on_shutdown):
        hook()
    built.db.close()


def call(stack: Stack, service: str, operation: str, params: dict[str, Any], task: tuple[str, int] | None = None,
         ) -> Any:
    handler = stack.registry.get(service, operation)
    assert handler is not None
    ctx = RequestContext(service, operation, "000000000000", "us-east-1", Principal.root("000000000000"))
    token = TASK_CALL.set(task)
    try:
        return handler(ctx, params)
    finally:
        TASK_CALL.reset(token)


def item(order: str, line: int, **more: Any) -> dict[str, Any]:
    return {"id": {"S": order}, "line": {"N": str(line)}, **more}


def test_a_task_calls_writes_are_kept_with_its_task_and_each_items_key(stack: Stack) -> None:
    task = (EXECUTION, 7)
    call(stack, "dynamodb", "PutItem", {"TableName": "orders", "Item": item("o", 1, qty={"N": "2"})}, task)
    call(stack, "dynamodb", "PutItem", {"TableName": "orders", "Item": item("o", 3)}, task)
    call(stack, "dynamodb", "TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": "orders", "Item": item("o", 2)}},
        {"ConditionCheck": {"TableName": "orders", "Key": item("o", 3), "ConditionExpression": "attribute_exists(id)"}},
        {"Delete": {"TableName": "orders", "Key": item("o", 1)}}]}, task)
    writes = stack.services["ledger"].writes_of(EXECUTION)
    assert [(w["operation"], w["via"], w["key"], w["taskId"]) for w in writes] == [
        ("PutItem", "PutItem", '{"id":{"S":"o"},"line":{"N":"1"}}', 7),
        ("PutItem", "PutItem", '{"id":{"S":"o"},"line":{"N":"3"}}', 7),
        ("PutItem", "TransactWriteItems", '{"id":{"S":"o"},"line":{"N":"2"}}', 7),
        ("DeleteItem", "TransactWriteItems", '{"id":{"S":"o"},"line":{"N":"1"}}', 7)]  # no row for the check


def test_a_write_no_task_made_and_a_refused_write_are_not_kept(stack: Stack) -> None:
    call(stack, "dynamodb", "PutItem", {"TableName": "orders", "Item": item("script", 1)})  # a root script
    with pytest.raises(Exception, match="conditional request failed"):
        call(stack, "dynamodb", "PutItem", {"TableName": "orders", "Item": item("script", 1),
                                            "ConditionExpression": "attribute_not_exists(id)"}, (EXECUTION, 9))
    assert stack.services["ledger"].writes_of(EXECUTION) == []
    assert stack.db.query("SELECT COUNT(*) FROM prove_ledger")[0][0] == 0


def test_another_service_plugs_its_writes_in_with_a_recorder() -> None:
    """The extension point: a service registers (service, operation) -> effects before the ledger
    is installed, and its writes are kept like DynamoDB's (Logs stands in for SQS/SNS/S3 here)."""
    def appended(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
        return [Effect(params["logGroupName"], "CreateLogGroup", {"logGroupName": params["logGroupName"]})]

    recorders.register("logs", "CreateLogGroup", appended)
    try:
        built = build_stack(Settings(port=0, in_memory=True))
        try:
            call(built, "logs", "CreateLogGroup", {"logGroupName": "/effects"}, (EXECUTION, 3))
            (write,) = built.services["ledger"].writes_of(EXECUTION)
            assert (write["service"], write["resource"], write["key"]) == ("logs", "/effects",
                                                                           '{"logGroupName":"/effects"}')
        finally:
            for hook in reversed(built.on_shutdown):
                hook()
            built.db.close()
    finally:
        del recorders.RECORDERS[("logs", "CreateLogGroup")]
