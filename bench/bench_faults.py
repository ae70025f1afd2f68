"""The cost of the fault check on a call no rule matches: GetItem with 100 rules loaded (on other
operations and services) next to none, on one server, in alternating rounds (the machine is noisy:
each round pair runs back to back, and the medians are compared). Also the check alone, in-process
(`Faults.watches` with 100 rules), next to the server's own time for a GetItem.

    python bench/bench_faults.py [--calls 2000] [--rounds 10]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import time
import timeit
import urllib.request
from pathlib import Path

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, str(Path(__file__).parent))
from servers import spawn_onceflow

TABLE = "bench-faults"


def rules(n: int) -> list[dict[str, object]]:
    """n rules, none on dynamodb GetItem: the unmatched call's case."""
    other = [("dynamodb", "PutItem"), ("dynamodb", "UpdateItem"), ("dynamodb", "Query"), ("lambda", "Invoke"),
             ("stepfunctions", "StartExecution"), ("logs", "PutLogEvents"), ("iam", "GetRole")]
    out: list[dict[str, object]] = []
    for i in range(n):
        service, operation = other[i % len(other)]
        out.append({"service": service, "operation": operation, "resource": f"bench-{i}-*",
                    "when": "after" if i % 2 else "before", "probability": 0.5, "seed": i})
    return out


def set_rules(url: str, body: list[dict[str, object]]) -> None:
    request = urllib.request.Request(f"{url}/_onceflow/faults", data=json.dumps(body).encode(), method="POST")
    urllib.request.urlopen(request, timeout=30).read()


def signed_get_item(url: str) -> tuple[dict[str, str], bytes]:
    body = json.dumps({"TableName": TABLE, "Key": {"id": {"S": "k"}}}).encode()
    req = AWSRequest("POST", url + "/", data=body, headers={
        "X-Amz-Target": "DynamoDB_20120810.GetItem", "Content-Type": "application/x-amz-json-1.0"})
    SigV4Auth(Credentials("test", "test"), "dynamodb", "us-east-1").add_auth(req)
    return dict(req.headers.items()), body


def round_us(conn: http.client.HTTPConnection, headers: dict[str, str], body: bytes, calls: int) -> float:
    """Median microseconds of `calls` GetItems on one kept-alive connection."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        conn.request("POST", "/", body, headers)
        response = conn.getresponse()
        response.read()
        times.append(time.perf_counter() - start)
        assert response.status == 200
    return statistics.median(times) * 1e6


def in_process_check_ns(n: int) -> float:
    from onceflow.faults.engine import Faults

    class Store:
        def all(self) -> list[object]:
            return []

        def replace(self, rules: object) -> None: ...

        def count(self, counts: object) -> None: ...

    faults = Faults(Store(), {}, {})  # type: ignore[arg-type]
    faults.replace(rules(n))
    loops = 1_000_000
    return min(timeit.repeat(lambda: faults.watches("dynamodb", "GetItem"), number=loops, repeat=5)) / loops * 1e9


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--rules", type=int, default=100)
    args = ap.parse_args()
    proc, url = spawn_onceflow(None)
    try:
        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                           aws_secret_access_key="test")
        ddb.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
        ddb.put_item(TableName=TABLE, Item={"id": {"S": "k"}, "v": {"S": "x" * 100}})
        headers, body = signed_get_item(url)
        host, port = url.split("//")[1].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port))
        round_us(conn, headers, body, args.calls)  # warm up
        none, loaded = [], []
        for _ in range(args.rounds):
            set_rules(url, [])
            none.append(round_us(conn, headers, body, args.calls))
            set_rules(url, rules(args.rules))
            loaded.append(round_us(conn, headers, body, args.calls))
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)
    a, b = statistics.median(none), statistics.median(loaded)
    check = in_process_check_ns(args.rules)
    print(f"GetItem p50 over HTTP, no rules:          {a:8.1f} us (median of {args.rounds} rounds x {args.calls})")
    print(f"GetItem p50 over HTTP, {args.rules} rules loaded: {b:8.1f} us  ({(b - a) / a * 100:+.2f}%)")
    print(f"the check alone (Faults.watches, {args.rules} rules): {check:6.1f} ns = "
          f"{check / 1000 / a * 100:.3f}% of a GetItem")


if __name__ == "__main__":
    main()
