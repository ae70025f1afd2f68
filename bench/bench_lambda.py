"""Lambda invoke latency and throughput against a real server, side by side with the floor.

    python bench/bench_lambda.py [--n 2000] [--threads 8] [--cold 20]

Rows:
  in-process      the handler function called directly in this process (the floor; for the DynamoDB
                  handler that includes its own boto3 call to onceflow over HTTP)
  worker pool     Pool.invoke on a warm worker: the process round trip alone (empty handler only)
  internal.call   Invoke through the registry in a stack built in this process (no HTTP): onceflow's
                  Lambda service + worker round trip (empty handler only)
  boto3 Invoke    a boto3 Invoke over HTTP to `onceflow serve` (what a user sees)
  boto3 GetFunctionConfiguration   the same client's cost for a call that runs no handler (HTTP floor)
and the cold start of a handler that imports boto3 and creates a client at module level (also with
two layers mounted, the handler importing a module of each), a function URL's warm GET, and the
server's memory while one handler prints 100 MB of log lines (--flood-mb; README "Lambda sandbox").
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config

ROOT = Path(__file__).resolve().parent.parent

EMPTY = "def handler(event, context):\n    return None\n"
DDB = """
import os
import boto3

db = boto3.client("dynamodb")


def handler(event, context):
    db.get_item(TableName=os.environ["TABLE"], Key={"id": {"S": "k"}})
    return None
"""
COLD = """
import boto3

client = boto3.client("dynamodb")


def handler(event, context):
    return None
"""
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}  # fmt: skip
DDB_POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]}
CONFIG = botocore.config.Config(retries={"max_attempts": 1}, max_pool_connections=64)


def make_zip(source: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", source)
    return buf.getvalue()


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def timed(fn: Callable[[], Any], n: int) -> list[float]:
    for _ in range(min(50, n)):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def throughput(make_call: Callable[[], Callable[[], Any]], n: int, threads: int) -> float:
    calls = [make_call() for _ in range(threads)]
    per = n // threads
    barrier = threading.Barrier(threads + 1)

    def work(call: Callable[[], Any]) -> None:
        barrier.wait()
        for _ in range(per):
            call()

    workers = [threading.Thread(target=work, args=(c,)) for c in calls]
    for w in workers:
        w.start()
    barrier.wait()
    t = time.perf_counter()
    for w in workers:
        w.join()
    return per * threads / (time.perf_counter() - t)


def row(label: str, samples: list[float], rate: float | None = None) -> None:
    rate_text = f"{rate:8.0f}/s" if rate else " " * 10
    print(f"  {label:<30} p50 {statistics.median(samples):7.3f} ms   p99 {pct(samples, 0.99):7.3f} ms   {rate_text}")


class Setup:
    def __init__(self, url: str) -> None:
        self.url = url
        self.iam = self.client("iam")
        self.lam = self.client("lambda")
        role = f"bench-{uuid.uuid4().hex[:6]}"
        self.role = self.iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
        self.iam.put_role_policy(RoleName=role, PolicyName="ddb", PolicyDocument=json.dumps(DDB_POLICY))
        self.table = f"bench-{uuid.uuid4().hex[:6]}"
        ddb = self.client("dynamodb")
        ddb.create_table(TableName=self.table, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])  # fmt: skip
        ddb.put_item(TableName=self.table, Item={"id": {"S": "k"}})

    def client(self, service: str) -> Any:
        return boto3.client(service, endpoint_url=self.url, region_name="us-east-1", aws_access_key_id="test",
                            aws_secret_access_key="test", config=CONFIG)  # fmt: skip

    def deploy(self, source: str) -> str:
        name = f"bench-{uuid.uuid4().hex[:8]}"
        self.lam.create_function(FunctionName=name, Runtime="python3.12", Role=self.role, Handler="app.handler",
                                 Code={"ZipFile": make_zip(source)},
                                 Environment={"Variables": {"TABLE": self.table}})  # fmt: skip
        return name


FLOOD = """
def handler(event, context):
    line = "x" * 99
    for _ in range(event["mb"] * 10_000):
        print(line)
    return None
"""


def status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_flood(setup: Setup, pid: int, mb: int) -> None:
    name = setup.deploy(FLOOD)
    setup.lam.update_function_configuration(FunctionName=name, Timeout=600)
    setup.lam.invoke(FunctionName=name, Payload=b'{"mb": 1}')  # warm: worker, stream, writer
    rss, peak = status_mb(pid, "VmRSS"), status_mb(pid, "VmHWM")
    t = time.perf_counter()
    setup.lam.invoke(FunctionName=name, Payload=json.dumps({"mb": mb}).encode())
    took = time.perf_counter() - t
    print(f"\na handler printing {mb} MB of 100-byte lines (server on a data folder)")
    print(f"  server RSS before {rss:7.1f} MB   after {status_mb(pid, 'VmRSS'):7.1f} MB   "
          f"peak grew {status_mb(pid, 'VmHWM') - peak:6.1f} MB   invoke took {took:5.1f} s")  # fmt: skip


def in_process(source: str, env: dict[str, str]) -> Callable[[], Any]:
    """The handler module loaded in this process, as the floor."""
    import os

    os.environ.update(env)
    namespace: dict[str, Any] = {}
    exec(compile(source, "app.py", "exec"), namespace)
    handler = namespace["handler"]
    return lambda: handler({}, None)


def invoker(client: Any, name: str) -> Callable[[], Any]:
    return lambda: client.invoke(FunctionName=name, Payload=b"{}")["Payload"].read()


def bench_warm(setup: Setup, args: argparse.Namespace, stack_call: Callable[[str], Callable[[], Any]]) -> None:
    for label, source in (("empty handler", EMPTY), ("one DynamoDB GetItem", DDB)):
        name = setup.deploy(source)
        env = {"TABLE": setup.table, "AWS_ENDPOINT_URL": setup.url, "AWS_ACCESS_KEY_ID": "test",
               "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
        print(f"\n{label} ({args.n} sequential calls; throughput with {args.threads} threads)")
        row("in-process", timed(in_process(source, env), args.n))
        if source is EMPTY:  # the in-process stack serves no HTTP, so its handlers cannot reach DynamoDB
            pool_call, pool = pool_only(source)
            row("worker pool", timed(pool_call, args.n), throughput(lambda f=pool_call: f, args.n, args.threads))
            pool.shutdown()
            internal = stack_call(name)
            row("internal.call", timed(internal, args.n), throughput(lambda f=internal: f, args.n, args.threads))
        row("boto3 Invoke", timed(invoker(setup.lam, name), args.n),
            throughput(lambda n=name: invoker(setup.client("lambda"), n), args.n, args.threads))  # fmt: skip
        if source is EMPTY:
            row("boto3 GetFunctionConfiguration",
                timed(lambda n=name: setup.lam.get_function_configuration(FunctionName=n), args.n))  # fmt: skip


def pool_only(source: str) -> tuple[Callable[[], Any], Any]:
    from onceflow.lambda_.runtime.pool import Pool, WorkerSpec

    root = Path(tempfile.mkdtemp(prefix="bench-pool-"))
    (root / "app.py").write_text(source)
    pool = Pool(16)
    spec = WorkerSpec("k", "f", "$LATEST", str(root), "app.handler", 30.0, lambda _stream: {"PATH": "/usr/bin:/bin"})
    return lambda: pool.invoke(spec, "r", "arn", b"{}"), pool


def bench_cold(setup: Setup, args: argparse.Namespace) -> None:
    name = setup.deploy(COLD)
    totals, inits = [], []
    for i in range(args.cold):
        setup.lam.update_function_configuration(FunctionName=name, Description=f"rev {i}")  # retires the worker
        t = time.perf_counter()
        out = setup.lam.invoke(FunctionName=name, Payload=b"{}", LogType="Tail")
        totals.append((time.perf_counter() - t) * 1000)
        tail = base64.b64decode(out["LogResult"]).decode()
        inits.append(float(re.search(r"Init Duration: ([\d.]+) ms", tail).group(1)))
    warm = timed(lambda: setup.lam.invoke(FunctionName=name, Payload=b"{}"), 200)
    print(f"\ncold start of a handler importing boto3 and creating a client ({args.cold} cold starts)")
    row("cold Invoke", totals)
    row("Init Duration", inits)
    row("warm Invoke", warm)


LAYERED = """
import boto3
import helper_a, helper_b

client = boto3.client("dynamodb")


def handler(event, context):
    return helper_a.VALUE + helper_b.VALUE
"""


def bench_layers(setup: Setup, args: argparse.Namespace) -> None:
    """Cold and warm invokes of COLD's work with two layers on /opt (the handler imports from both)."""
    arns = []
    for tag in ("a", "b"):
        files = {f"python/helper_{tag}.py": "VALUE = 1\n"}
        files.update({f"python/lib/python3.12/site-packages/pkg_{tag}/m{i}.py": "X = 1\n" for i in range(200)})
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for path, text in files.items():
                zf.writestr(path, text)
        layer = setup.lam.publish_layer_version(LayerName=f"bench-{tag}-{uuid.uuid4().hex[:6]}",
                                                Content={"ZipFile": buf.getvalue()})  # fmt: skip
        arns.append(layer["LayerVersionArn"])
    name = setup.deploy(LAYERED)
    setup.lam.update_function_configuration(FunctionName=name, Layers=arns)
    totals, inits = [], []
    for i in range(args.cold):
        setup.lam.update_function_configuration(FunctionName=name, Description=f"rev {i}")
        t = time.perf_counter()
        out = setup.lam.invoke(FunctionName=name, Payload=b"{}", LogType="Tail")
        totals.append((time.perf_counter() - t) * 1000)
        tail = base64.b64decode(out["LogResult"]).decode()
        inits.append(float(re.search(r"Init Duration: ([\d.]+) ms", tail).group(1)))  # type: ignore[union-attr]
    warm = timed(lambda: setup.lam.invoke(FunctionName=name, Payload=b"{}"), 200)
    print(f"\nthe same with two layers mounted ({args.cold} cold starts)")
    row("cold Invoke", totals)
    row("Init Duration", inits)
    row("warm Invoke", warm)


def bench_url(setup: Setup, args: argparse.Namespace) -> None:
    """A function URL (auth NONE) called with plain HTTP on a kept-alive connection."""
    import http.client
    from urllib.parse import urlsplit

    name = setup.deploy(EMPTY)
    url = setup.lam.create_function_url_config(FunctionName=name, AuthType="NONE")["FunctionUrl"]
    setup.lam.add_permission(FunctionName=name, StatementId="public", Action="lambda:InvokeFunctionUrl",
                             Principal="*", FunctionUrlAuthType="NONE")  # fmt: skip
    setup.lam.add_permission(FunctionName=name, StatementId="public-invoke", Action="lambda:InvokeFunction",
                             Principal="*", InvokedViaFunctionUrl=True)  # fmt: skip
    server = urlsplit(setup.url)
    conn = http.client.HTTPConnection(server.hostname, server.port)
    host = urlsplit(url).netloc

    def get() -> None:
        conn.request("GET", "/", headers={"Host": host})
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status

    print(f"\nfunction URL, empty handler ({args.n} sequential GETs)")
    row("GET function URL", timed(get, args.n))
    conn.close()


def local_stack() -> tuple[Any, Callable[[str], Callable[[], Any]]]:
    """A second, in-process stack for internal.call (its own zygote and workers)."""
    from onceflow import internal
    from onceflow.config import Settings
    from onceflow.context import Principal
    from onceflow.server import build_stack

    stack = build_stack(Settings(in_memory=True, port=0))
    for hook in stack.on_start:
        hook()
    root = Principal.root(stack.settings.account_id)
    role = internal.call(stack, root, "iam", "CreateRole",
                         {"RoleName": "bench", "AssumeRolePolicyDocument": json.dumps(TRUST)}, region="us-east-1")
    created: dict[str, str] = {}

    def make(name: str) -> Callable[[], Any]:
        if name not in created:
            internal.call(stack, root, "lambda", "CreateFunction", {
                "FunctionName": name, "Runtime": "python3.12", "Role": role["Role"]["Arn"],
                "Handler": "app.handler", "Code": {"ZipFile": make_zip(EMPTY)}}, region="us-east-1")  # fmt: skip
            created[name] = name
        params = {"FunctionName": name, "Payload": b"{}"}
        return lambda: internal.call(stack, root, "lambda", "Invoke", params, region="us-east-1")

    return stack, make


class Server:
    """`onceflow serve` on a free port and a data folder."""

    def __init__(self) -> None:
        data = Path(tempfile.mkdtemp(prefix="bench-lambda-")) / "data"
        head = [sys.executable, "-m", "onceflow"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        self.proc = subprocess.Popen([*head, "serve", "--port", "0", "--data", str(data)],
                                     stdout=subprocess.PIPE, text=True, env=env)  # fmt: skip
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if m := re.search(r"onceflow ready at (http://\S+)", line):
                self.url = m.group(1)
                break
        else:
            raise RuntimeError("onceflow did not start")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--cold", type=int, default=20)
    parser.add_argument("--flood-mb", type=int, default=100)
    args = parser.parse_args()
    server = Server()
    stack = None
    try:
        setup = Setup(server.url)
        stack, stack_call = local_stack()
        print(f"onceflow at {server.url} (data on disk)")
        bench_warm(setup, args, stack_call)
        bench_cold(setup, args)
        bench_layers(setup, args)
        bench_url(setup, args)
        if args.flood_mb:
            bench_flood(setup, server.proc.pid, args.flood_mb)
    finally:
        if stack is not None:
            for hook in reversed(stack.on_shutdown):
                hook()
        server.stop()


if __name__ == "__main__":
    main()
