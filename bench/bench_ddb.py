"""DynamoDB benchmark: onceflow side by side with the boto3 floor (a null HTTP server answering
fixed bytes) and moto's server, in the same run, with 1 and 4 boto3 clients (one process each).

    python bench/bench_ddb.py [--ops 2000] [--clients 1,4] [--sizes 1000,100000,1000000] [--baseline SRC]

Operations: PutItem, GetItem, a conditional PutItem that fails, UpdateItem ADD, Query of 100 items.
`--sizes` also measures GetItem latency on onceflow as the table grows (the slope per decade).
Each server and each client runs in its own process, so no GIL is shared between them.
`--baseline SRC` also serves another checkout's onceflow (`git archive <commit> src | tar -x -C DIR`,
then DIR/src) beside this one, so that before and after are measured in the same run.
Durable writes are also compared with the floor plus one fsync of the data folder's disk (measured
in the same run): no durable server can answer a write sooner.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config
from servers import spawn_granian, spawn_moto, spawn_onceflow, wait_port

COMMITTING = ("PutItem", "UpdateItem ADD", "DeleteItem")  # operations whose answer waits for a durable commit
CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=16)
TABLE = "bench"

# ------------------------------------------------------------------------------ null server
NULL_SERVER = r'''
import asyncio, json, sys
ITEM = {"pk": {"S": "p"}, "sk": {"N": "1"}, "v": {"S": "x" * 100}}
BODIES = {
    "PutItem": (200, {}), "GetItem": (200, {"Item": ITEM}), "UpdateItem": (200, {"Attributes": {"n": {"N": "1"}}}),
    "Query": (200, {"Items": [ITEM] * 100, "Count": 100, "ScannedCount": 100}),
    "Query1": (200, {"Items": [ITEM], "Count": 1, "ScannedCount": 1}),
    # ReturnValuesOnConditionCheckFailure=ALL_OLD: DynamoDB's refusal carries the item (the client parses it)
    "Fail": (400, {"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
                   "message": "The conditional request failed", "Item": ITEM}),
}
RESP = {}
for k, (status, body) in BODIES.items():
    b = json.dumps(body).encode()
    reason = "OK" if status == 200 else "Bad Request"
    RESP[k] = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/x-amz-json-1.0\r\n"
               f"x-amzn-RequestId: 0\r\nContent-Length: {len(b)}\r\n\r\n").encode() + b

class P(asyncio.Protocol):
    def connection_made(self, t): self.t, self.buf = t, b""
    def data_received(self, data):
        self.buf += data
        while True:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end < 0: return
            head = self.buf[:head_end].decode("latin-1")
            n = 0; target = ""
            for line in head.split("\r\n")[1:]:
                k, _, v = line.partition(":")
                k = k.strip().lower()
                if k == "content-length": n = int(v)
                elif k == "x-amz-target": target = v.strip().split(".")[-1]
            if len(self.buf) < head_end + 4 + n: return
            body = self.buf[head_end + 4: head_end + 4 + n]
            self.buf = self.buf[head_end + 4 + n:]
            if target == "PutItem" and b"ConditionExpression" in body: target = "Fail"
            if target == "Query" and b'"q"' not in body: target = "Query1"
            self.t.write(RESP.get(target, RESP["PutItem"]))

async def main():
    server = await asyncio.get_running_loop().create_server(P, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
'''

def spawn(code: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}"


# ------------------------------------------------------------------------------ workload
def client(url: str) -> Any:
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def setup(url: str, real: bool, deletes: dict[int, int] | None = None) -> None:
    """The table, 100 items to query, the item read; `deletes` (clients: calls each) the items the
    DeleteItem cells delete, so that every one of their calls removes an item and commits."""
    if not real:
        return
    c = client(url)
    c.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "N"}],
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}])
    for start in range(0, 100, 25):
        c.batch_write_item(RequestItems={TABLE: [
            {"PutRequest": {"Item": {"pk": {"S": "q"}, "sk": {"N": str(i)}, "v": {"S": "x" * 100}}}}
            for i in range(start, start + 25)]})
    c.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"N": "1"}, "v": {"S": "x" * 100}})
    doomed = [{"pk": {"S": f"d{thread}"}, "sk": {"N": str(n * 1_000_000 + i)}, "v": {"S": "x" * 100}}
              for n, per in (deletes or {}).items() for thread in range(n) for i in range(per)]
    for start in range(0, len(doomed), 25):
        c.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": item}} for item in doomed[start:start + 25]]})


def operations(c: Any, thread: int, clients: int = 1) -> dict[str, Callable[[int], Any]]:
    item = {"pk": {"S": f"w{thread}"}, "v": {"S": "x" * 100}}
    return {
        "PutItem": lambda i: c.put_item(TableName=TABLE, Item={**item, "sk": {"N": str(i)}}),
        "GetItem": lambda i: c.get_item(TableName=TABLE, Key={"pk": {"S": "p"}, "sk": {"N": "1"}}),
        "Query 1 item": lambda i: c.query(TableName=TABLE, KeyConditionExpression="pk = :p",
                                          ExpressionAttributeValues={":p": {"S": "p"}}),
        "PutItem (condition fails)": lambda i: _fail(c),
        "UpdateItem ADD": lambda i: c.update_item(
            TableName=TABLE, Key={"pk": {"S": "counter"}, "sk": {"N": str(thread)}}, UpdateExpression="ADD n :one",
            ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW"),
        "DeleteItem": lambda i: c.delete_item(
            TableName=TABLE, Key={"pk": {"S": f"d{thread}"}, "sk": {"N": str(clients * 1_000_000 + i)}}),
        "Query 100 items": lambda i: c.query(TableName=TABLE, KeyConditionExpression="pk = :p",
                                             ExpressionAttributeValues={":p": {"S": "q"}}),
    }


def _fail(c: Any) -> None:
    try:
        c.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"N": "1"}},
                   ConditionExpression="attribute_not_exists(pk)", ReturnValuesOnConditionCheckFailure="ALL_OLD")
    except c.exceptions.ConditionalCheckFailedException:
        return
    raise AssertionError("the conditional put should have failed")


class Clients:
    """boto3 clients, each in a process of its own as separate programs would be (threads would share
    one GIL with each other and cap every server at the client process's own speed)."""

    def __init__(self, n: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipes = []
        self.procs = []
        for index in range(n):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_client_main, args=(index, child), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)

    def measure(self, url: str, pid: int, op: str, n: int, ops: int, budget: float) -> dict[str, float]:
        """ops/s and latency percentiles of `ops` calls spread over the first `n` clients, and the CPU
        time per call of the server (process `pid`) and of the clients."""
        per = ops // n
        for pipe in self.pipes[:n]:
            pipe.send(("warm", url, op, per, budget, n))
        for pipe in self.pipes[:n]:
            assert pipe.recv() == "ready"
        cpu0 = cpu_seconds(pid)
        for pipe in self.pipes[:n]:
            pipe.send(("go",))
        runs = [pipe.recv() for pipe in self.pipes[:n]]
        server_cpu = cpu_seconds(pid) - cpu0
        wall = max(end for _, end, _, _ in runs) - min(start for start, _, _, _ in runs)
        lat = sorted(x for _, _, xs, _ in runs for x in xs)
        return {"ops_s": len(lat) / wall, "p50_ms": 1000 * lat[len(lat) // 2],
                "p99_ms": 1000 * lat[int(len(lat) * 0.99)], "server_cpu_us": 1e6 * server_cpu / len(lat),
                "client_cpu_us": 1e6 * sum(cpu for _, _, _, cpu in runs) / len(lat)}

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(("stop",))
        for proc in self.procs:
            proc.join(5)


def _client_main(index: int, pipe: Any) -> None:
    """One client process: warm up on a target (connection, botocore caches), then run on "go"."""
    clients: dict[str, Any] = {}
    while True:
        cmd = pipe.recv()
        if cmd[0] == "stop":
            return
        _, url, op, per, budget, n = cmd
        if url not in clients:
            clients[url] = client(url)
        f = operations(clients[url], index, n)[op]
        for i in range(20):
            f(10_000_000 + i)
        pipe.send("ready")
        pipe.recv()  # "go"
        lat: list[float] = []
        cpu = time.process_time()
        start = time.perf_counter()  # CLOCK_MONOTONIC: comparable across processes
        deadline = start + budget
        for i in range(per):
            t0 = time.perf_counter()
            f(i)
            lat.append(time.perf_counter() - t0)
            if t0 > deadline:
                break
        pipe.send((start, time.perf_counter(), lat, time.process_time() - cpu))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process `pid` so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def disk_sync_ms(folder: str, n: int = 300) -> float:
    """Median time to overwrite 4 KB of a file in `folder` and fsync it: what the disk charges every
    acknowledged write, before any server code runs."""
    path = Path(folder) / "fsync-probe"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    try:
        os.pwrite(fd, b"\0" * (1 << 20), 0)
        os.fsync(fd)
        lat = []
        for i in range(n):
            t0 = time.perf_counter()
            os.pwrite(fd, b"x" * 4096, (i % 256) * 4096)
            os.fsync(fd)
            lat.append(time.perf_counter() - t0)
    finally:
        os.close(fd)
        path.unlink()
    return 1000 * statistics.median(lat)


def size_slope(sizes: list[int]) -> list[tuple[int, float]]:
    """GetItem median latency through the server on a table grown to each size (onceflow only).

    The table is filled in process through onceflow's own service layer (one transaction per
    100,000 items) between server runs, which is far faster than a million API calls."""
    from onceflow.ddb.service import DynamoDB
    from onceflow.ddb.store import MIGRATIONS
    from onceflow.store.db import Database

    data = tempfile.mkdtemp(prefix="onceflow-bench-size-")
    name, loaded, out = "bench-size", 0, []
    db = Database(str(Path(data) / "onceflow.db"))
    db.migrate(MIGRATIONS)
    svc = DynamoDB(db)
    svc.create_table("000000000000", "us-east-1", {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    db.close()
    for size in sizes:
        db = Database(str(Path(data) / "onceflow.db"))
        svc = DynamoDB(db)
        for lo in range(loaded, size, 100_000):
            with db.transaction():
                for i in range(lo, min(size, lo + 100_000)):
                    svc.put_item("000000000000", "us-east-1", {"TableName": name, "Item": {
                        "id": {"S": f"k{i:08d}"}, "v": {"S": "x" * 100}}})
        db.close()
        loaded = size
        proc, url = spawn_onceflow(data)
        try:
            c = client(url)
            keys = [f"k{(i * 7919) % size:08d}" for i in range(2000)]
            for k in keys[:50]:
                c.get_item(TableName=name, Key={"id": {"S": k}})
            lat = []
            for k in keys:
                t0 = time.perf_counter()
                assert "Item" in c.get_item(TableName=name, Key={"id": {"S": k}})
                lat.append(time.perf_counter() - t0)
        finally:
            proc.kill()
            proc.wait()
        out.append((size, 1000 * statistics.median(lat)))
        print(f"  GetItem p50 with {size:,} items: {out[-1][1]:.3f} ms", flush=True)
    return out


def in_process(ops: int) -> dict[str, float]:
    """Median ms per call of onceflow's own share: the ASGI app called directly (parse, handler with a
    durable commit, render), without HTTP or boto3."""
    import asyncio

    from onceflow.config import Settings
    from onceflow.server import build_app, build_stack

    stack = build_stack(Settings(data_dir=Path(tempfile.mkdtemp(prefix="onceflow-bench-inproc-"))))
    app = build_app(stack)
    svc = stack.services["dynamodb"]
    svc.create_table("000000000000", "us-east-1", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]})
    for i in range(100):
        svc.put_item("000000000000", "us-east-1", {"TableName": TABLE, "Item": {
            "pk": {"S": "q"}, "sk": {"N": str(i)}, "v": {"S": "x" * 100}}})
    bodies = {
        "PutItem": ("PutItem", {"TableName": TABLE,
                                "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}, "v": {"S": "x" * 100}}}),
        "GetItem": ("GetItem", {"TableName": TABLE, "Key": {"pk": {"S": "p"}, "sk": {"N": "1"}}}),
        "Query 1 item": ("Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
                                   "ExpressionAttributeValues": {":p": {"S": "p"}}}),
        "PutItem (condition fails)": ("PutItem", {
            "TableName": TABLE, "Item": {"pk": {"S": "p"}, "sk": {"N": "1"}},
            "ConditionExpression": "attribute_not_exists(pk)", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
        "UpdateItem ADD": ("UpdateItem", {
            "TableName": TABLE, "Key": {"pk": {"S": "c"}, "sk": {"N": "1"}}, "UpdateExpression": "ADD n :one",
            "ExpressionAttributeValues": {":one": {"N": "1"}}, "ReturnValues": "UPDATED_NEW"}),
        "Query 100 items": ("Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
                                      "ExpressionAttributeValues": {":p": {"S": "q"}}}),
    }

    async def call(target: str, body: bytes) -> None:
        # test keys are not verified by default (README "Security"): a dated, well-formed signature will do
        headers = [(b"host", b"127.0.0.1"), (b"x-amz-target", f"DynamoDB_20120810.{target}".encode()),
                   (b"x-amz-date", b"20260101T000000Z"),
                   (b"content-type", b"application/x-amz-json-1.0"), (b"content-length", str(len(body)).encode()),
                   (b"authorization", b"AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/dynamodb/aws4_request, "
                                      b"SignedHeaders=host, Signature=x")]
        scope = {"type": "http", "method": "POST", "path": "/", "raw_path": b"/", "query_string": b"",
                 "headers": headers, "client": ("127.0.0.1", 1)}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            return None

        await app(scope, receive, send)

    async def run() -> dict[str, float]:
        out = {}
        for name, (target, params) in bodies.items():
            body = json.dumps(params).encode()
            lat = []
            for _ in range(ops):
                t0 = time.perf_counter()
                await call(target, body)
                lat.append(time.perf_counter() - t0)
            out[name] = 1000 * statistics.median(lat)
        return out

    try:
        return asyncio.run(run())
    finally:
        for hook in stack.on_shutdown:
            hook()
        stack.db.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=2000, help="calls per cell (0: only the table-size run)")
    ap.add_argument("--clients", default="1,4", help="numbers of concurrent client processes")
    ap.add_argument("--budget", type=float, default=30.0, help="seconds per cell at most (slow targets stop early)")
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--json", help="write the figures to this file too")
    ap.add_argument("--in-memory", action="store_true", help="serve onceflow without a data folder (no fsync)")
    ap.add_argument("--only", default="", help="comma-separated operations to run (default: all)")
    ap.add_argument("--no-moto", action="store_true", help="leave moto out (it is slow to measure)")
    ap.add_argument("--baseline", metavar="SRC",
                    help="also onceflow from another checkout's src folder (before/after in one run)")
    ap.add_argument("--uvloop", action="store_true",
                    help="also onceflow with --event-loop uvloop (a candidate, on a data folder of its own)")
    ap.add_argument("--granian", action="store_true",
                    help="also onceflow's app served by granian instead of uvicorn (a candidate; granian importable)")
    args = ap.parse_args()
    counts = [int(x) for x in args.clients.split(",")]
    data = tempfile.mkdtemp(prefix="onceflow-bench-")
    sync_ms = 0.0 if args.in_memory else disk_sync_ms(data)
    clients = Clients(max(counts))
    once_proc, once_url = spawn_onceflow(None if args.in_memory else data)
    null_proc, null_url = spawn(NULL_SERVER)
    procs = [once_proc, null_proc]
    targets = {"null floor": (null_url, null_proc.pid), "onceflow": (once_url, once_proc.pid)}
    if args.baseline:
        base_data = None if args.in_memory else tempfile.mkdtemp(prefix="onceflow-bench-base-")
        base_proc, base_url = spawn_onceflow(base_data, src=args.baseline)
        procs.append(base_proc)
        targets["baseline"] = (base_url, base_proc.pid)
    if args.uvloop:
        uv_proc, uv_url = spawn_onceflow(None if args.in_memory else tempfile.mkdtemp(prefix="onceflow-bench-uv-"),
                                         "--event-loop", "uvloop")
        procs.append(uv_proc)
        targets["uvloop"] = (uv_url, uv_proc.pid)
    if args.granian:
        gr_proc, gr_url = spawn_granian(tempfile.mkdtemp(prefix="onceflow-bench-granian-"))
        procs.append(gr_proc)
        targets["granian"] = (gr_url, gr_proc.pid)
    if not args.no_moto:
        moto_proc, moto_url = spawn_moto()
        wait_port(moto_url)
        procs.append(moto_proc)
        targets["moto"] = (moto_url, moto_proc.pid)
    results: dict[str, Any] = {}
    try:
        ops = [op for op in operations(client(once_url), 0) if not args.only or op in args.only.split(",")]
        deletes = {n: args.ops // n for n in counts} if "DeleteItem" in ops else {}
        for name, (url, _) in targets.items():
            setup(url, name != "null floor", deletes)
        where = "in memory" if args.in_memory else f"data dir {data} (durable, group commit)"
        print(f"onceflow {where}; {args.ops} calls per cell; cpu={os.cpu_count()}; "
              f"fsync of 4 KB in the data folder: {sync_ms:.3f} ms p50")
        results["disk_sync_ms"] = sync_ms
        head = f"{'operation':<27}{'cli':>4}" + "".join(f"{t + ' ops/s':>17}{'p50/p99 ms':>16}" for t in targets)
        print(head + f"{'x floor':>9}{'x fl+sync':>10}{'x moto':>8}")
        print(" " * 31 + "then each server's CPU per call (us), the clients' own, and the throughput ratio "
              "to the floor those CPU costs allow (what a quiet machine would show)")
        for op in ops if args.ops else []:
            for n in counts:
                row = {t: clients.measure(url, pid, op, n, args.ops, args.budget) for t, (url, pid) in targets.items()}
                results[f"{op} x{n}"] = row
                cells = "".join(f"{r['ops_s']:>17.0f}{r['p50_ms']:>8.2f}/{r['p99_ms']:<7.2f}" for r in row.values())
                floor = row["null floor"]["p50_ms"]
                vs_floor = row["onceflow"]["p50_ms"] / floor
                # A durable write can't be answered before the disk has synced it: the floor plus one fsync.
                vs_synced = row["onceflow"]["p50_ms"] / (floor + (sync_ms if op in COMMITTING else 0.0))
                vs_moto = row["onceflow"]["ops_s"] / row["moto"]["ops_s"] if "moto" in row else float("nan")
                print(f"{op:<27}{n:>4}{cells}{vs_floor:>8.2f}x{vs_synced:>9.2f}x{vs_moto:>7.1f}x", flush=True)
                fl, of = row["null floor"], row["onceflow"]
                by_cpu = (fl["client_cpu_us"] + fl["server_cpu_us"]) / (of["client_cpu_us"] + of["server_cpu_us"])
                print(" " * 31 + "".join(f"{r['server_cpu_us']:>17.0f}{'/' + format(r['client_cpu_us'], '.0f'):<16}"
                                          for r in row.values()) + f"{by_cpu:>8.2f}x by cpu", flush=True)
                if "baseline" in row:
                    bl = row["baseline"]
                    bl_cpu = (fl["client_cpu_us"] + fl["server_cpu_us"]) / (bl["client_cpu_us"] + bl["server_cpu_us"])
                    print(" " * 31 + f"baseline: {bl['p50_ms'] / floor:.2f}x floor, server CPU "
                          f"{of['server_cpu_us'] / bl['server_cpu_us']:.2f}x of it, {bl_cpu:.2f}x by cpu "
                          f"(onceflow {by_cpu:.2f}x)", flush=True)
                if "uvloop" in row:
                    uv = row["uvloop"]
                    uv_cpu = (fl["client_cpu_us"] + fl["server_cpu_us"]) / (uv["client_cpu_us"] + uv["server_cpu_us"])
                    print(" " * 31 + f"uvloop: {uv['p50_ms'] / floor:.2f}x floor, server CPU "
                          f"{uv['server_cpu_us'] / of['server_cpu_us']:.2f}x asyncio's, {uv_cpu:.2f}x by cpu",
                          flush=True)
                if "granian" in row:
                    gr = row["granian"]
                    gr_cpu = (fl["client_cpu_us"] + fl["server_cpu_us"]) / (gr["client_cpu_us"] + gr["server_cpu_us"])
                    print(" " * 31 + f"granian: {gr['p50_ms'] / floor:.2f}x floor, server CPU "
                          f"{gr['server_cpu_us'] / of['server_cpu_us']:.2f}x uvicorn's, {gr_cpu:.2f}x by cpu",
                          flush=True)
        if args.ops:
            own = in_process(min(args.ops, 1000))
            results["in_process_ms"] = own
            print("onceflow's own share (ASGI app in process, durable commits; p50 ms): "
                  + ", ".join(f"{k} {v:.3f}" for k, v in own.items()))
        sizes = [int(x) for x in args.sizes.split(",") if x]
        if sizes:
            slope = size_slope(sizes)
            results["getitem_by_size"] = slope
            print("GetItem p50 by table size (onceflow): " + ", ".join(f"{s:,} items {ms:.3f} ms" for s, ms in slope))
            if len(slope) > 1:
                import math

                per_decade = (slope[-1][1] - slope[0][1]) / math.log10(slope[-1][0] / slope[0][0])
                print(f"slope: {per_decade * 1000:+.1f} us per 10x items")
    finally:
        clients.close()
        for p in procs:
            p.kill()
            p.wait()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
