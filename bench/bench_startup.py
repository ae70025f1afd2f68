"""Start-up: time from process start to the first answered call, and idle RSS (issue 23 point 1).

Each round spawns, in rotated order: onceflow (`serve --in-memory`), the null server (an asyncio
server that answers every request with fixed bytes: Python's own floor) and moto's threaded server.
It polls the port until a GET answers, then times a first DynamoDB ListTables (signed, on a fresh
connection), and reads the process's RSS after 1 s idle. Bytecode is cached (as an installed
package has it) in a private folder, even under PYTHONDONTWRITEBYTECODE, and one unmeasured start
of each server warms that cache, onceflow's model index and the OS's file cache.

Then the testing API's session start (issue 15: under 0.5 s) and reset (under 50 ms): a fresh
interpreter that has imported boto3 (as a test session using it has) times `Onceflow().start()`
with the server in a child process and with `in_process=True` (a thread), the first ListTables
through its client, 20 `reset()` calls (the fixture's per-test call) and `close()`.

    PYTHONPATH=src python3 bench/bench_startup.py [--rounds 3] [--no-moto] [--no-fixture] [--base OTHER/src]

--base adds "base": onceflow from another checkout's src (before/after in the same run).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from servers import NULL_SERVER

NULL_BODY = b'{"TableNames":[]}'
NULL_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: "
                 + str(len(NULL_BODY)).encode() + b"\r\n\r\n" + NULL_BODY)

MOTO_SERVER = r'''
import sys
from moto.server import ThreadedMotoServer
srv = ThreadedMotoServer(ip_address="127.0.0.1", port=int(sys.argv[1]), verbose=False)
srv.start()
import time
while True: time.sleep(3600)
'''


FIXTURE_SESSION = r'''
import json, sys, time
import boto3  # a test session that uses boto3 has imported it before any fixture runs
t0 = time.perf_counter()
from onceflow.testing import Onceflow
of = Onceflow(in_process=sys.argv[1] == "thread").start()
t_start = time.perf_counter() - t0
of.client("dynamodb").list_tables()
t_first = time.perf_counter() - t0
resets = []
for _ in range(20):
    t = time.perf_counter()
    of.reset()
    resets.append(time.perf_counter() - t)
t = time.perf_counter()
of.close()
print(json.dumps({"start": t_start, "first": t_first, "reset": sorted(resets)[len(resets) // 2],
                  "close": time.perf_counter() - t}))
'''


def fixture_session(mode: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPYCACHEPREFIX=PYC)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run([sys.executable, "-c", FIXTURE_SESSION, mode], capture_output=True, text=True, env=env,
                         timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_fixture(rounds: int) -> None:
    modes = ["child", "thread"]
    results: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    for mode in modes:
        fixture_session(mode)  # warm-up, not counted
    for r in range(rounds):
        for mode in modes[r % 2:] + modes[:r % 2]:
            results[mode].append(fixture_session(mode))
    print(f"\nthe testing API (Onceflow / the pytest fixture), load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {rounds} rounds; medians (min-max)")
    print(f"{'server':18} {'session start s':>20} {'first ListTables s':>20} {'reset ms (p50)':>18} {'close s':>8}")
    for mode, rows in results.items():
        def span(key: str, scale: float = 1.0, rows: list[dict[str, float]] = rows) -> str:
            values = [row[key] * scale for row in rows]
            return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"
        label = "child process" if mode == "child" else "in_process thread"
        print(f"{label:18} {span('start'):>20} {span('first'):>20} {span('reset', 1000):>18} "
              f"{statistics.median(row['close'] for row in rows):>8.3f}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command(kind: str, port: int) -> list[str]:
    if kind in ("onceflow", "base"):
        return [sys.executable, "-m", "onceflow", "serve", "--port", str(port), "--in-memory"]
    return ([sys.executable, "-c", NULL_SERVER, NULL_RESPONSE.hex(), str(port)] if kind == "null"
            else [sys.executable, "-c", MOTO_SERVER, str(port)])


def list_tables(port: int, path: str = "/") -> int:
    url = f"http://127.0.0.1:{port}{path}"
    body = b"{}"
    request = AWSRequest("POST", url, data=body, headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"})
    SigV4Auth(Credentials("test", "test"), "dynamodb", "us-east-1").add_auth(request)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=dict(request.headers.items()))
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def first_answer(port: int, deadline: float) -> None:
    """Poll until anything answers over HTTP (a GET of the health path: onceflow's own probe)."""
    while time.perf_counter() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/_onceflow/health")
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.002)
    raise RuntimeError("no answer")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


PYC = tempfile.mkdtemp(prefix="onceflow-bench-pyc-")


BASE_SRC: str | None = None


def one(kind: str) -> dict[str, float]:
    port = free_port()
    env = dict(os.environ, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test", PYTHONPYCACHEPREFIX=PYC)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if kind == "base" and BASE_SRC:
        env["PYTHONPATH"] = BASE_SRC
    t0 = time.perf_counter()
    proc = subprocess.Popen(command(kind, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        first_answer(port, t0 + 60)
        t_health = time.perf_counter() - t0
        status = list_tables(port)
        t_call = time.perf_counter() - t0
        if status != 200:
            raise RuntimeError(f"{kind}: ListTables answered {status}")
        time.sleep(1.0)
        return {"health": t_health, "list_tables": t_call, "rss": rss_mb(proc.pid)}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-moto", action="store_true")
    parser.add_argument("--only", choices=["onceflow", "null", "moto"])
    parser.add_argument("--base", help="another checkout's src folder, measured as 'base'")
    parser.add_argument("--no-fixture", action="store_true", help="leave the testing API's figures out")
    args = parser.parse_args()
    kinds = [args.only] if args.only else ["onceflow", "null"] + ([] if args.no_moto else ["moto"])
    if args.base:
        global BASE_SRC
        BASE_SRC = args.base
        kinds.insert(1, "base")
    results: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for kind in kinds:
        one(kind)  # warm-up, not counted
    for r in range(args.rounds):
        order = kinds[r % len(kinds):] + kinds[:r % len(kinds)]  # rotate: no server always goes first
        for kind in order:
            results[kind].append(one(kind))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {args.rounds} rounds")
    print(f"{'server':10} {'first answer s':>16} {'first ListTables s':>20} {'idle RSS MB':>12}")
    for kind, rows in results.items():
        def span(key: str, rows: list[dict[str, float]] = rows) -> str:
            values = [row[key] for row in rows]
            return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"
        print(f"{kind:10} {span('health'):>16} {span('list_tables'):>20} "
              f"{statistics.median(row['rss'] for row in rows):>12.1f}")
    if not args.no_fixture:
        bench_fixture(args.rounds)


if __name__ == "__main__":
    main()
