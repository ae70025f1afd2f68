"""SQS benchmark: SendMessage, ReceiveMessage and DeleteMessage throughput with 1 and 4 boto3
clients (one process each), onceflow (durable, on a data folder) side by side with moto's server
in the same run; and how soon a long poll (WaitTimeSeconds=20) answers after a send.

    python bench/bench_sqs.py [--ops 1000] [--clients 1,4] [--polls 20]

Each client works on a queue of its own: it sends `ops` messages, then receives them one call at a
time, then deletes them, timing each phase. ElasticMQ is not compared: it is a JVM server that no
registry reached here ships (PyPI, Debian, npm only have wrappers that download its jar).
The other SQS figure issue 19 asks for, event-to-Lambda latency of an SQS mapping, is bench_lambda_esm.py's.
"""

from __future__ import annotations

import argparse
import multiprocessing
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
from servers import spawn_moto, spawn_onceflow, wait_port

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=16,
                                read_timeout=60)
PHASES = ("SendMessage", "ReceiveMessage", "DeleteMessage")


def client(url: str) -> Any:
    return boto3.client("sqs", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def _worker(url: str, index: int, ops: int, start: Any, out: Any) -> None:
    sqs = client(url)
    queue = sqs.create_queue(QueueName=f"bench-{index}-{time.time_ns()}")["QueueUrl"]
    start.wait()
    timings: dict[str, list[float]] = {p: [] for p in PHASES}
    handles = []
    for i in range(ops):
        t = time.perf_counter()
        sqs.send_message(QueueUrl=queue, MessageBody=f"message {i}")
        timings["SendMessage"].append(time.perf_counter() - t)
    while len(handles) < ops:
        t = time.perf_counter()
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=1, VisibilityTimeout=600)
        timings["ReceiveMessage"].append(time.perf_counter() - t)
        handles += [m["ReceiptHandle"] for m in got.get("Messages", [])]
    for handle in handles:
        t = time.perf_counter()
        sqs.delete_message(QueueUrl=queue, ReceiptHandle=handle)
        timings["DeleteMessage"].append(time.perf_counter() - t)
    out.put(timings)


def throughput(url: str, clients: int, ops: int) -> dict[str, tuple[float, float]]:
    """phase -> (calls/s over all clients, p50 ms)."""
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, i, ops, start, out)) for i in range(clients)]
    for p in procs:
        p.start()
    time.sleep(2.0)  # let every client import boto3 and create its queue
    start.set()
    results = [out.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    summary = {}
    for phase in PHASES:
        samples = [s for r in results for s in r[phase]]
        # The phases run in step on every client; its rate is calls over the slowest client's time.
        slowest = max(sum(r[phase]) for r in results)
        summary[phase] = (len(samples) / slowest, statistics.median(samples) * 1000)
    return summary


def long_poll_latency(url: str, polls: int) -> list[float]:
    """ms from a send to the answer of a long poll already waiting on that queue."""
    sqs, sender = client(url), client(url)
    queue = sqs.create_queue(QueueName=f"bench-poll-{time.time_ns()}")["QueueUrl"]
    out = []
    for _ in range(polls):
        answered: dict[str, float] = {}

        def poll(answered: dict[str, float] = answered) -> None:
            got = sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=20)
            answered["t"] = time.perf_counter()
            for m in got.get("Messages", []):
                sqs.delete_message(QueueUrl=queue, ReceiptHandle=m["ReceiptHandle"])

        thread = threading.Thread(target=poll)
        thread.start()
        time.sleep(0.3)  # the poll is waiting by now
        sent = time.perf_counter()
        sender.send_message(QueueUrl=queue, MessageBody="now")
        thread.join(30)
        out.append((answered["t"] - sent) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops", type=int, default=1000)
    parser.add_argument("--clients", default="1,4")
    parser.add_argument("--polls", type=int, default=20)
    args = parser.parse_args()
    data = tempfile.mkdtemp(prefix="bench-sqs-")
    once_proc, once_url = spawn_onceflow(data)
    moto_proc, moto_url = spawn_moto()
    wait_port(moto_url)
    try:
        print(f"{'operation':<16}{'clients':>8}{'onceflow/s':>12}{'p50 ms':>8}{'moto/s':>10}{'p50 ms':>8}"
              f"{'x moto':>8}", flush=True)
        for n in (int(c) for c in args.clients.split(",")):
            once = throughput(once_url, n, args.ops)
            moto = throughput(moto_url, n, args.ops)
            for phase in PHASES:
                (o_rate, o_p50), (m_rate, m_p50) = once[phase], moto[phase]
                print(f"{phase:<16}{n:>8}{o_rate:>12.0f}{o_p50:>8.2f}{m_rate:>10.0f}{m_p50:>8.2f}"
                      f"{o_rate / m_rate:>7.2f}x", flush=True)
        for name, url in (("onceflow", once_url), ("moto", moto_url)):
            lat = sorted(long_poll_latency(url, args.polls))
            print(f"long poll answered after a send ({name}): p50 {statistics.median(lat):.1f} ms, "
                  f"max {lat[-1]:.1f} ms over {len(lat)}", flush=True)
    finally:
        for p in (once_proc, moto_proc):
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
