"""PartiQL SELECT by key next to GetItem, and a write to a table with a stream next to one without,
on one durable onceflow server, in alternating rounds (the machine is noisy: read the ratios).

    python bench/bench_ddb_partiql.py [--ops 500] [--rounds 3]

Cells: GetItem; ExecuteStatement `SELECT * ... WHERE pk = ?`; PutItem on a table without a stream;
PutItem on a table with a NEW_AND_OLD_IMAGES stream; GetRecords of 100 records.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import boto3
import botocore.config
from servers import spawn_onceflow

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"})


def client(url: str, service: str = "dynamodb") -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def make(c: Any, name: str, stream: bool) -> str | None:
    kw: dict[str, Any] = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
    d = c.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], **(kw if stream else {}))
    return d["TableDescription"].get("LatestStreamArn")  # type: ignore[no-any-return]


def p50(fn: Callable[[int], Any], n: int) -> float:
    times = []
    for i in range(n):
        t = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="onceflow-bench-") as data:
        proc, url = spawn_onceflow(data)
        try:
            c, s = client(url), client(url, "dynamodbstreams")
            make(c, "plain", False)
            arn = make(c, "streamed", True)
            item = {"pk": {"S": "k"}, "v": {"S": "x" * 100}}
            c.put_item(TableName="plain", Item=item)
            for i in range(100):
                c.put_item(TableName="streamed", Item={**item, "pk": {"S": f"r{i}"}})
            shard = s.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
            cells: dict[str, Callable[[int], Any]] = {
                "GetItem": lambda i: c.get_item(TableName="plain", Key={"pk": {"S": "k"}}),
                "ExecuteStatement SELECT by key": lambda i: c.execute_statement(
                    Statement='SELECT * FROM "plain" WHERE pk = ?', Parameters=[{"S": "k"}]),
                "PutItem, no stream": lambda i: c.put_item(TableName="plain", Item={**item, "pk": {"S": f"p{i}"}}),
                "PutItem, stream": lambda i: c.put_item(TableName="streamed", Item={**item, "pk": {"S": f"s{i}"}}),
                "GetShardIterator + GetRecords (100)": lambda i: s.get_records(
                    Limit=100, ShardIterator=s.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                                                  ShardIteratorType="TRIM_HORIZON")["ShardIterator"]),
            }
            figures: dict[str, list[float]] = {k: [] for k in cells}
            for _ in range(args.rounds):
                for name, fn in cells.items():
                    figures[name].append(p50(fn, args.ops))
        finally:
            proc.kill()
    print(f"onceflow, durable data dir; {args.ops} calls x {args.rounds} alternating rounds; p50 ms (median of rounds)")
    base = statistics.median(figures["GetItem"])
    for name, vals in figures.items():
        m = statistics.median(vals)
        print(f"  {name:34s} {m:7.3f}   x GetItem {m / base:5.2f}")


if __name__ == "__main__":
    main()
