"""Benchmark: what the testing API and its pytest plugin cost (issue 15's targets: server start
under 0.5 s once per session, reset under 50 ms).

- start: `Onceflow()` to a server answering (a `python -m onceflow serve --in-memory` child), and
  on a data folder; beside it, in the same run, a bare interpreter start and the server's imports
  alone (what a child cannot avoid).
- reset: POST /_onceflow/reset on an empty server, and after a test's worth of state (a table of
  100 items, a function invoked once - a live worker - and a state machine with 10 executions);
  the `onceflow` fixture's own per-test calls (reset, fault rules cleared).
- pytest: a session of one test using the fixture, one test using none, with `-p
  onceflow.testing.plugin`, and one with the plugin blocked (`-p no:...`): its load cost.

    python bench/bench_testing.py [--starts 5] [--resets 30]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from onceflow.testing import Onceflow

WORKER = "def handler(event, context):\n    return event\n"
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def show(label: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    print(f"  {label:<48} p50 {statistics.median(ms):8.1f} ms   min {ms[0]:8.1f}   max {ms[-1]:8.1f}  (n={len(ms)})")


def bench_start(n: int) -> None:
    print("start")
    show("python -c pass (interpreter alone)", [timed(lambda: subprocess.run([sys.executable, "-c", "pass"]))
                                                 for _ in range(n)])
    show("python -c 'import onceflow.server' (imports)",
         [timed(lambda: subprocess.run([sys.executable, "-c", "import onceflow.server"])) for _ in range(n)])
    starts, stops = [], []
    for _ in range(n):
        of = Onceflow()
        starts.append(timed(of.start))
        stops.append(timed(of.close))
    show("Onceflow() in memory: start", starts)
    show("Onceflow() in memory: close", stops)
    with tempfile.TemporaryDirectory(prefix="onceflow-bench-") as tmp:
        data = []
        for i in range(n):
            of = Onceflow(data=Path(tmp) / str(i))
            data.append(timed(of.start))
            of.close()
    show("Onceflow(data=DIR): start", data)


def fill(of: Onceflow) -> None:
    of.create_table("bench-items")
    ddb = of.client("dynamodb")
    for i in range(100):
        ddb.put_item(TableName="bench-items", Item={"id": {"S": f"item-{i}"}, "n": {"N": str(i)}})
    of.deploy_function("bench-worker", source=WORKER)
    of.client("lambda").invoke(FunctionName="bench-worker", Payload=b"{}")
    arn = of.deploy_state_machine("bench-pass", PASS)
    for i in range(10):
        of.execute(arn, {"i": i})


def bench_reset(n: int) -> None:
    print("reset")
    with Onceflow() as of:
        of.reset()
        show("reset, empty server", [timed(of.reset) for _ in range(n)])
        full = []
        for _ in range(max(3, n // 5)):
            fill(of)
            full.append(timed(of.reset))
        show("reset after a table, a live worker, 10 executions", full)
        show("the onceflow fixture's calls (reset + faults.clear)",
             [timed(lambda: (of.reset(), of.faults.clear())) for _ in range(n)])


def bench_pytest(n: int) -> None:
    print("pytest session (wall time of the whole `python -m pytest` run)")
    with tempfile.TemporaryDirectory(prefix="onceflow-bench-") as tmp:
        Path(tmp, "test_with.py").write_text("def test_with(onceflow):\n    onceflow.client('sts')\n")
        Path(tmp, "test_without.py").write_text("def test_without():\n    pass\n")
        Path(tmp, "test_ten.py").write_text(textwrap.dedent("""
            import pytest
            @pytest.mark.parametrize("n", range(10))
            def test_ten(onceflow, n):
                onceflow.create_table(f"table-{n}")
        """))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

        def session(*args: str) -> float:
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
            started = time.perf_counter()
            done = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
            return time.perf_counter() - started

        plugin = ("-p", "onceflow.testing.plugin")
        blocked = ("-p", "no:onceflow", "-p", "no:onceflow.testing.plugin")
        show("one test, no fixture, plugin blocked", [session(*blocked, "test_without.py") for _ in range(n)])
        show("one test, no fixture, plugin loaded", [session(*plugin, "test_without.py") for _ in range(n)])
        show("one test using the onceflow fixture", [session(*plugin, "test_with.py") for _ in range(n)])
        show("ten tests using it (a table each)", [session(*plugin, "test_ten.py") for _ in range(n)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--resets", type=int, default=30)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    bench_start(args.starts)
    bench_reset(args.resets)
    bench_pytest(max(2, args.starts // 2))


if __name__ == "__main__":
    main()
