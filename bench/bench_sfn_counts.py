"""Instructions per execution of the 100-Pass chain and of Choice -> Pass -> Pass, in process (no
HTTP), counted by callgrind: a figure that does not depend on the machine's load, so two checkouts
can be compared on a busy machine.

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/cg.%p \
        python bench/bench_sfn_counts.py [--executions 40] [--workload chain|choice]
    (run it with PYTHONPATH=<checkout>/src; it prints the instructions per execution)

Without valgrind it prints the process CPU per execution instead. Executions run one after the
other on a store in a fresh folder (durable, as the server keeps it), after 5 uncounted ones.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sfn_workloads import CHAIN, CHOICE, in_process  # after the path: bench/ is no package


def under_callgrind() -> bool:
    return "vgpreload" in os.environ.get("LD_PRELOAD", "")


def callgrind(*args: str) -> str:
    return subprocess.run(["callgrind_control", *args, str(os.getpid())], capture_output=True, text=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--executions", type=int, default=40)
    ap.add_argument("--cg-dir", default="/tmp", help="the folder of valgrind's --callgrind-out-file")
    ap.add_argument("--workload", choices=("chain", "choice"), default="chain")
    opts = ap.parse_args()

    stack, call, role = in_process("bench-sfn-counts-")
    definition = CHAIN if opts.workload == "chain" else CHOICE
    machine = call("stepfunctions", "CreateStateMachine", {"name": "m", "definition": json.dumps(definition),
                                                           "roleArn": role})["stateMachineArn"]
    engine = stack.services["stepfunctions"].engine

    def run(n: int) -> None:
        for _ in range(n):
            started = call("stepfunctions", "StartExecution", {"stateMachineArn": machine, "input": '{"n": 1}'})
            engine.wait_done(started["executionArn"], 60)

    run(5)
    counting = under_callgrind()
    if counting:
        callgrind("-z")
        callgrind("-i", "on")
    c0 = time.process_time()
    run(opts.executions)
    cpu_ms = 1000 * (time.process_time() - c0) / opts.executions
    if counting:
        callgrind("-d", "counted")
        callgrind("-i", "off")
        dumps = sorted(Path(opts.cg_dir).glob(f"*.{os.getpid()}.*"), key=lambda p: p.stat().st_mtime)
        m = re.search(r"^totals: (\d+)", dumps[-1].read_text(), re.M) if dumps else None
        total = int(m.group(1)) if m else -1
        print(f"{opts.workload}: {total / opts.executions / 1e6:.3f} M instructions per execution "
              f"({opts.executions} executions; {dumps[-1] if dumps else 'no dump found'})", flush=True)
    else:
        print(f"{opts.workload}: {cpu_ms:.2f} CPU ms per execution ({opts.executions} executions; "
              f"load {os.getloadavg()[0]:.1f})", flush=True)
    for hook in reversed(stack.on_shutdown):
        hook()
    stack.db.close()
    sys.exit(0)


if __name__ == "__main__":
    main()
