"""Logs Insights over many stored events on one durable onceflow server: the time from StartQuery
to a Complete GetQueryResults, for a few query shapes.

    python bench/bench_logs_insights.py [--events 1000000] [--rounds 3]

Events are one per 3.6 ms over an hour (PutLogEvents batches of 10,000), half of them JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from typing import Any

import boto3
import botocore.config
from servers import spawn_onceflow

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=600)
QUERIES = {
    "stats count(*) by bin(1m)": "stats count(*) by bin(1m)",
    "filter like /ERROR/ | stats count(*) by bin(5m)": "filter @message like /ERROR/ | stats count(*) by bin(5m)",
    "stats avg(latency) by level (JSON fields)": "stats avg(latency) by level",
    "filter latency > 990 | fields ... | limit 20": "filter latency > 990 | fields @timestamp, latency | limit 20",
}


def fill(logs: Any, group: str, n: int, start_ms: int) -> float:
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    step = 3_600_000 / n
    t = time.perf_counter()
    for first in range(0, n, 10_000):
        batch = []
        for i in range(first, min(first + 10_000, n)):
            level = "ERROR" if i % 10 == 0 else "INFO"
            message = (json.dumps({"level": level, "latency": i % 1000}) if i % 2 else
                       f"{level} request {i} served in {i % 1000} ms")
            batch.append({"timestamp": start_ms + int(i * step), "message": message})
        logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=batch)
    return time.perf_counter() - t


def run_query(logs: Any, group: str, text: str, start_s: int) -> tuple[float, dict[str, Any]]:
    t = time.perf_counter()
    qid = logs.start_query(logGroupName=group, startTime=start_s, endTime=start_s + 3600, queryString=text)["queryId"]
    while True:
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            return time.perf_counter() - t, got
        time.sleep(0.02)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    start_s = (int(time.time()) // 3600 - 2) * 3600
    with tempfile.TemporaryDirectory(prefix="onceflow-bench-") as data:
        proc, url = spawn_onceflow(data)
        try:
            logs = boto3.client("logs", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                                aws_secret_access_key="test", config=CONFIG)
            loaded = fill(logs, "/bench", args.events, start_s * 1000)
            figures: dict[str, list[float]] = {k: [] for k in QUERIES}
            stats: dict[str, dict[str, Any]] = {}
            for _ in range(args.rounds):
                for name, text in QUERIES.items():
                    took, got = run_query(logs, "/bench", text, start_s)
                    assert got["status"] == "Complete", got["status"]
                    figures[name].append(took)
                    stats[name] = got["statistics"]
        finally:
            proc.kill()
    print(f"onceflow, durable data dir; {args.events:,} events loaded in {loaded:.1f} s; "
          f"StartQuery to Complete, median of {args.rounds} rounds")
    for name, vals in figures.items():
        m = statistics.median(vals)
        scanned, matched = stats[name]["recordsScanned"], stats[name]["recordsMatched"]
        print(f"  {name:48s} {m:7.2f} s   {scanned / m / 1e6:5.2f} M events/s   matched {matched:,.0f}")


if __name__ == "__main__":
    main()
