"""S3: PutObject/GetObject of 1 KB (ops/s, one boto3 client) and of 100 MB (MB/s each way, and the
server's peak RSS above its idle RSS during the transfer), onceflow on a data folder (durable: each
put waits for its fsync) and with --in-memory, side by side with moto's server (in memory), in the
same run.

    python bench/bench_s3.py [--ops 500] [--mb 100] [--rounds 3]

The 1 KB figures are the median of `--rounds` rounds that take the servers in turn (this machine's
load swings from one second to the next); the 100 MB transfer runs once per server.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import boto3
import botocore.config

sys.path.insert(0, str(Path(__file__).parent))
from servers import spawn_moto, spawn_onceflow

CONFIG = botocore.config.Config(retries={"max_attempts": 1}, read_timeout=300)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Peak:
    """The highest RSS of a process while the block runs (sampled every 10 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.stop = pid, 0, threading.Event()

    def __enter__(self) -> Peak:
        def sample() -> None:
            while not self.stop.is_set():
                self.peak = max(self.peak, rss_kb(self.pid))
                self.stop.wait(0.01)

        self.thread = threading.Thread(target=sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.stop.set()
        self.thread.join()


def client(url: str) -> Any:
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def small_ops(url: str, ops: int, round_: int) -> tuple[float, float]:
    s3 = client(url)
    bucket = f"bench-small-{round_}"
    s3.create_bucket(Bucket=bucket)
    body = os.urandom(1024)
    for i in range(20):  # warm up connections and caches
        s3.put_object(Bucket=bucket, Key=f"warm{i}", Body=body)
        s3.get_object(Bucket=bucket, Key=f"warm{i}")["Body"].read()
    start = time.perf_counter()
    for i in range(ops):
        s3.put_object(Bucket=bucket, Key=f"k{i}", Body=body)
    put = ops / (time.perf_counter() - start)
    start = time.perf_counter()
    for i in range(ops):
        s3.get_object(Bucket=bucket, Key=f"k{i}")["Body"].read()
    get = ops / (time.perf_counter() - start)
    return put, get


def big_transfer(url: str, pid: int, mb: int, source: Path) -> dict[str, float]:
    s3 = client(url)
    s3.create_bucket(Bucket="bench-big")
    s3.put_object(Bucket="bench-big", Key="warm", Body=b"x")
    time.sleep(0.5)
    idle = rss_kb(pid)
    with Peak(pid) as up, source.open("rb") as f:
        start = time.perf_counter()
        s3.put_object(Bucket="bench-big", Key="big", Body=f)  # a file: the client streams it too
        put_s = time.perf_counter() - start
    with Peak(pid) as down:
        start = time.perf_counter()
        body = s3.get_object(Bucket="bench-big", Key="big")["Body"]
        got = 0
        while piece := body.read(1024 * 1024):
            got += len(piece)
        get_s = time.perf_counter() - start
    assert got == mb * 1024 * 1024
    return {"put_mb_s": mb / put_s, "get_mb_s": mb / get_s, "idle_mb": idle / 1024,
            "put_rss_mb": (up.peak - idle) / 1024, "get_rss_mb": (down.peak - idle) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=500)
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "big.bin"
        with source.open("wb") as f:
            for _ in range(args.mb):
                f.write(os.urandom(1024 * 1024))
        once, once_url = spawn_onceflow(str(Path(tmp) / "data"))
        mem, mem_url = spawn_onceflow(None)
        moto, moto_url = spawn_moto()
        servers = (("onceflow", once_url, once), ("in-memory", mem_url, mem), ("moto", moto_url, moto))
        try:
            rates: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in servers}
            for round_ in range(args.rounds):
                for name, url, _ in servers:
                    rates[name].append(small_ops(url, args.ops, round_))
            results = {}
            for name, url, proc in servers:
                results[name] = {"put_ops": statistics.median(p for p, _ in rates[name]),
                                 "get_ops": statistics.median(g for _, g in rates[name]),
                                 **big_transfer(url, proc.pid, args.mb, source)}
        finally:
            for proc in (once, mem, moto):
                proc.terminate()
                proc.wait(30)
    o, i, m = results["onceflow"], results["in-memory"], results["moto"]
    print(f"{'':34}{'onceflow':>10}{'x moto':>8}{'in-memory':>11}{'x moto':>8}{'moto':>10}")
    rows = [("PutObject 1 KB ops/s", "put_ops"), ("GetObject 1 KB ops/s", "get_ops"),
            (f"PutObject {args.mb} MB MB/s", "put_mb_s"), (f"GetObject {args.mb} MB MB/s", "get_mb_s"),
            ("server RSS idle MB", "idle_mb"), (f"RSS above idle, {args.mb} MB put", "put_rss_mb"),
            (f"RSS above idle, {args.mb} MB get", "get_rss_mb")]
    for label, key in rows:
        ratio, mem_ratio = (o[key] / m[key], i[key] / m[key]) if m[key] else (float("nan"), float("nan"))
        print(f"{label:34}{o[key]:>10.1f}{ratio:>7.2f}x{i[key]:>11.1f}{mem_ratio:>7.2f}x{m[key]:>10.1f}")


if __name__ == "__main__":
    main()
