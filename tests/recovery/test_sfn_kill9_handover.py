"""kill -9 with many Lambda tasks in flight: a task whose call was never handed to a worker (still
queued) starts again after the restart as if nothing happened; only a call that reached its
worker may have run, and only such a task fails (Lambda.ServiceException, no Retry). Every
handler marks its entry in the test's EntryLog (which outlives the server) before its one
DynamoDB effect.

The hand-over is marked durably just before the call is written to its worker (the other order
could run a call twice), so a kill between the mark and the handler's first line fails a call
whose handler never ran: each such call held one of the server's workers at the kill, so failed
calls whose handler never ran are at most WORKERS, where a queued call reported lost would be one
of ~170. A call whose handler did run may fail too (its answer reached the server but was not yet
recorded at the kill, while its worker had already taken the next call): that is the promise kept
(the effect may have happened, so it is reported unknown), so those are not bounded by WORKERS."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from test_sfn_kill9 import assert_unbroken, client, events, machine, setup_role, until

from entry_log import MARK, EntryLog

EXECUTIONS = 200
WORKERS = 8  # --lambda-max-workers: calls in flight at the kill are at most this many
HANDLER = MARK + """import os, time
import boto3

ddb = boto3.client("dynamodb")


def handler(event, context):
    key = event["key"]
    mark(key)
    time.sleep(0.2)
    ddb.update_item(TableName=os.environ["TABLE"], Key={"id": {"S": key}}, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    return {"key": key}
"""


def function(url: str, role: str, entry_port: int, table: str) -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", HANDLER)
    lam = client(url, "lambda")
    name = f"k9h-{uuid.uuid4().hex[:8]}"
    arn = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="fn.handler",
                              Code={"ZipFile": buf.getvalue()}, Timeout=60,
                              Environment={"Variables": {"ENTRY_PORT": str(entry_port), "TABLE": table}})["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    return arn


def test_kill9_fails_only_calls_that_reached_a_worker(server_factory: Callable[..., Any], entry_log: EntryLog) -> None:
    server = server_factory(time_scale=1.0, extra_args=("--lambda-max-workers", str(WORKERS)))
    url = server.url
    role = setup_role(url)
    table = f"effects-{uuid.uuid4().hex[:6]}"
    client(url, "dynamodb").create_table(TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                                         BillingMode="PAY_PER_REQUEST")
    fn = function(url, role, entry_log.port, table)
    sm = machine(url, role, {"StartAt": "W", "States": {
        "W": {"Type": "Wait", "Seconds": 1, "Next": "T"},
        "T": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "OutputPath": "$.Payload",
              "Parameters": {"FunctionName": fn, "Payload": {"key.$": "$$.Execution.Name"}}, "End": True}}})
    sfn = client(url, "stepfunctions")
    names = [f"e{i:03d}" for i in range(EXECUTIONS)]
    arns = {n: sfn.start_execution(stateMachineArn=sm, name=n)["executionArn"] for n in names}
    until(lambda: len(entry_log.snapshot()) >= 30, 120)  # some done, some running, most still queued
    server.kill()
    killed_at = time.time()

    server = server_factory(server.data_dir, time_scale=1.0)
    sfn = client(server.url, "stepfunctions")
    until(lambda: all(sfn.describe_execution(executionArn=a)["status"] != "RUNNING" for a in arns.values()), 300)

    ddb = client(server.url, "dynamodb")
    effects = {i["id"]["S"]: int(i["n"]["N"]) for i in ddb.scan(TableName=table)["Items"]}
    entered: dict[str, int] = {}
    for key in entry_log.snapshot():
        entered[key] = entered.get(key, 0) + 1
    rerun = failed = lost_before_entry = 0
    for name, arn in arns.items():
        d = sfn.describe_execution(executionArn=arn)
        h = events(sfn, arn)
        assert_unbroken(h)  # no execution lost, one history each
        assert entered.get(name, 0) <= 1 and effects.get(name, 0) <= 1, f"{name} ran twice"
        if d["status"] == "FAILED":  # only a call handed to a worker is reported lost
            failed += 1
            lost_before_entry += entered.get(name) is None
            assert d["error"] == "Lambda.ServiceException" and "outcome of the call is unknown" in d["cause"]
        else:
            assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", {"key": name})
            assert entered.get(name) == effects.get(name) == 1
            started = next(e for e in h if e["type"] == "TaskStarted")
            rerun += started["timestamp"].timestamp() < killed_at  # started before the crash, made after it
    assert rerun > 0  # calls queued at the crash were made after the restart, not reported lost
    assert lost_before_entry <= WORKERS, f"{lost_before_entry} of {failed} lost never entered, {WORKERS} in flight"
