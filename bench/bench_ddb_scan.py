"""Scan throughput: a full paged Scan of a table, and one parallel-scan segment, on onceflow.

    python bench/bench_ddb_scan.py [--items 20000] [--rounds 3]

Run it with PYTHONPATH pointing at the onceflow to measure (e.g. a checkout before and after a
change of Scan's order) and compare the figures of the same machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import boto3
from servers import spawn_onceflow


def _scan(ddb: Any, table: str, **kw: Any) -> int:
    n = 0
    while True:
        got = ddb.scan(TableName=table, **kw)
        n += got["Count"]
        if "LastEvaluatedKey" not in got:
            return n
        kw["ExclusiveStartKey"] = got["LastEvaluatedKey"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    proc, url = spawn_onceflow(None)
    try:
        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                           aws_secret_access_key="test")
        ddb.create_table(TableName="scan", BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
        for start in range(0, args.items, 25):
            ddb.batch_write_item(RequestItems={"scan": [
                {"PutRequest": {"Item": {"pk": {"S": f"item-{i:08d}"}, "v": {"S": "x" * 100}}}}
                for i in range(start, min(start + 25, args.items))]})
        for label, kw in (("full scan", {}), ("segment 0 of 4", {"Segment": 0, "TotalSegments": 4})):
            times = []
            for _ in range(args.rounds):
                began = time.perf_counter()
                count = _scan(ddb, "scan", **kw)
                times.append(time.perf_counter() - began)
            best = statistics.median(times)
            print(f"{label:16} {count:7d} items  median {best:.3f} s  ({best / max(count, 1) * 1e6:.1f} us/item)")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
