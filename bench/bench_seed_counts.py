"""Counts of a lone seed execution that do not depend on the machine's load: instructions of the
onceflow server and of its Lambda workers (valgrind's callgrind), and the server's fsync calls
(strace). For before/after comparisons on a shared machine, where times and CPU seconds swing.

    python bench/bench_seed_counts.py [--executions 10] [--src <checkout>/src] [--fsyncs]

- instructions: the server runs under callgrind with collection off; the zygote and every worker it
  forks too (`--trace-children`), so the server is slowed and the handler's timeout must be long
  (the seed's is 30 s). Collection is switched on for N lone executions (each polled once after
  2.5 s, then every 0.5 s), dumped, then for 3N DescribeExecution calls alone, so the polls can be
  taken out: printed per execution, per process, and the poll's own count.
- `--fsyncs`: the server (all its threads) under `strace -f -c` instead, for N lone executions.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_sfn as b  # noqa: E402  # after the path: bench/ is no package
from servers import spawn_onceflow  # noqa: E402


def spawn(prefix: list[str], src: str) -> tuple[subprocess.Popen[str], str]:
    return spawn_onceflow(tempfile.mkdtemp(prefix="seed-counts-"), src=src, wrapper=tuple(prefix))


def lone(sfn: Any, arn: str, first_poll_s: float) -> int:
    """One execution, alone; the DescribeExecution calls it took."""
    run = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"id": f"c{uuid.uuid4().hex[:8]}",
                                                                     "quantity": 2}))["executionArn"]
    time.sleep(first_poll_s)
    polls = 1
    while (d := sfn.describe_execution(executionArn=run))["status"] == "RUNNING":
        time.sleep(0.5)
        polls += 1
    if d["status"] != "SUCCEEDED":
        raise RuntimeError(f"{run} ended {d['status']}")
    return polls


def instructions(opts: argparse.Namespace) -> None:
    out = tempfile.mkdtemp(prefix="seed-callgrind-")
    proc, url = spawn(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}/cg.%p",
                       "--trace-children=yes", "--trace-children-skip=*sh,*git*,*uname*,*ldconfig*"], opts.src)
    n = opts.executions
    try:
        b.make_role(url)
        arn = b.seed_setup(url)
        sfn = b.client(url)
        for _ in range(2):
            lone(sfn, arn, 2.5)
        subprocess.run(["callgrind_control", "-i", "on"], capture_output=True)
        polls = sum(lone(sfn, arn, 2.5) for _ in range(n))
        subprocess.run(["callgrind_control", "-d", "executions"], capture_output=True)
        last = sfn.list_executions(stateMachineArn=arn, maxResults=1)["executions"][0]["executionArn"]
        for _ in range(3 * n):
            sfn.describe_execution(executionArn=last)
        subprocess.run(["callgrind_control", "-d", "polls"], capture_output=True)
        subprocess.run(["callgrind_control", "-i", "off"], capture_output=True)
    finally:
        proc.terminate()
        proc.wait(60)
    counts: dict[str, dict[str, int]] = {}
    for path in glob.glob(f"{out}/cg.*.*"):
        text = Path(path).read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: dump (\w+)", text, re.M)
        total = re.search(r"^summary: (\d+)", text, re.M)
        cmd = re.search(r"^cmd: (.*)$", text, re.M)
        if trigger and total and cmd:
            role = "server" if "onceflow serve" in cmd.group(1) else "Lambda workers"
            slot = counts.setdefault(trigger.group(1), {})
            slot[role] = slot.get(role, 0) + int(total.group(1))
    poll = counts.get("polls", {}).get("server", 0) / (3 * n)
    execs = counts.get("executions", {})
    server = execs.get("server", 0)
    print(f"{opts.src}: {n} lone executions, {polls} DescribeExecution polls; {b.load()}")
    print(f"  server   {server / n / 1e6:7.2f} M instructions per execution, {(server - polls * poll) / n / 1e6:7.2f} "
          f"without the polls (one poll {poll / 1e6:.2f} M)")
    print(f"  workers  {execs.get('Lambda workers', 0) / n / 1e6:7.2f} M instructions per execution")


def fsyncs(opts: argparse.Namespace) -> None:
    proc, url = spawn([], opts.src)
    report = tempfile.mktemp(prefix="seed-strace-")
    try:
        b.make_role(url)
        arn = b.seed_setup(url)
        sfn = b.client(url)
        lone(sfn, arn, 0.05)
        tracer = subprocess.Popen(["strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", report,
                                   "-p", str(proc.pid)], stderr=subprocess.DEVNULL)
        time.sleep(1)
        for _ in range(opts.executions):
            lone(sfn, arn, 0.05)
        time.sleep(0.5)
        tracer.send_signal(2)
        tracer.wait(30)
    finally:
        proc.terminate()
        proc.wait(30)
    calls = {m.group(2): int(m.group(1)) for m in
             re.finditer(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)$",
                         Path(report).read_text(), re.M)}
    print(f"{opts.src}: {opts.executions} lone executions; {b.load()}")
    for name, count in sorted(calls.items()):
        print(f"  {name:<10} {count / opts.executions:6.2f} per execution")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--executions", type=int, default=10)
    ap.add_argument("--src", default=str(HERE.parent / "src"), help="the onceflow to measure (a checkout's src)")
    ap.add_argument("--fsyncs", action="store_true", help="count the server's fsync calls instead (strace)")
    opts = ap.parse_args()
    (fsyncs if opts.fsyncs else instructions)(opts)


if __name__ == "__main__":
    main()
