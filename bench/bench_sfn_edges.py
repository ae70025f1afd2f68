"""Step Functions' hard edges, measured (issue 12, points 4 and 5):

    python bench/bench_sfn_edges.py [--loops 10] [--executions 200]

- a JSONata loop with TimeoutSeconds 2: how long after its timeout the execution is TIMED_OUT;
- with N looping executions running: a trivial execution's start-to-SUCCEEDED time, the server's
  CPU use while they loop and after StopExecution ends them, and SIGTERM-to-exit time;
- a kill -9 round: N executions (a Wait, then a Lambda task that marks its entry in a file, sleeps
  0.2 s and writes once to DynamoDB; no Retry), killed after 30 handlers entered; after the
  restart: FAILED ones, ones whose handler never ran among them, duplicates, lost ones, re-run ones.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

import boto3
import botocore.config
from servers import spawn_onceflow

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120)
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
    "Service": ["states.amazonaws.com", "lambda.amazonaws.com"]}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
LOOP = "{% ($f := function($n){ $f($n+1) }; $f(0)) %}"
HANDLER = """import os, time, uuid
import boto3

ddb = boto3.client("dynamodb")


def handler(event, context):
    key = event["key"]
    open(os.path.join(os.environ["ENTRIES"], key + "." + uuid.uuid4().hex), "x").close()
    time.sleep(0.2)
    ddb.update_item(TableName=os.environ["TABLE"], Key={"id": {"S": key}}, UpdateExpression="ADD n :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    return {"key": key}
"""


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def role(url: str) -> str:
    iam = client(url, "iam")
    name = f"edges-{uuid.uuid4().hex[:6]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


def machine(url: str, role_arn: str, definition: dict[str, Any]) -> str:
    return client(url, "stepfunctions").create_state_machine(
        name=f"edges-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition), roleArn=role_arn)["stateMachineArn"]


def wait_done(sfn: Any, arn: str, timeout: float = 300) -> dict[str, Any]:
    deadline = time.time() + timeout
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING" and time.time() < deadline:
        time.sleep(0.02)
    return d


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loops(n: int) -> None:
    proc, url = spawn_onceflow(None)
    try:
        sfn, r = client(url, "stepfunctions"), role(url)
        spin = {"QueryLanguage": "JSONata", "StartAt": "Spin", "States": {"Spin": {"Type": "Pass", "Output": LOOP,
                                                                                     "End": True}}}
        timed = machine(url, r, {**spin, "TimeoutSeconds": 2})
        t0 = time.perf_counter()
        d = wait_done(sfn, sfn.start_execution(stateMachineArn=timed)["executionArn"])
        late = time.perf_counter() - t0 - 2  # as a client polling every 20 ms sees it
        print(f"JSONata loop, TimeoutSeconds 2: {d['status']} seen {late * 1000:.0f} ms after the timeout")
        forever = machine(url, r, spin)
        arns = [sfn.start_execution(stateMachineArn=forever)["executionArn"] for _ in range(n)]
        time.sleep(1)
        trivial = machine(url, r, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
        t0 = time.perf_counter()
        d = wait_done(sfn, sfn.start_execution(stateMachineArn=trivial)["executionArn"])
        print(f"{n} loops running: a trivial execution {d['status']} in {(time.perf_counter() - t0) * 1000:.0f} ms")
        c0 = cpu_seconds(proc.pid)
        time.sleep(2)
        print(f"server CPU while {n} loop: {(cpu_seconds(proc.pid) - c0) / 2:.2f} cores")
        for arn in arns:
            sfn.stop_execution(executionArn=arn)
        time.sleep(0.5)
        c0 = cpu_seconds(proc.pid)
        time.sleep(2)
        print(f"server CPU after StopExecution of all: {(cpu_seconds(proc.pid) - c0) / 2:.2f} cores")
        arns = [sfn.start_execution(stateMachineArn=forever)["executionArn"] for _ in range(n)]
        time.sleep(1)
        t0 = time.perf_counter()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(60)
        print(f"SIGTERM with {n} loops running: exit {rc} after {(time.perf_counter() - t0) * 1000:.0f} ms")
    finally:
        if proc.poll() is None:
            proc.kill()


def kill9(n: int) -> None:
    data = tempfile.mkdtemp(prefix="edges-")
    entries = Path(tempfile.mkdtemp(prefix="edges-entries-"))
    proc, url = spawn_onceflow(data)
    r = role(url)
    table = f"effects-{uuid.uuid4().hex[:6]}"
    client(url, "dynamodb").create_table(TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                                         BillingMode="PAY_PER_REQUEST")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", HANDLER)
    lam = client(url, "lambda")
    fn = lam.create_function(FunctionName=f"edges-{uuid.uuid4().hex[:6]}", Runtime="python3.12", Role=r,
                             Handler="fn.handler", Code={"ZipFile": buf.getvalue()}, Timeout=60,
                             Environment={"Variables": {"ENTRIES": str(entries), "TABLE": table}})["FunctionArn"]
    sm = machine(url, r, {"StartAt": "W", "States": {
        "W": {"Type": "Wait", "Seconds": 1, "Next": "T"},
        "T": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "OutputPath": "$.Payload",
              "Parameters": {"FunctionName": fn, "Payload": {"key.$": "$$.Execution.Name"}}, "End": True}}})
    sfn = client(url, "stepfunctions")
    arns = {f"e{i:04d}": sfn.start_execution(stateMachineArn=sm, name=f"e{i:04d}")["executionArn"] for i in range(n)}
    while len(list(entries.iterdir())) < 30:
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    killed = time.time()
    proc, url = spawn_onceflow(data)
    try:
        sfn = client(url, "stepfunctions")
        t0 = time.perf_counter()
        described = {name: wait_done(sfn, arn) for name, arn in arns.items()}
        took = time.perf_counter() - t0
        effects = {i["id"]["S"]: int(i["n"]["N"]) for i in client(url, "dynamodb").scan(TableName=table)["Items"]}
        entered: dict[str, int] = {}
        for f in entries.iterdir():
            entered[f.name.split(".", 1)[0]] = entered.get(f.name.split(".", 1)[0], 0) + 1
        failed = [k for k, d in described.items() if d["status"] == "FAILED"]
        rerun = 0
        for name, arn in arns.items():
            if described[name]["status"] == "SUCCEEDED":
                h = sfn.get_execution_history(executionArn=arn)["events"]
                started = next(e for e in h if e["type"] == "TaskStarted")
                rerun += started["timestamp"].timestamp() < killed
        lost = sum(1 for d in described.values() if d["status"] == "RUNNING")
        print(f"kill -9 round, {n} executions: all finished {took:.1f} s after the restart; "
              f"FAILED {len(failed)} (of which handler never ran: {sum(1 for k in failed if not entered.get(k))}); "
              f"duplicate entries {sum(1 for v in entered.values() if v > 1)}, duplicate effects "
              f"{sum(1 for v in effects.values() if v > 1)}; lost {lost}; "
              f"started before the crash and made after it: {rerun}")
    finally:
        proc.kill()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loops", type=int, default=10)
    ap.add_argument("--executions", type=int, default=200)
    args = ap.parse_args()
    loops(args.loops)
    kill9(args.executions)


if __name__ == "__main__":
    main()
