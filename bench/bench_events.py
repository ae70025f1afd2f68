"""Benchmark: EventBridge on onceflow.

- pattern matching (pure): matches per second of a compiled pattern with prefix, numeric, anything-but
  and $or against a typical event;
- PutEvents: calls per second (one entry, one matching rule with a Logs target) from one client, beside
  ListEventBuses on the same server as the per-call floor;
- event to target: p50/p95 from PutEvents' answer to the event's arrival in a CloudWatch Logs target
  (read back by polling FilterLogEvents, so the figure includes up to one poll interval of ~5 ms).

    python bench/bench_events.py [--calls 500] [--latency 50]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import timeit
from pathlib import Path

import boto3

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tests" / "serverproc.py").exists())
sys.path.insert(0, str(ROOT / "tests"))
from onceflow.patterns.event_pattern import compile_pattern  # noqa: E402
from serverproc import ServerProcess  # noqa: E402

PATTERN = json.dumps({"source": [{"prefix": "com.shop"}], "detail": {
    "total": [{"numeric": [">", 10, "<=", 1000]}], "currency": [{"anything-but": ["USD"]}],
    "$or": [{"tier": ["gold"]}, {"items": {"sku": [{"wildcard": "A-*"}]}}]}})
EVENT = {"version": "0", "id": "1", "detail-type": "Order Placed", "source": "com.shop.eu", "account": "0",
         "time": "2026-01-01T00:00:00Z", "region": "us-east-1", "resources": [],
         "detail": {"total": 120, "currency": "EUR", "tier": "silver", "items": [{"sku": "B-1"}, {"sku": "A-7"}]}}


def client(url: str, service: str) -> object:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=500)
    ap.add_argument("--latency", type=int, default=50)
    args = ap.parse_args()

    compiled = compile_pattern(PATTERN)
    assert compiled.matches(EVENT)
    n = 20000
    spent = timeit.timeit(lambda: compiled.matches(EVENT), number=n)
    print(f"pattern match: {n / spent:,.0f} matches/s ({spent / n * 1e6:.1f} us each)")

    server = ServerProcess(None).start()
    try:
        events, logs = client(server.url, "events"), client(server.url, "logs")
        logs.create_log_group(logGroupName="/bench")  # type: ignore[attr-defined]
        events.put_rule(Name="bench", EventPattern=json.dumps({"source": ["bench"]}))  # type: ignore[attr-defined]
        events.put_targets(Rule="bench", Targets=[{  # type: ignore[attr-defined]
            "Id": "l", "Arn": "arn:aws:logs:us-east-1:000000000000:log-group:/bench", "InputPath": "$.detail"}])
        entry = {"Source": "bench", "DetailType": "t", "Detail": '{"n": 0}'}
        calls = {
            "ListEventBuses (baseline: a read on the same server)": lambda: events.list_event_buses(),  # type: ignore[attr-defined]
            "PutEvents, 1 matching rule, 1 target": lambda: events.put_events(Entries=[entry]),  # type: ignore[attr-defined]
        }
        for label, call in calls.items():
            for _ in range(20):
                call()
            started = time.perf_counter()
            for _ in range(args.calls):
                call()
            spent = time.perf_counter() - started
            print(f"{label}, 1 client: {args.calls / spent:,.0f} calls/s ({spent / args.calls * 1000:.2f} ms each)")
        time.sleep(2)
        lags = []
        for i in range(args.latency):
            marker = f"lat-{i}"
            sent = time.perf_counter()
            events.put_events(Entries=[{**entry, "Detail": json.dumps({"m": marker})}])  # type: ignore[attr-defined]
            while True:
                found = logs.filter_log_events(logGroupName="/bench", filterPattern=f'"{marker}"')  # type: ignore[attr-defined]
                if found["events"]:
                    break
                time.sleep(0.005)
            lags.append((time.perf_counter() - sent) * 1000)
        lags.sort()
        print(f"event to Logs target: p50 {statistics.median(lags):.1f} ms, "
              f"p95 {lags[int(len(lags) * 0.95) - 1]:.1f} ms over {len(lags)} events")
    finally:
        server.kill()


if __name__ == "__main__":
    main()
