"""Counts of one-client DynamoDB calls that do not depend on the machine's load: the server's
instructions per call (valgrind's callgrind, the whole process) and its syscalls per call (strace),
for before/after comparisons on a shared machine, where times and CPU seconds swing.

    python bench/bench_ddb_counts.py [--ops 200] [--src <checkout>/src] [--strace] [--only PutItem,GetItem]

- instructions: the server runs under callgrind with collection off; it is switched on for `--ops`
  calls of each operation (after a warm-up of 20), dumped per operation.
- `--strace`: the server (all its threads) under `strace -f -c` instead; syscalls per call, with
  `--clients N` client processes at once (each making `--ops` calls on keys of its own).
"""

from __future__ import annotations

import argparse
import glob
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from servers import spawn_onceflow  # noqa: E402  # after the path: bench/ is no package

TABLE = "counts"


def client(url: str) -> Any:
    import boto3
    from botocore.config import Config

    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIAEXAMPLE",
                        aws_secret_access_key="secret", config=Config(retries={"max_attempts": 1}))


def operations(ddb: Any) -> dict[str, Callable[[int], Any]]:
    def key(i: int) -> dict[str, Any]:
        return {"pk": {"S": f"k{i % 50}"}}

    def item(i: int) -> dict[str, Any]:
        return {**key(i), "n": {"N": str(i)}, "body": {"S": "x" * 200}}

    return {
        "PutItem": lambda i: ddb.put_item(TableName=TABLE, Item=item(i)),
        "GetItem": lambda i: ddb.get_item(TableName=TABLE, Key=key(i)),
        "UpdateItem ADD": lambda i: ddb.update_item(TableName=TABLE, Key=key(i), UpdateExpression="ADD n :one",
                                                    ExpressionAttributeValues={":one": {"N": "1"}}),
        "PutItem (condition fails)": lambda i: _refused(ddb, item(i)),
        "DeleteItem": lambda i: ddb.delete_item(TableName=TABLE, Key=key(i)),
    }


def _refused(ddb: Any, item: dict[str, Any]) -> None:
    try:
        ddb.put_item(TableName=TABLE, Item=item, ConditionExpression="attribute_not_exists(pk)")
    except ddb.exceptions.ConditionalCheckFailedException:
        return
    raise RuntimeError("the conditional write went through")


def setup(url: str) -> Any:
    ddb = client(url)
    ddb.create_table(TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    for i in range(50):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": f"k{i}"}, "n": {"N": "0"}})
    return ddb


def load() -> str:
    return "load " + " ".join(Path("/proc/loadavg").read_text().split()[:3])


def instructions(opts: argparse.Namespace, names: list[str]) -> None:
    out = tempfile.mkdtemp(prefix="ddb-callgrind-")
    proc, url = spawn_onceflow(tempfile.mkdtemp(prefix="ddb-counts-"), src=opts.src,
                               wrapper=("valgrind", "--tool=callgrind", "--instr-atstart=no",
                                        f"--callgrind-out-file={out}/cg.%p"))
    try:
        ops = operations(setup(url))
        for n, name in enumerate(names):
            for i in range(20):
                ops[name](i)
            subprocess.run(["callgrind_control", "-z", str(proc.pid)], capture_output=True)
            subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], capture_output=True)
            for i in range(opts.ops):
                ops[name](i)
            subprocess.run(["callgrind_control", "-d", f"op{n}", str(proc.pid)], capture_output=True)
            subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], capture_output=True)
    finally:
        proc.terminate()
        proc.wait(120)
    totals: dict[str, int] = {}
    for path in glob.glob(f"{out}/cg.*"):
        text = Path(path).read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: dump op(\d+)", text, re.M)
        total = re.search(r"^summary: (\d+)", text, re.M)
        if trigger and total:
            name = names[int(trigger.group(1))]
            totals[name] = totals.get(name, 0) + int(total.group(1))
    print(f"{opts.src}: {opts.ops} one-client calls each, server instructions per call; {load()} ({out})")
    for name in names:
        print(f"  {name:<28} {totals.get(name, 0) / opts.ops / 1e6:6.3f} M")


def _client_run(url: str, name: str, first: int, ops: int) -> None:
    run = operations(client(url))[name]
    for i in range(first, first + ops):
        run(i)


def syscalls(opts: argparse.Namespace, names: list[str]) -> None:
    proc, url = spawn_onceflow(tempfile.mkdtemp(prefix="ddb-counts-"), src=opts.src)
    try:
        ops = operations(setup(url))
        print(f"{opts.src}: {opts.ops} calls each of {opts.clients} client(s), server syscalls per call; {load()}")
        for name in names:
            for i in range(20):
                ops[name](i)
            report = tempfile.mktemp(prefix="ddb-strace-")
            tracer = subprocess.Popen(["strace", "-f", "-c", "-o", report, "-p", str(proc.pid)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(1)
            if opts.clients == 1:
                for i in range(opts.ops):
                    ops[name](i)
            else:
                with multiprocessing.Pool(opts.clients) as pool:  # separate programs, as in bench_ddb.py
                    pool.starmap(_client_run, [(url, name, 10 * c, opts.ops) for c in range(opts.clients)])
            time.sleep(0.3)
            tracer.send_signal(2)
            tracer.wait(30)
            calls = {m.group(2): int(m.group(1)) for m in
                     re.finditer(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$",
                                 Path(report).read_text(), re.M) if m.group(2) != "total"}
            n = opts.ops * opts.clients
            shown = ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1]))
            print(f"  {name:<28} {sum(calls.values()) / n:6.2f}: {shown}")
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=200)
    ap.add_argument("--src", default=str(HERE.parent / "src"), help="the onceflow to measure (a checkout's src)")
    ap.add_argument("--strace", action="store_true", help="count the server's syscalls instead")
    ap.add_argument("--clients", type=int, default=1, help="client processes at once (--strace only)")
    ap.add_argument("--only", default="PutItem,UpdateItem ADD,PutItem (condition fails),GetItem")
    opts = ap.parse_args()
    names = [n.strip() for n in opts.only.split(",") if n.strip()]
    (syscalls if opts.strace else instructions)(opts, names)


if __name__ == "__main__":
    main()
