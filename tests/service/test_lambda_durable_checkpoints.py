"""CheckpointDurableExecution's batches and its ClientToken, from a handler that checkpoints with boto3
itself: a child context's START and its children's in one batch (as the SDK's map sends them), the
refusals of a batch (a parent that is no context, one operation twice, EXECUTION not last) that leave
the execution as it was, and a retried checkpoint (same ClientToken and CheckpointToken) answered
again without being applied twice. With the durable execution SDK installed, its map of callbacks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from tests.service.test_lambda_durable import durable_function, history, sdk_function

APP = """
import json
import boto3
from botocore.exceptions import ClientError

lam = boto3.client("lambda")


def handler(event, context):
    arn, token = event["DurableExecutionArn"], event["CheckpointToken"]
    given = json.loads(event["InitialExecutionState"]["Operations"][0]["ExecutionDetails"]["InputPayload"])
    seen = []

    def checkpoint(*updates, client=None, token_used=None):
        nonlocal token
        extra = {"ClientToken": client} if client else {}
        try:
            out = lam.checkpoint_durable_execution(DurableExecutionArn=arn, CheckpointToken=token_used or token,
                                                   Updates=list(updates), **extra)
        except ClientError as exc:
            seen.append([exc.response["Error"]["Code"], exc.response["Error"]["Message"]])
            return None
        token = out.get("CheckpointToken")
        ops = sorted([op["Id"], op["Status"]] for op in out["NewExecutionState"]["Operations"])
        seen.append(ops)
        return out

    if given["mode"] == "batch":
        checkpoint({"Id": "group", "Type": "CONTEXT", "SubType": "Map", "Action": "START"},
                   {"Id": "item", "Type": "CONTEXT", "SubType": "MapIteration", "ParentId": "group", "Action": "START"},
                   {"Id": "cb", "Type": "CALLBACK", "ParentId": "item", "Action": "START"},
                   {"Id": "s", "Type": "STEP", "ParentId": "item", "Action": "START"},
                   {"Id": "s", "Type": "STEP", "ParentId": "item", "Action": "SUCCEED", "Payload": "1"})
        checkpoint({"Id": "w1", "Type": "WAIT", "ParentId": "ghost", "Action": "START",
                    "WaitOptions": {"WaitSeconds": 1}})
        checkpoint({"Id": "w2", "Type": "WAIT", "ParentId": "s", "Action": "START",
                    "WaitOptions": {"WaitSeconds": 1}})
        checkpoint({"Id": "w3", "Type": "WAIT", "Action": "START", "WaitOptions": {"WaitSeconds": 1}},
                   {"Id": "w3", "Type": "WAIT", "Action": "CANCEL"})
        checkpoint({"Id": "x", "Type": "EXECUTION", "Action": "SUCCEED", "Payload": "1"},
                   {"Id": "w4", "Type": "WAIT", "Action": "START", "WaitOptions": {"WaitSeconds": 1}})
        checkpoint({"Id": "s", "Type": "STEP", "Action": "START"})
        checkpoint({"Id": "cb", "Type": "CALLBACK", "Action": "START"})
        return {"Status": "SUCCEEDED", "Result": json.dumps(seen)}

    first = token
    checkpoint({"Id": "once", "Type": "STEP", "Action": "START"}, client="retry-1")
    after = token
    checkpoint({"Id": "once", "Type": "STEP", "Action": "START"}, client="retry-1", token_used=first)
    again = token
    checkpoint({"Id": "once", "Type": "STEP", "Action": "START"}, client="other", token_used=first)
    checkpoint({"Id": "once", "Type": "STEP", "Action": "SUCCEED", "Payload": "2"}, client="retry-2")
    return {"Status": "SUCCEEDED", "Result": json.dumps({"seen": seen, "same_token": after == again})}
"""

INVALID = "InvalidParameterValueException"
MAP_OF_CALLBACKS = """
from aws_durable_execution_sdk_python import DurableContext, durable_execution


def approve(ctx: DurableContext, item, index, items):
    return {"item": item, "answer": ctx.create_callback(name=f"approve-{index}").result()}


@durable_execution
def handler(event, context: DurableContext):
    return context.map(event["items"], approve, name="approvals").get_results()
"""


def run(aws: Callable[..., Any], mode: str) -> tuple[Any, list[dict[str, Any]]]:
    lam = aws("lambda")
    name, version = durable_function(aws, APP)
    out = lam.invoke(FunctionName=name, Qualifier=version, Payload=json.dumps({"mode": mode}).encode())
    assert "FunctionError" not in out, out["Payload"].read()
    return json.loads(out["Payload"].read()), history(lam, out["DurableExecutionArn"])


def test_a_batch_may_start_a_context_and_its_children_and_is_refused_whole(aws: Callable[..., Any]) -> None:
    seen, events = run(aws, "batch")
    assert seen == [
        [["cb", "STARTED"], ["group", "STARTED"], ["item", "STARTED"], ["s", "SUCCEEDED"]],
        [INVALID, "Invalid parent operation id."],  # no such operation
        [INVALID, "Invalid parent operation id."],  # a step is no context
        [INVALID, "Cannot checkpoint multiple operations with the same ID."],
        [INVALID, "EXECUTION checkpoint must be the last update."],
        [INVALID, "Invalid current STEP state to start."],
        [INVALID, "Cannot start a CALLBACK that already exist."],
    ]
    started = [(e["EventType"], e.get("Id"), e.get("ParentId")) for e in events if e["EventType"].endswith("Started")]
    assert started == [
        ("ExecutionStarted", events[0]["Id"], None), ("ContextStarted", "group", None),
        ("ContextStarted", "item", "group"), ("CallbackStarted", "cb", "item"), ("StepStarted", "s", "item"),
    ]  # fmt: skip
    # nothing of the refused batches: no wait was started


def test_a_retried_checkpoint_is_answered_again_and_applied_once(aws: Callable[..., Any]) -> None:
    result, events = run(aws, "client-token")
    started = [["once", "STARTED"]]
    assert result == {
        "seen": [started, started, [INVALID, "Invalid checkpoint token"], [["once", "SUCCEEDED"]]],
        "same_token": True,
    }
    assert [e["EventType"] for e in events if e.get("Id") == "once"] == ["StepStarted", "StepSucceeded"]


def test_the_sdk_maps_over_callbacks_completed_from_outside(aws: Callable[..., Any]) -> None:
    """The SDK's map sends a context's START with its children's in one checkpoint."""
    lam = aws("lambda")
    name = sdk_function(aws, MAP_OF_CALLBACKS)
    out = lam.invoke(FunctionName=name, Qualifier="$LATEST", InvocationType="Event",
                     Payload=json.dumps({"items": ["a", "b"]}).encode())  # fmt: skip
    arn = out["DurableExecutionArn"]
    answered: set[str] = set()
    deadline = time.monotonic() + 60
    while len(answered) < 2 and time.monotonic() < deadline:
        for event in history(lam, arn):
            if event["EventType"] == "CallbackStarted" and event["Id"] not in answered:
                cid = event["CallbackStartedDetails"]["CallbackId"]
                lam.send_durable_execution_callback_success(CallbackId=cid, Result=event["Name"].encode())
                answered.add(event["Id"])
        time.sleep(0.2)
    while lam.get_durable_execution(DurableExecutionArn=arn)["Status"] == "RUNNING" and time.monotonic() < deadline:
        time.sleep(0.2)
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert execution["Status"] == "SUCCEEDED", execution.get("Error")
    assert json.loads(execution["Result"]) == [{"item": "a", "answer": "approve-0"},
                                               {"item": "b", "answer": "approve-1"}]  # fmt: skip
    kinds = [(e["EventType"], e.get("Name")) for e in history(lam, arn) if e["EventType"].startswith("Context")]
    assert kinds[:3] == [("ContextStarted", "approvals"), ("ContextStarted", "map-item-0"),
                         ("ContextStarted", "map-item-1")]  # fmt: skip
    assert kinds[-1] == ("ContextSucceeded", "approvals")
