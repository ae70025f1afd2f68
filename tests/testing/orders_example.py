"""The README's "Testing with pytest" example (tests/testing/test_testing_plugin.py runs it with
pytester): the seed workflow with the protected worker, three executions, one order item."""

import json
from pathlib import Path

import pytest

import onceflow.examples.orders as orders

EXAMPLE = Path(orders.__file__).parent
TABLES = {"ORDERS_TABLE": "orders", "ATTEMPTS_TABLE": "attempts"}


def deploy(onceflow, worker):
    onceflow.create_table("orders")
    onceflow.create_table("attempts")
    onceflow.deploy_function("worker", source=EXAMPLE / worker, environment=TABLES)
    definition = (EXAMPLE / "workflow-template.json").read_text().replace("WORKER_NAME", "worker")
    return onceflow.deploy_state_machine("orders", json.loads(definition))


def test_a_retry_and_a_repeat_make_one_order(onceflow):
    deploy(onceflow, "protected")
    onceflow.skip_time()  # the Retry's 1 s interval ends at once
    order = {"id": "protected-order", "quantity": 4, "mode": "after-write"}
    first = onceflow.execute("orders", order, name="after-write-order")
    repeat = onceflow.execute("orders", order, name="repeated-order")
    other = onceflow.execute("orders", {"id": "different-order", "quantity": 1, "mode": "normal"})
    assert [first["status"], repeat["status"], other["status"]] == ["SUCCEEDED"] * 3
    failed = [e for e in onceflow.history(first["executionArn"]) if e["type"] == "TaskFailed"]
    assert [e["taskFailedEventDetails"]["error"] for e in failed] == ["TransientOrderError"]

    item = onceflow.client("dynamodb").get_item(TableName="orders", Key={"id": {"S": "protected-order"}})["Item"]
    assert item == {"id": {"S": "protected-order"}, "quantity": {"N": "4"}, "total_cents": {"N": "1100"}}
    assert onceflow.client("dynamodb").scan(TableName="orders")["Count"] == 2
    assert any("RESULT" in line for line in onceflow.logs("worker", contains="RESULT"))


@pytest.mark.parametrize("worker, safe", [("protected", True), ("starter", False)])
def test_the_workflow_is_proved(onceflow, worker, safe):
    pytest.importorskip("onceflow.prove.proof")  # the prover, where this onceflow has it
    deploy(onceflow, worker)
    # every lost answer, refused call, duplicate delivery and re-execution, each on a copy of the
    # store (needs --onceflow-data); the starter's unconditional write lets a re-execution with
    # another quantity replace the order
    report = onceflow.prove("orders", {"id": "o-1", "quantity": 2}, ignore_tables=["attempts"],
                            conflict_input={"id": "o-1", "quantity": 3})
    assert report.safe is safe, report.summary()
