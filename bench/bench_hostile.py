"""How long one hostile request delays a cheap call from another client, on a real server.

    PYTHONPATH=src python bench/bench_hostile.py

A probe thread calls STS GetCallerIdentity every 50 ms on its own connection while one hostile
request runs (each kind below, one after the other); it reports how long that request took and
the worst probe latency meanwhile. Issue 12's target: no probe delayed by more than 100 ms.
Also times the query protocol's form parse of CreateRole with 10,000 tags in-process.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serverproc import ServerProcess


def signed(endpoint: str, signing: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
    request = AWSRequest("POST", endpoint + "/", data=body, headers=headers)
    SigV4Auth(Credentials("test", "test"), signing, "us-east-1").add_auth(request)
    return dict(request.headers.items())


def post(conn: http.client.HTTPConnection, endpoint: str, signing: str, body: bytes,
         headers: dict[str, str]) -> tuple[int, bytes]:
    conn.request("POST", "/", body=body, headers=signed(endpoint, signing, body, headers))
    resp = conn.getresponse()
    return resp.status, resp.read()


FORM = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}


def hostile(endpoint: str) -> dict[str, tuple[str, bytes, dict[str, str]]]:
    tags: dict[str, str] = {"Action": "CreateRole", "Version": "2010-05-08", "RoleName": "r",
                            "AssumeRolePolicyDocument": "{}"}
    for i in range(1, 10_001):
        tags[f"Tags.member.{i}.Key"] = f"k{i}"
        tags[f"Tags.member.{i}.Value"] = "v"
    ddb = {"X-Amz-Target": "DynamoDB_20120810.BatchGetItem", "Content-Type": "application/x-amz-json-1.0"}
    keys = {"RequestItems": {"ttt": {"Keys": [{"k": {"S": str(i)}} for i in range(100_000)]}}}
    return {
        "baseline: GetCallerIdentity": ("sts", b"Action=GetCallerIdentity&Version=2011-06-15", FORM),
        "CreateRole, 10,000 tags": ("iam", urllib.parse.urlencode(tags).encode(), FORM),
        "PutItem, JSON nested 1,000,000 deep": ("dynamodb", b"[" * 1_000_000 + b"]" * 1_000_000,
                                                {**ddb, "X-Amz-Target": "DynamoDB_20120810.PutItem"}),
        "BatchGetItem, 100,000 keys": ("dynamodb", json.dumps(keys).encode(), ddb),
    }


def probe_during(endpoint: str, signing: str, body: bytes, headers: dict[str, str]) -> tuple[int, float, float]:
    url = urllib.parse.urlsplit(endpoint)
    stop = threading.Event()
    worst = [0.0]

    def probe() -> None:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        form = b"Action=GetCallerIdentity&Version=2011-06-15"
        while not stop.is_set():
            start = time.perf_counter()
            post(conn, endpoint, "sts", form, FORM)
            worst[0] = max(worst[0], time.perf_counter() - start)
            time.sleep(0.05)

    thread = threading.Thread(target=probe)
    thread.start()
    time.sleep(0.3)
    worst[0] = 0.0
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
    start = time.perf_counter()
    status, _ = post(conn, endpoint, signing, body, headers)
    took = time.perf_counter() - start
    time.sleep(0.2)
    stop.set()
    thread.join()
    return status, took, worst[0]


def form_parse_seconds() -> float:
    from onceflow.wire import query
    from onceflow.wire.specs import Specs

    iam = Specs().services["iam"]
    fields: dict[str, Any] = {"RoleName": "r", "AssumeRolePolicyDocument": "{}"}
    for i in range(1, 10_001):
        fields[f"Tags.member.{i}.Key"] = f"k{i}"
        fields[f"Tags.member.{i}.Value"] = "v"
    start = time.perf_counter()
    try:
        query.parse(iam, iam.operations["CreateRole"], fields, "ValidationError")
    except Exception:  # the 50-tag limit: the point is the time to find out
        pass
    return time.perf_counter() - start


def main() -> None:
    print(f"form parse, CreateRole with 10,000 tags (in-process): {form_parse_seconds() * 1000:.0f} ms")
    server = ServerProcess().start()
    try:
        for name, (signing, body, headers) in hostile(server.url).items():
            status, took, worst = probe_during(server.url, signing, body, headers)
            print(f"{name:40s} status {status}  took {took * 1000:7.0f} ms  worst probe {worst * 1000:6.1f} ms")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
