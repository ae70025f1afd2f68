"""The wire path's cost: a cheap call on onceflow side by side with a null HTTP server that answers
the very same response bytes (the floor boto3 itself sets), with 1 and 4 boto3 client threads.

    python bench/bench_wire.py [--ops 3000] [--threads 1,4] [--calls sts,logs] [--serve-args=--enforce-iam]

Calls: `sts` = GetCallerIdentity (query protocol, XML), `logs` = DescribeLogGroups on an empty
account (JSON 1.1). The null server replays the bytes onceflow answered for the same call. Each
server runs in its own process so the clients' GIL does not slow it down. Also prints onceflow's
RSS right after start. Target: onceflow's added per-call time (mean, 1 client) at most 25% of the
null server's per-call time; RSS after start under 80 MB.

Wall-clock figures are only meaningful on a quiet machine; the CPU columns (client and server
process time per call, from /proc) are not disturbed by other load. onceflow serves with uvicorn;
handlers registered with `operation(name, inline=True)` skip the thread-pool hop.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from servers import NULL_SERVER

from serverproc import ServerProcess, signed_headers

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=16)
KEYS = {"region_name": "us-east-1", "aws_access_key_id": "test", "aws_secret_access_key": "test"}

# The raw requests used to capture onceflow's answer for the null server.
CAPTURE = {
    "sts": ("sts", {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
            b"Action=GetCallerIdentity&Version=2011-06-15"),
    "logs": ("logs", {"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "Logs_20140328.DescribeLogGroups"},
             b"{}"),
}



def capture(url: str, call: str) -> bytes:
    """onceflow's full HTTP response to the call, as bytes a null server can replay."""
    svc, headers, body = CAPTURE[call]
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    conn.request("POST", "/", body=body, headers=signed_headers("POST", url + "/", svc, body, headers))
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    assert resp.status == 200, (resp.status, data)
    keep = [(k, v) for k, v in resp.getheaders() if k.lower() in ("content-type", "x-amzn-requestid")]
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in keep)
    return (head + f"Content-Length: {len(data)}\r\n\r\n").encode("latin-1") + data


def null_server(response: bytes) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen([sys.executable, "-c", NULL_SERVER, response.hex()], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    return proc, f"http://127.0.0.1:{int(proc.stdout.readline())}"


def operation(url: str, call: str) -> Callable[[], Any]:
    if call == "sts":
        return boto3.client("sts", endpoint_url=url, config=CONFIG, **KEYS).get_caller_identity
    logs = boto3.client("logs", endpoint_url=url, config=CONFIG, **KEYS)
    return logs.describe_log_groups


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (robust to other load on the machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(url: str, call: str, threads: int, ops: int, server_pid: int) -> dict[str, float]:
    fns = [operation(url, call) for _ in range(threads)]
    for f in fns:  # warm the connection and botocore's caches
        for _ in range(50):
            f()
    per = ops // threads
    lat: list[list[float]] = [[] for _ in range(threads)]
    barrier = threading.Barrier(threads + 1)

    def run(t: int) -> None:
        f, out = fns[t], lat[t]
        barrier.wait()
        for _ in range(per):
            t0 = time.perf_counter()
            f()
            out.append(time.perf_counter() - t0)

    workers = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    t0, client0, server0 = time.perf_counter(), time.process_time(), cpu_seconds(server_pid)
    for w in workers:
        w.join()
    wall = time.perf_counter() - t0
    client_cpu, server_cpu = time.process_time() - client0, cpu_seconds(server_pid) - server0
    xs = sorted(x for out in lat for x in out)
    n = len(xs)
    return {"ops_s": n / wall, "mean_ms": 1000 * sum(xs) / n, "p50_ms": 1000 * xs[n // 2],
            "p99_ms": 1000 * xs[int(n * 0.99)], "client_cpu_ms": 1000 * client_cpu / n,
            "server_cpu_ms": 1000 * server_cpu / n}


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def report(results: dict[str, dict[str, float]], threads: int) -> None:
    null, once = results["null"], results["onceflow"]
    wall_added = once["mean_ms"] - null["mean_ms"]
    # The floor per call is what boto3 spends plus what the null server spends; onceflow adds its
    # own server time on top. CPU time measures that even when other work shares the machine.
    floor_cpu = null["client_cpu_ms"] * 1 + null["server_cpu_ms"]
    cpu_added = once["server_cpu_ms"] - null["server_cpu_ms"]
    target = " (target <= 25%)" if threads == 1 else ""
    print(f"{'':<20}added per call: wall {wall_added:.3f} ms = {100 * wall_added / null['mean_ms']:.0f}% of the null"
          f" server's; CPU {cpu_added:.3f} ms = {100 * cpu_added / floor_cpu:.0f}% of the floor's CPU{target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=3000)
    parser.add_argument("--threads", default="1,4")
    parser.add_argument("--calls", default="sts,logs")
    parser.add_argument("--serve-args", default="", help="extra `onceflow serve` arguments, e.g. --enforce-iam")
    args = parser.parse_args()
    server = ServerProcess(extra_args=tuple(args.serve_args.split())).start()
    assert server.proc is not None
    time.sleep(0.5)
    print(f"onceflow RSS after start: {rss_mb(server.proc.pid):.1f} MB (target < 80 MB)")
    nulls = []
    try:
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall figures need a quiet "
              "machine; the CPU columns do not)")
        print(f"{'call':<20}{'server':<10}{'thr':>4}{'ops/s':>8}{'mean ms':>9}{'p50 ms':>8}{'p99 ms':>8}"
              f"{'client cpu':>11}{'server cpu':>11}")
        for call in args.calls.split(","):
            null_proc, null_url = null_server(capture(server.url, call))
            nulls.append(null_proc)
            for threads in (int(t) for t in args.threads.split(",")):
                results = {}
                for name, url, pid in (("null", null_url, null_proc.pid), ("onceflow", server.url, server.proc.pid)):
                    r = results[name] = measure(url, call, threads, args.ops, pid)
                    label = {"sts": "GetCallerIdentity", "logs": "DescribeLogGroups"}[call]
                    print(f"{label:<20}{name:<10}{threads:>4}{r['ops_s']:>8.0f}{r['mean_ms']:>9.3f}"
                          f"{r['p50_ms']:>8.3f}{r['p99_ms']:>8.3f}{r['client_cpu_ms']:>11.3f}{r['server_cpu_ms']:>11.3f}")
                report(results, threads)
        print(f"onceflow RSS after the run: {rss_mb(server.proc.pid):.1f} MB")
    finally:
        for proc in nulls:
            proc.kill()
            proc.wait()
        server.stop()


if __name__ == "__main__":
    main()
