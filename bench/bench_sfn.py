"""Step Functions benchmark: onceflow side by side with moto's server (execute_state_machine on,
its port of another emulator's interpreter) and a null HTTP server (what the client's own calls
cost: the floor), in the same run, with the machine's load average.

    python bench/bench_sfn.py [--rounds 3] [--chains 20] [--choice-executions 200] [--seed-executions 200]
                              [--map-items 1000] [--parked 10000] [--skip-moto]
    python bench/bench_sfn.py --commits 1000   # in process: CPU per execution, the store's COMMIT latencies
    python bench/bench_sfn.py --base /work/main/src --rounds 4 --seed-executions 200   # the seed workflow,
                                               # this checkout against a baseline's, alternating
    python bench/bench_sfn.py --base /work/main/src --pairs 300   # the chain and Choice workloads, single
                                               # executions of the two checkouts interleaved one by one

- transitions/s for a chain of 100 Pass states, executions started one after the other by one
  client (start, then poll DescribeExecution every millisecond until it ends), and the same from the
  server's own clock (stopDate - startDate); the targets' order rotates every round;
- executions/s of Choice -> Pass -> Pass with 4 concurrent starters (each starts, waits, starts);
- the seed workflow with its real Python worker: executions/s with 8 concurrent starters (they start
  every execution at once, then wait for all), the server's and its workers' CPU per execution, and
  the server time (stopDate - startDate) of a lone execution, polled every millisecond and, in
  alternating executions, every 50 ms (the fast poll's own CPU slows the execution it waits for);
- transitions/s for one Map over N items (a Pass per item);
- resident memory of the onceflow server with N executions parked in a Wait state.
Each server runs in its own process; onceflow keeps its data on disk (durable, group commit).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import botocore.config
from servers import NULL_SERVER, spawn_moto, spawn_onceflow
from sfn_workloads import CHAIN, CHOICE, in_process

CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, max_pool_connections=32,
                                read_timeout=120)
ROLE = "arn:aws:iam::000000000000:role/bench-sfn"

def client(url: str) -> Any:
    return boto3.client("stepfunctions", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def create(sfn: Any, definition: dict[str, Any]) -> str:
    return sfn.create_state_machine(name=f"bench-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                    roleArn=ROLE)["stateMachineArn"]


def make_role(url: str) -> None:
    """onceflow, like AWS, wants a role that trusts states.amazonaws.com (moto does not check)."""
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    iam = boto3.client("iam", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test", config=CONFIG)
    iam.create_role(RoleName="bench-sfn", AssumeRolePolicyDocument=json.dumps(trust))


def wait_all(sfn: Any, arns: list[str], timeout: float) -> None:
    deadline = time.time() + timeout
    pending = list(arns)
    while pending:
        if time.time() > deadline:
            raise TimeoutError(f"{len(pending)} executions still running")
        status = sfn.describe_execution(executionArn=pending[0])["status"]
        if status == "RUNNING":
            time.sleep(0.01)
            continue
        if status != "SUCCEEDED":
            raise RuntimeError(f"{pending[0]} ended {status}")
        pending.pop(0)


def wait_one(sfn: Any, run: str, timeout: float = 600, every: float = 0.001) -> float:
    """Poll one execution every `every` seconds until it ends; its server time (stopDate - startDate)."""
    deadline = time.time() + timeout
    while True:
        d = sfn.describe_execution(executionArn=run)
        if d["status"] != "RUNNING":
            break
        if time.time() > deadline:
            raise TimeoutError(f"{run} still running")
        time.sleep(every)
    if d["status"] != "SUCCEEDED":
        raise RuntimeError(f"{run} ended {d['status']}")
    stop = d.get("stopDate")
    return (stop - d["startDate"]).total_seconds() if stop is not None else float("nan")


# ------------------------------------------------------------------------------ workloads


def cpu_s(pid: int | None) -> float:
    """The server process's CPU seconds (user + system): steadier than wall time on a busy machine."""
    if pid is None:
        return float("nan")
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def chain(url: str, executions: int, pid: int | None = None) -> tuple[float, float, float]:
    """Transitions/s of `executions` runs of 100 Pass states, one after the other: as the client
    sees them, and from the server's own clock; and the server's CPU ms per execution (given its pid)."""
    sfn = client(url)
    arns = [create(sfn, CHAIN) for _ in range(executions)]
    server = 0.0
    t0, c0 = time.perf_counter(), cpu_s(pid)
    for arn in arns:  # named: moto calls every unnamed execution "None"
        run = sfn.start_execution(stateMachineArn=arn, name=uuid.uuid4().hex, input='{"n": 1}')["executionArn"]
        server += wait_one(sfn, run)
    cpu_ms = 1000 * (cpu_s(pid) - c0) / executions
    return 100 * executions / (time.perf_counter() - t0), 100 * executions / server, cpu_ms


def choice_pass(url: str, executions: int, starters: int = 4, pid: int | None = None) -> tuple[float, float]:
    """Executions/s of Choice -> Pass -> Pass, `starters` threads each starting one and waiting for
    it; and the server's CPU ms per execution (given its pid)."""
    arn = create(client(url), CHOICE)

    def one(i: int) -> float:
        sfn = client_for_thread(url)
        run = sfn.start_execution(stateMachineArn=arn, name=uuid.uuid4().hex, input='{"n": 1}')["executionArn"]
        return wait_one(sfn, run)

    with ThreadPoolExecutor(starters) as pool:
        list(pool.map(one, range(starters)))  # every thread's client built before the clock starts
        t0, c0 = time.perf_counter(), cpu_s(pid)
        list(pool.map(one, range(executions)))
    return executions / (time.perf_counter() - t0), 1000 * (cpu_s(pid) - c0) / executions


def fan_out(url: str, items: int) -> float:
    """Transitions/s: one Map over `items` items, one Pass state per item."""
    sfn = client(url)
    arn = create(sfn, {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ItemsPath": "$.items",
        "ItemProcessor": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}, "End": True}}})
    t0 = time.perf_counter()
    run = sfn.start_execution(stateMachineArn=arn, name=uuid.uuid4().hex,
                              input=json.dumps({"items": list(range(items))}))["executionArn"]
    wait_all(sfn, [run], 900)
    return (items + 1) / (time.perf_counter() - t0)


def seed_setup(url: str) -> str:
    """The seed order workflow on a server (the orders example's prepared environment, its worker
    allowed to be invoked by the bench's role); its state machine ARN, after one warm-up run."""
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from examples.orders.provision import provision

    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    env = provision("bench", endpoint_url=url, session=session)
    iam = session.client("iam", endpoint_url=url)
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": env["worker_arn"]}]}
    iam.put_role_policy(RoleName="bench-sfn", PolicyName="invoke", PolicyDocument=json.dumps(policy))
    template = (Path(__file__).resolve().parents[1] / "examples/orders/workflow-template.json").read_text()
    sfn = client(url)
    arn: str = create(sfn, json.loads(template.replace("WORKER_NAME", "bench-worker")))
    warm = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"id": "warm", "quantity": 1}))["executionArn"]
    wait_all(sfn, [warm], 120)
    return arn


def descendants_cpu_s(pid: int | None) -> float:
    """CPU seconds of every live process below `pid` (the zygote, the Lambda workers and keepers)."""
    if pid is None:
        return float("nan")
    total, todo = 0.0, [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{parent}/task/{tid}/children") as fh:
                    kids = [int(k) for k in fh.read().split()]
            except OSError:
                continue
            for kid in kids:
                try:
                    total += cpu_s(kid)
                except OSError:
                    continue
                todo.append(kid)
    return total


# A lone seed execution's server time is the server's own clock (stopDate - startDate), so the
# client need not poll fast: DescribeExecution every millisecond keeps the bench's client busy for
# most of a core (each call ~2 ms of boto3) and the server answering, on 2 cores shared with the
# Lambda worker whose work is the execution. Both are measured, in alternating executions.
QUIET_POLL_S = 0.05


def seed_workflow(url: str, arn: str, executions: int, lone: int = 10,
                  pid: int | None = None) -> tuple[float, float, float, float, float]:
    """Executions/s of the seed order workflow (Choice, two lambda:invoke Tasks writing DynamoDB)
    with 8 concurrent starters, the median server time (ms) of `lone` executions run alone (polled
    every millisecond), the CPU ms per execution of the concurrent part: the server's, and its Lambda
    workers' (given its pid), and the lone median again with the client polling every QUIET_POLL_S."""
    sfn = client(url)
    batch = uuid.uuid4().hex[:6]
    t0, c0, w0 = time.perf_counter(), cpu_s(pid), descendants_cpu_s(pid)

    def start(i: int) -> str:
        order = {"id": f"o{batch}{i}", "quantity": 2}
        return client_for_thread(url).start_execution(stateMachineArn=arn, input=json.dumps(order))["executionArn"]

    with ThreadPoolExecutor(8) as pool:
        arns = list(pool.map(start, range(executions)))
    wait_all(sfn, arns, 600)
    rate = executions / (time.perf_counter() - t0)
    server_ms = 1000 * (cpu_s(pid) - c0) / executions
    workers_ms = 1000 * (descendants_cpu_s(pid) - w0) / executions
    alone: dict[float, list[float]] = {0.001: [], QUIET_POLL_S: []}
    for i in range(lone):
        for every, times in alone.items():
            run = sfn.start_execution(stateMachineArn=arn, input=json.dumps(
                {"id": f"l{batch}{i}{every}", "quantity": 2}))["executionArn"]
            times.append(wait_one(sfn, run, every=every))
    med = statistics.median
    return rate, 1000 * med(alone[0.001]), server_ms, workers_ms, 1000 * med(alone[QUIET_POLL_S])


def seed_against_base(opts: argparse.Namespace) -> None:
    """The seed workflow on this checkout's onceflow and on a baseline's (`--base SRC`), each on
    its own server and data folder, in alternating order round after round, with ratios."""
    servers = {"this": spawn_onceflow(tempfile.mkdtemp(prefix="bench-sfn-")),
               "base": spawn_onceflow(tempfile.mkdtemp(prefix="bench-sfn-base-"), src=opts.base)}
    try:
        arns = {}
        for name, (_proc, url) in servers.items():
            make_role(url)
            arns[name] = seed_setup(url)
        print(f"base: {opts.base}; {load()}", flush=True)
        runs: dict[str, list[tuple[float, float, float, float, float]]] = {"this": [], "base": []}
        for r in range(opts.rounds):
            for name in (["this", "base"] if r % 2 == 0 else ["base", "this"]):
                proc, url = servers[name]
                runs[name].append(seed_workflow(url, arns[name], opts.seed_executions, pid=proc.pid))
                rate, lone_ms, server_ms, workers_ms, quiet_ms = runs[name][-1]
                print(f"round {r + 1} {name}: {rate:.1f} exec/s, lone {lone_ms:.1f} ms ({quiet_ms:.1f} polled every "
                      f"{QUIET_POLL_S * 1000:.0f} ms), CPU ms/exec server {server_ms:.2f} workers {workers_ms:.2f}; "
                      f"{load()}", flush=True)
        med = statistics.median
        print(f"{'seed workflow, median of ' + str(opts.rounds) + ' rounds':<44}{'this':>10}{'base':>10}{'ratio':>8}")
        labels = ("8 starters, exec/s", "lone execution, server ms", "server CPU ms per execution",
                  "workers CPU ms per execution", f"lone, server ms, polled every {QUIET_POLL_S * 1000:.0f} ms")
        for k, label in enumerate(labels):
            this, base = med(x[k] for x in runs["this"]), med(x[k] for x in runs["base"])
            print(f"{label:<44}{this:>10.2f}{base:>10.2f}{this / base:>7.2f}x")
        print(load())
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)


def pairs_against_base(opts: argparse.Namespace) -> None:
    """The 100-Pass chain and Choice->Pass->Pass on this checkout's onceflow and on a baseline's
    (`--base SRC --pairs N`): single executions interleaved one by one (this, base, base, this, ...),
    so each pair ran under the same load; the client's time per execution (start until the first
    DescribeExecution that shows it ended) and each server's CPU per execution."""
    servers = {"this": spawn_onceflow(tempfile.mkdtemp(prefix="bench-sfn-")),
               "base": spawn_onceflow(tempfile.mkdtemp(prefix="bench-sfn-base-"), src=opts.base)}
    try:
        clients = {}
        for name, (_proc, url) in servers.items():
            make_role(url)
            clients[name] = client(url)
        print(f"base: {opts.base}; {load()}", flush=True)
        for label, definition in (("100 Pass chain", CHAIN), ("Choice->Pass->Pass", CHOICE)):
            arns = {name: create(sfn, definition) for name, sfn in clients.items()}
            walls: dict[str, list[float]] = {"this": [], "base": []}
            cpu = {"this": 0.0, "base": 0.0}
            for i in range(opts.pairs + 10):  # the first 10 pairs warm up, uncounted
                for name in (["this", "base"] if i % 2 == 0 else ["base", "this"]):
                    proc, _url = servers[name]
                    sfn = clients[name]
                    t0, c0 = time.perf_counter(), cpu_s(proc.pid)
                    run = sfn.start_execution(stateMachineArn=arns[name], name=uuid.uuid4().hex,
                                              input='{"n": 1}')["executionArn"]
                    wait_one(sfn, run)
                    if i >= 10:
                        walls[name].append(time.perf_counter() - t0)
                        cpu[name] += cpu_s(proc.pid) - c0
            med = statistics.median
            this, base = med(walls["this"]), med(walls["base"])
            faster = sum(a < b for a, b in zip(walls["this"], walls["base"], strict=True))
            print(f"{label}: client ms per execution (median) this {1000 * this:.2f} base {1000 * base:.2f} "
                  f"({this / base:.2f}x; this faster in {faster}/{opts.pairs} pairs); server CPU ms per execution "
                  f"this {1000 * cpu['this'] / opts.pairs:.2f} base {1000 * cpu['base'] / opts.pairs:.2f} "
                  f"({cpu['this'] / cpu['base']:.2f}x); {load()}", flush=True)
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def parked(url: str, pid: int, count: int) -> tuple[float, float, float]:
    """RSS before and after parking `count` executions in a one-hour Wait; also starts/s."""
    sfn = client(url)
    arn = create(sfn, {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})
    before = rss_mb(pid)
    t0 = time.perf_counter()

    def start(i: int) -> str:
        return client_for_thread(url).start_execution(stateMachineArn=arn, input=json.dumps({"i": i}))["executionArn"]

    with ThreadPoolExecutor(8) as pool:
        arns = list(pool.map(start, range(count)))
    rate = count / (time.perf_counter() - t0)
    for a in (arns[0], arns[-1]):  # every execution is parked once its WaitStateEntered is written
        while not any(e["type"] == "WaitStateEntered" for e in sfn.get_execution_history(executionArn=a)["events"]):
            time.sleep(0.05)
    time.sleep(2)
    return before, rss_mb(pid), rate


def on_moto(workload: Any, arg: int) -> Any:
    """A fresh moto server per execution: its interpreter fails to start a second execution in one
    server (StartExecution deep-copies the machine, reaching a finished execution's RLock)."""
    rates = []
    for _ in range(arg if workload is chain else 1):
        proc, url = spawn_moto({"stepfunctions": {"execute_state_machine": True}})
        try:
            rates.append(workload(url, 1 if workload is chain else arg))
        finally:
            proc.terminate()
            proc.wait(10)
    if workload is chain:
        return tuple(statistics.mean(r[k] for r in rates) for k in (0, 1, 2))
    return statistics.mean(rates)


# A DescribeExecution answer that also reads as a StartExecution one: the client loop's floor.
NULL_BODY = json.dumps({
    "executionArn": "arn:aws:states:us-east-1:000000000000:execution:m:e", "status": "SUCCEEDED",
    "stateMachineArn": "arn:aws:states:us-east-1:000000000000:stateMachine:m", "name": "e",
    "startDate": 1764590000.0, "stopDate": 1764590000.001, "input": "{}", "output": "{}"}).encode()
NULL_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: "
                 + str(len(NULL_BODY)).encode() + b"\r\n\r\n" + NULL_BODY)


def spawn_null() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-c", NULL_SERVER, NULL_RESPONSE.hex()], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    return proc, f"http://127.0.0.1:{int(proc.stdout.readline())}"


def null_chain(url: str, executions: int) -> float:
    """The chain's client loop against the null server: one start and one describe per execution
    (the least a client pays to see one execution end), as transitions/s."""
    sfn = client(url)
    t0 = time.perf_counter()
    for _ in range(executions):
        run = sfn.start_execution(stateMachineArn="arn:aws:states:us-east-1:000000000000:stateMachine:m",
                                  name=uuid.uuid4().hex, input='{"n": 1}')["executionArn"]
        wait_one(sfn, run)
    return 100 * executions / (time.perf_counter() - t0)


def null_choice(url: str, executions: int, starters: int = 4) -> float:
    def one(i: int) -> None:
        sfn = client_for_thread(url)
        wait_one(sfn, sfn.start_execution(stateMachineArn="arn:aws:states:us-east-1:000000000000:stateMachine:m",
                                          name="e", input="{}")["executionArn"])

    with ThreadPoolExecutor(starters) as pool:
        list(pool.map(one, range(starters)))
        t0 = time.perf_counter()
        list(pool.map(one, range(executions)))
    return executions / (time.perf_counter() - t0)


def commit_latency(executions: int) -> tuple[float, list[float]]:
    """In process, no HTTP: `executions` Choice->Pass->Pass runs one after the other on a store in a
    fresh folder; the process CPU ms per execution and every store COMMIT's duration (seconds), which
    shows where a checkpoint ran inside a commit (the writers' lock, and the loop, held meanwhile)."""
    stack, call, role = in_process("bench-sfn-store-")
    machine = call("stepfunctions", "CreateStateMachine", {"name": "choice", "definition": json.dumps(CHOICE),
                                                           "roleArn": role})["stateMachineArn"]
    engine = stack.services["stepfunctions"].engine
    commits: list[float] = []
    db = stack.db
    real = db._conn

    class Timed:  # the writer connection, timing its COMMITs
        def execute(self, sql: str, *args: Any) -> Any:
            t = time.perf_counter()
            try:
                return real.execute(sql, *args)
            finally:
                if sql == "COMMIT":
                    commits.append(time.perf_counter() - t)

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

    db._conn = Timed()  # type: ignore[assignment]
    c0 = time.process_time()
    for _ in range(executions):
        run = call("stepfunctions", "StartExecution", {"stateMachineArn": machine, "input": '{"n": 1}'})
        engine.wait_done(run["executionArn"], 60)
    cpu_ms = 1000 * (time.process_time() - c0) / executions
    db._conn = real
    for hook in reversed(stack.on_shutdown):
        hook()
    db.close()
    return cpu_ms, commits


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


_local = threading.local()


def client_for_thread(url: str) -> Any:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = client(url)
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the chain and Choice workloads, order rotated")
    ap.add_argument("--chains", type=int, default=20, help="100-Pass executions per round")
    ap.add_argument("--moto-chains", type=int, default=1)
    ap.add_argument("--choice-executions", type=int, default=200)
    ap.add_argument("--map-items", type=int, default=1000, help="0: skip")
    ap.add_argument("--parked", type=int, default=10000, help="0: skip")
    ap.add_argument("--seed-executions", type=int, default=200, help="0: skip")
    ap.add_argument("--skip-moto", action="store_true")
    ap.add_argument("--event-loop", choices=("asyncio", "uvloop"), default="asyncio",
                    help="onceflow's event loop (serve --event-loop)")
    ap.add_argument("--commits", type=int, default=0,
                    help="only this: N Choice executions in process, with the store's COMMIT latencies")
    ap.add_argument("--base", metavar="SRC", help="only the seed workflow, on this checkout and on the onceflow in "
                    "SRC (a baseline checkout's src folder), alternating: --rounds rounds of --seed-executions")
    ap.add_argument("--pairs", type=int, default=0, help="with --base: only the chain and Choice workloads, N "
                    "single executions on each checkout interleaved one by one")
    opts = ap.parse_args()
    if opts.base and opts.pairs:
        pairs_against_base(opts)
        return
    if opts.base:
        seed_against_base(opts)
        return
    if opts.commits:
        cpu_ms, commits = commit_latency(opts.commits)
        commits.sort()
        at = lambda q: 1000 * commits[min(len(commits) - 1, int(q * len(commits)))]  # noqa: E731
        print(f"{opts.commits} Choice->Pass->Pass in process: {cpu_ms:.2f} CPU ms per execution; "
              f"{len(commits)} COMMITs, ms: mean {1000 * statistics.mean(commits):.3f} p50 {at(0.5):.3f} "
              f"p99 {at(0.99):.2f} max {1000 * commits[-1]:.1f}; {load()}")
        return

    data = tempfile.mkdtemp(prefix="bench-sfn-")
    # (only when asked: a baseline checkout's server may not know the flag)
    loop_args = ("--event-loop", opts.event_loop) if opts.event_loop != "asyncio" else ()
    once_proc, once_url = spawn_onceflow(data, *loop_args)
    make_role(once_url)
    null_proc, null_url = spawn_null()
    try:
        print(load(), flush=True)
        targets = ["onceflow", "null floor"] + ([] if opts.skip_moto else ["moto"])
        runs: dict[str, list[Any]] = {t: [] for t in targets}
        choice: dict[str, list[float]] = {"onceflow": [], "null floor": []}
        choice_cpu: list[float] = []
        for r in range(opts.rounds):
            order = targets[r % len(targets):] + targets[:r % len(targets)]
            for t in order:
                if t == "onceflow":
                    runs[t].append(chain(once_url, opts.chains, once_proc.pid))
                    rate, cpu_ms = choice_pass(once_url, opts.choice_executions, pid=once_proc.pid)
                    choice[t].append(rate)
                    choice_cpu.append(cpu_ms)
                elif t == "null floor":
                    runs[t].append(null_chain(null_url, opts.chains))
                    choice[t].append(null_choice(null_url, opts.choice_executions))
                else:
                    runs[t].append(on_moto(chain, opts.moto_chains))
            cells = "  ".join(f"{t} {runs[t][-1][0] if t != 'null floor' else runs[t][-1]:.0f}" for t in targets)
            print(f"round {r + 1} ({' -> '.join(order)}): 100-Pass transitions/s {cells}; "
                  f"Choice->Pass->Pass exec/s onceflow {choice['onceflow'][-1]:.0f} "
                  f"floor {choice['null floor'][-1]:.0f}; {load()}", flush=True)
        med = statistics.median
        once, once_srv = med(r[0] for r in runs["onceflow"]), med(r[1] for r in runs["onceflow"])
        floor = med(runs["null floor"])
        moto = med(r[0] for r in runs["moto"]) if "moto" in runs else float("nan")
        moto_srv = med(r[1] for r in runs["moto"]) if "moto" in runs else float("nan")
        print(f"{'median of ' + str(opts.rounds) + ' rounds':<44}{'onceflow':>10}{'moto':>10}{'floor':>10}"
              f"{'x moto':>8}{'x floor':>9}")
        print(f"{'100 Pass chain, transitions/s (client)':<44}{once:>10.0f}{moto:>10.0f}{floor:>10.0f}"
              f"{once / moto:>7.1f}x{once / floor:>8.2f}x")
        print(f"{'100 Pass chain, transitions/s (server)':<44}{once_srv:>10.0f}{moto_srv:>10.0f}{'':>10}"
              f"{once_srv / moto_srv:>7.1f}x")
        c_once, c_floor = med(choice["onceflow"]), med(choice["null floor"])
        print(f"{'100 Pass chain, server CPU ms per execution':<44}{med(r[2] for r in runs['onceflow']):>10.2f}")
        print(f"{'Choice->Pass->Pass, server CPU ms per exec':<44}{med(choice_cpu):>10.2f}")
        print(f"{'Choice->Pass->Pass, 4 starters, exec/s':<44}{c_once:>10.0f}{'n/a':>10}{c_floor:>10.0f}"
              f"{'':>8}{c_once / c_floor:>8.2f}x", flush=True)
        if opts.seed_executions:
            rate, lone_ms, server_ms, workers_ms, quiet_ms = seed_workflow(
                once_url, seed_setup(once_url), opts.seed_executions, pid=once_proc.pid)
            print(f"{'seed workflow, 8 starters, exec/s':<44}{rate:>10.1f}{'n/a':>10}"
                  "   (moto runs Lambda in Docker only)")
            print(f"{'seed workflow, lone execution, server ms':<44}{lone_ms:>10.1f}   (median of 10, polled every "
                  f"1 ms; {quiet_ms:.1f} polled every {QUIET_POLL_S * 1000:.0f} ms); {load()}", flush=True)
            print(f"{'seed workflow, CPU ms per execution':<44}{server_ms:>10.2f}   server; {workers_ms:.2f} its "
                  "Lambda workers", flush=True)
        if opts.map_items:
            once_map = fan_out(once_url, opts.map_items)
            moto_map = on_moto(fan_out, opts.map_items) if not opts.skip_moto else float("nan")
            label = f"Map over {opts.map_items} items, transitions/s"
            print(f"{label:<44}{once_map:>10.0f}{moto_map:>10.0f}{'':>10}{once_map / moto_map:>7.1f}x", flush=True)
        if opts.parked:
            before, after, rate = parked(once_url, once_proc.pid, opts.parked)
            print(f"{opts.parked} executions parked in a Wait: server RSS {before:.0f} MB -> {after:.0f} MB "
                  f"({(after - before) * 1024 / opts.parked:.1f} KB each); {rate:.0f} StartExecution/s", flush=True)
        print(load())
    finally:
        for p in (once_proc, null_proc):
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
