"""The whole proof of the seed workflow (every default kind, plus --conflict-input; then the opt-in
crash kind on its own) with
the seed lab's protected worker, on the data folder of a running server: wall time from the call
to the report (the private copy and its stack included), the time of the runs alone, and runs/s.

    python bench/bench_prove.py [--rounds 3]
    python bench/bench_prove.py --ledger-overhead [--calls 20000]

`--ledger-overhead` measures, in process and without the wire (whose noise would hide a few
microseconds), what the effect ledger of every `onceflow serve` adds to one DynamoDB PutItem: the
handler as registered (ledger-wrapped) against the handler it wraps, for a root caller (not a
workflow's write: a context lookup) and for a write a task call makes (one more row in the same
transaction), on an in-memory store and on a durable one (group commit's fsync included).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "service"))
from prove_setup import orders_lab  # noqa: E402

from onceflow.prove import prove  # noqa: E402
from serverproc import ServerProcess  # noqa: E402


def ledger_overhead(calls: int) -> None:
    for durable in (False, True):
        _ledger_overhead(durable, calls if not durable else max(200, calls // 20))


def _ledger_overhead(durable: bool, n: int) -> None:
    from onceflow.config import Settings
    from onceflow.context import Principal, RequestContext
    from onceflow.server import build_stack
    from onceflow.sfn.engine.integrations.calls import TASK_CALL

    folder = Path(tempfile.mkdtemp(prefix="bench-ledger-"))
    settings = Settings(port=0, in_memory=not durable, data_dir=folder if durable else None)
    stack = build_stack(settings)
    root = Principal.root(settings.account_id)

    def ctx(op: str) -> RequestContext:
        return RequestContext("dynamodb", op, settings.account_id, "us-east-1", root)

    # In memory: the process's CPU time (the machine is shared; other processes' load stays out).
    # Durable: wall time, since waiting for the fsync is the cost.
    clock = time.perf_counter if durable else time.process_time

    def run(handler: Any, task: tuple[str, int] | None) -> float:
        token = TASK_CALL.set(task)
        try:
            started = clock()
            for i in range(n):
                item = {"id": {"S": f"k{i % 500}"}, "v": {"N": str(i)}}
                handler(ctx("PutItem"), {"TableName": "bench", "Item": item})
            return (clock() - started) / n * 1e6
        finally:
            TASK_CALL.reset(token)

    try:
        create = stack.registry.get("dynamodb", "CreateTable")
        assert create is not None
        create(ctx("CreateTable"), {"TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
                                    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                                    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
        wrapped = stack.registry.get("dynamodb", "PutItem")
        bare = wrapped.__wrapped__  # type: ignore[union-attr]
        task = ("arn:aws:states:us-east-1:000000000000:execution:m:e", 7)
        cases = (("bare", bare, None), ("root", wrapped, None), ("bare ", bare, task), ("task", wrapped, task))
        seen: dict[str, list[float]] = {label: [] for label, _, _ in cases}
        for _ in range(5):  # interleaved, best of 5: the machine is shared, noise only ever adds
            for label, handler, where in cases:
                seen[label].append(run(handler, where))
        best = {label: min(times) for label, times in seen.items()}
        store = "durable (fsync), wall time" if durable else "in memory, CPU time"
        print(f"PutItem, {store}, {n} calls, best of 5: handler alone {best['bare']:.1f} us; with the ledger, "
              f"root caller {best['root']:.1f} us ({best['root'] - best['bare']:+.1f}); a task's write "
              f"{best['task']:.1f} us ({best['task'] - best['bare ']:+.1f}: one ledger row)")
    finally:
        for hook in reversed(stack.on_shutdown):
            hook()
        stack.db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", default="protected")
    parser.add_argument("--ledger-overhead", action="store_true")
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    if args.ledger_overhead:
        ledger_overhead(args.calls)
        return
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
