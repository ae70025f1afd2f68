"""Benchmark: the execution page of an execution with about 1,000 history events.

Starts a real server, runs a loop workflow (Pass + Choice, 4 events per turn) to ~1,000 events, then
GETs the execution page and its status.json repeatedly and prints the server time (from the
Server-Timing header the console sets), the wall time over loopback, and the page weight.
Targets (issue 7): under 200 ms server time and under 500 KB.

    python tests/console/bench_execution_page.py [--events 1000] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import urllib.request
from pathlib import Path

import boto3

# tests/serverproc.py starts the server; found from tests/console/ or from bench/ alike.
ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tests" / "serverproc.py").exists())
sys.path.insert(0, str(ROOT / "tests"))
from serverproc import ServerProcess  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "console"))
from console_seed import LOOP  # noqa: E402

TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"},
                                                  "Action": "sts:AssumeRole"}]}



def get(url: str) -> tuple[float, float, int]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as resp:
        body = resp.read()
        timing = resp.headers.get("server-timing", "app;dur=0")
    wall = (time.perf_counter() - started) * 1000
    return float(timing.split("dur=")[1]), wall, len(body)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    server = ServerProcess().start()
    try:
        def client(name: str) -> object:
            return boto3.client(name, endpoint_url=server.url, region_name="us-east-1",
                                aws_access_key_id="test", aws_secret_access_key="test")

        iam, sfn = client("iam"), client("stepfunctions")
        role = iam.create_role(RoleName="bench", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
        arn = sfn.create_state_machine(name="bench", roleArn=role, definition=json.dumps(LOOP))["stateMachineArn"]
        turns = max(1, (args.events - 2) // 4)
        ex = sfn.start_execution(stateMachineArn=arn, name="loop", input=json.dumps({"n": 0, "limit": turns}))
        while sfn.describe_execution(executionArn=ex["executionArn"])["status"] == "RUNNING":
            time.sleep(0.2)
        pages = sfn.get_paginator("get_execution_history").paginate(executionArn=ex["executionArn"])
        count = sum(len(p["events"]) for p in pages)
        page = f"{server.url}/states/bench/executions/loop"
        for name, url in (("execution page", page), ("status.json", page + "/status.json")):
            get(url)  # warm up
            samples = [get(url) for _ in range(args.runs)]
            server_ms = statistics.median(s[0] for s in samples)
            wall_ms = statistics.median(s[1] for s in samples)
            print(f"{name}: {count} history events, median server {server_ms:.1f} ms, median wall {wall_ms:.1f} ms, "
                  f"max server {max(s[0] for s in samples):.1f} ms, weight {samples[0][2] / 1024:.1f} KB")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
