"""Step Functions benchmark: onceflow side by side with moto's server (execute_state_machine on,
its port of another emulator's interpreter) in the same run.

    python bench/bench_sfn.py [--chains 20] [--map-items 1000] [--parked 10000] [--skip-moto]

- transitions/s for a chain of 100 Pass states (several executions started back to back);
- transitions/s for one Map over N items (a Pass per item);
- resident memory of the onceflow server with N executions parked in a Wait state.
Each server runs in its own process; onceflow keeps its data on disk (durable, group commit).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import botocore.config
from servers import spawn_moto, spawn_onceflow

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


# ------------------------------------------------------------------------------ workloads
def chain(url: str, executions: int) -> float:
    """Transitions/s: `executions` runs of 100 Pass states, one after the other."""
    sfn = client(url)
    states = {f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"} for i in range(99)}
    states["P99"] = {"Type": "Pass", "End": True}
    arns = [create(sfn, {"StartAt": "P0", "States": states}) for _ in range(executions)]
    t0 = time.perf_counter()
    for arn in arns:  # named: moto calls every unnamed execution "None"
        run = sfn.start_execution(stateMachineArn=arn, name=uuid.uuid4().hex, input='{"n": 1}')["executionArn"]
        wait_all(sfn, [run], 600)
    return 100 * executions / (time.perf_counter() - t0)


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


def seed_workflow(url: str, executions: int) -> float:
    """Executions/s of the seed order workflow (Choice, two lambda:invoke Tasks writing DynamoDB)."""
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
    arn = create(sfn, json.loads(template.replace("WORKER_NAME", "bench-worker")))
    warm = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"id": "warm", "quantity": 1}))["executionArn"]
    wait_all(sfn, [warm], 120)
    t0 = time.perf_counter()

    def start(i: int) -> str:
        order = {"id": f"o{i}", "quantity": 2}
        return client_for_thread(url).start_execution(stateMachineArn=arn, input=json.dumps(order))["executionArn"]

    with ThreadPoolExecutor(8) as pool:
        arns = list(pool.map(start, range(executions)))
    wait_all(sfn, arns, 600)
    return executions / (time.perf_counter() - t0)


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


def on_moto(workload: Any, arg: int) -> float:
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
    return sum(rates) / len(rates)


_local = threading.local()


def client_for_thread(url: str) -> Any:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = client(url)
    return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chains", type=int, default=20)
    ap.add_argument("--moto-chains", type=int, default=1)
    ap.add_argument("--map-items", type=int, default=1000)
    ap.add_argument("--parked", type=int, default=10000)
    ap.add_argument("--seed-executions", type=int, default=200)
    ap.add_argument("--skip-moto", action="store_true")
    opts = ap.parse_args()

    data = tempfile.mkdtemp(prefix="bench-sfn-")
    once_proc, once_url = spawn_onceflow(data)
    make_role(once_url)
    moto_proc = None
    try:
        print(f"{'workload':<40}{'onceflow':>12}{'moto':>12}{'ratio':>9}")
        once = chain(once_url, opts.chains)
        moto = on_moto(chain, opts.moto_chains) if not opts.skip_moto else float("nan")
        print(f"{'100 Pass chain, transitions/s':<40}{once:>12.0f}{moto:>12.1f}{once / moto:>8.1f}x", flush=True)
        once = fan_out(once_url, opts.map_items)
        moto = on_moto(fan_out, opts.map_items) if not opts.skip_moto else float("nan")
        label = f"Map over {opts.map_items} items, transitions/s"
        print(f"{label:<40}{once:>12.0f}{moto:>12.1f}{once / moto:>8.1f}x", flush=True)
        rate = seed_workflow(once_url, opts.seed_executions)
        label = "seed workflow (2 Lambda tasks), exec/s"
        print(f"{label:<40}{rate:>12.1f}{'n/a':>12}   (moto runs Lambda in Docker only)", flush=True)
        before, after, rate = parked(once_url, once_proc.pid, opts.parked)
        print(f"{opts.parked} executions parked in a Wait: server RSS {before:.0f} MB -> {after:.0f} MB "
              f"({(after - before) * 1024 / opts.parked:.1f} KB each); {rate:.0f} StartExecution/s", flush=True)
    finally:
        for p in (once_proc, moto_proc):
            if p is not None:
                p.terminate()
                p.wait(10)


if __name__ == "__main__":
    main()
