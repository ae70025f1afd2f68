"""Event-to-Lambda latency of event source mappings: an SQS queue and a DynamoDB stream, each
triggering a warm function, one event at a time (the next is sent once the last was seen).

    python bench/bench_lambda_esm.py [--n 50]

The function measures it: the time from the client's send (carried in the message body or the
item) to the handler's start, on the same machine's clock; the figures are read back from its log.
Baseline in the same run: a direct Invoke of the same function from the client (send-to-start too).
A stream poller waits for the stream's next record (the write wakes it) and an SQS poller waits
in the queue's long poll. Run it with PYTHONPATH=src to measure this checkout, not an installed one.
Measured (2 shared cores, --n 30): stream mapping p50 188.5 ms when the poller read an idle stream
every 0.25 s, 14.4 ms woken by the write (direct Invoke 15.4 ms, SQS mapping 29.8 ms).
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import tempfile
import time
import zipfile
from typing import Any

import boto3
import botocore.config
from servers import spawn_onceflow

APP = """
import json, time

def handler(event, context):
    now = time.time()
    for r in event.get("Records") or [event]:
        sent = r["body"] if "body" in r else (r["dynamodb"]["NewImage"]["t"]["S"] if "dynamodb" in r else r["t"])
        print("LAG %.6f" % (now - float(sent)))
"""
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def lags(url: str, function: str, count: int) -> list[float]:
    logs = client(url, "logs")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            out, token = [], None
            while True:
                kw = {"nextToken": token} if token else {}
                page = logs.filter_log_events(logGroupName=f"/aws/lambda/{function}", **kw)
                out += [float(e["message"].split()[1]) for e in page["events"] if e["message"].startswith("LAG ")]
                token = page.get("nextToken")
                if not token:
                    break
        except Exception:
            out = []
        if len(out) >= count:
            return out
        time.sleep(0.1)
    raise RuntimeError(f"only {len(out)} of {count} invocations seen")


def deploy(url: str, name: str) -> str:
    iam = client(url, "iam")
    role = iam.create_role(RoleName=f"r-{name}", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=f"r-{name}", PolicyName="all", PolicyDocument=json.dumps(POLICY))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    client(url, "lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                          Code={"ZipFile": buf.getvalue()})
    client(url, "lambda").invoke(FunctionName=name, Payload=json.dumps({"t": str(time.time())}).encode())  # warm
    return name


def one_at_a_time(url: str, function: str, n: int, send: Any) -> list[float]:
    for i in range(n):
        send()
        lags(url, function, i + 2)  # + the warm-up
    return lags(url, function, n + 1)[1:]


def summary(name: str, values: list[float]) -> None:
    ms = sorted(v * 1000 for v in values)
    print(f"{name:<22}{len(ms):>5}{statistics.median(ms):>10.1f}{ms[int(len(ms) * 0.95) - 1]:>10.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        proc, url = spawn_onceflow(data)
        try:
            print(f"{'path':<22}{'n':>5}{'p50 ms':>10}{'p95 ms':>10}", flush=True)
            direct = deploy(url, "direct")
            lam = client(url, "lambda")
            summary("direct Invoke", one_at_a_time(url, direct, args.n, lambda: lam.invoke(
                FunctionName=direct, Payload=json.dumps({"t": str(time.time())}).encode())))

            fn = deploy(url, "from-sqs")
            sqs = client(url, "sqs")
            q = sqs.create_queue(QueueName="bench")["QueueUrl"]
            arn = sqs.get_queue_attributes(QueueUrl=q, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
            lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=fn, BatchSize=1)
            time.sleep(1.0)  # the pollers are in their long poll
            summary("SQS mapping", one_at_a_time(url, fn, args.n, lambda: sqs.send_message(
                QueueUrl=q, MessageBody=str(time.time()))))

            fn = deploy(url, "from-stream")
            ddb = client(url, "dynamodb")
            stream = ddb.create_table(
                TableName="bench", BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
            )["TableDescription"]["LatestStreamArn"]
            lam.create_event_source_mapping(EventSourceArn=stream, FunctionName=fn, StartingPosition="LATEST",
                                            BatchSize=1)
            summary("DynamoDB stream mapping", one_at_a_time(url, fn, args.n, lambda: ddb.put_item(
                TableName="bench", Item={"id": {"S": "k"}, "t": {"S": str(time.time())}})))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
