"""The whole proof of the seed workflow (every default kind, plus --conflict-input; then the opt-in
crash kind on its own) with
the seed lab's protected worker, on the data folder of a running server: wall time from the call
to the report (the private copy and its stack included), the time of the runs alone, and runs/s.

    python bench/bench_prove.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "service"))
from prove_setup import orders_lab  # noqa: E402

from onceflow.prove import prove  # noqa: E402
from serverproc import ServerProcess  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", default="protected")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="bench-prove-")) / "data"
    server = ServerProcess(data).start()
    try:
        lab = orders_lab(server.url, "bench-prove", args.worker)
        walls, runs_only, counts = [], [], []
        for _ in range(args.rounds):
            started = time.perf_counter()
            report = prove(lab["state_machine"], {"id": "order-1", "quantity": 2}, data=data,
                           ignore_tables=[lab["attempts_table"]], conflict_input={"id": "order-1", "quantity": 3})
            walls.append(time.perf_counter() - started)
            runs_only.append(report.seconds)
            counts.append(len(report.runs) + 1)
            print(f"  {report.summary()}  wall {walls[-1]:.2f} s", flush=True)
        wall, inner, n = statistics.median(walls), statistics.median(runs_only), counts[0]
        print(f"seed workflow, {args.worker} worker: {n} runs (baseline included)")
        print(f"  wall (copy + stack + runs + report): median {wall:.2f} s, {n / wall:.1f} runs/s")
        print(f"  runs alone (report.seconds):        median {inner:.2f} s, {n / inner:.1f} runs/s")
        started = time.perf_counter()
        crash = prove(lab["state_machine"], {"id": "order-1", "quantity": 2}, data=data,
                      ignore_tables=[lab["attempts_table"]], kinds=["crash"])
        took = time.perf_counter() - started
        print(f"  --faults crash (opt-in): {len(crash.runs)} points, wall {took:.2f} s, "
              f"{crash.seconds / max(1, len(crash.runs)):.2f} s per crash run")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
