"""The worker runtime end to end without a server: a real zygote, forked workers and the pool."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.pool import Pool, WorkerSpec

APP = """
import os, sys, time
print("init")

class Boom(Exception):
    pass

def handler(event, context):
    mode = event.get("mode")
    if mode == "raise":
        raise Boom("bad")
    if mode == "sleep":
        time.sleep(event["s"])
    if mode == "kill":
        os._exit(7)
    if mode == "bytes":
        return b"raw"
    if mode == "unicode":
        return {"s": "\u00e9"}
    print("line one")
    sys.stderr.write("to stderr\\n")
    sys.stdout.buffer.write(b"bytes line\\n")
    os.system("echo from a subprocess")
    sys.stdout.write("partial")
    return {"pid": os.getpid(), "env": os.environ.get("MY_VAR"), "arn": context.invoked_function_arn}
"""


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("broken")
    (root / "raises.py").write_text("raise ValueError('no config')\n")
    (root / "syntax.py").write_text("def (:\n")
    (root / "exits.py").write_text("import sys\nsys.exit(3)\n")
    return root


@pytest.fixture(scope="module")
def code(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("task")
    (root / "app.py").write_text(APP)
    return root


@pytest.fixture
def pool() -> Iterator[Pool]:
    p = Pool(4)
    yield p
    p.shutdown()


def spec(code: Path, key: str = "k", handler: str = "app.handler", timeout: float = 5.0, env: dict | None = None,
         function_id: str = "f") -> WorkerSpec:  # fmt: skip
    base = {"PATH": "/usr/bin:/bin", "MY_VAR": "v", "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11",
            "LAMBDA_TASK_ROOT": str(code)}  # fmt: skip
    return WorkerSpec(key, function_id, "$LATEST", str(code), handler, timeout, lambda _s: {**base, **(env or {})})


def run(pool: Pool, s: WorkerSpec, event: dict) -> tuple:
    rid = str(uuid.uuid4())
    return rid, pool.invoke(s, rid, "arn:aws:lambda:us-east-1:123456789012:function:f", json.dumps(event).encode())


def test_protocol_roundtrip() -> None:
    a, b = socket.socketpair()
    with a, b:
        protocol.send(a, {"t": "x", "n": 1}, b"\x00body")
        assert protocol.recv(b) == ({"t": "x", "n": 1}, b"\x00body")
        a.close()
        with pytest.raises(protocol.Closed):
            protocol.recv(b)


def test_result_logs_and_warm_reuse(pool: Pool, code: Path) -> None:
    s = spec(code)
    _, first = run(pool, s, {})
    assert first.ok and first.init_ms is not None
    assert json.loads(first.payload) == {"pid": json.loads(first.payload)["pid"], "env": "v",
                                         "arn": "arn:aws:lambda:us-east-1:123456789012:function:f"}  # fmt: skip
    assert [m for _, m in first.init_logs] == ["init\n"]
    assert [m for _, m in first.logs] == ["line one\n", "to stderr\n", "bytes line\n",
                                          "from a subprocess\n", "partial\n"]  # fmt: skip
    _, second = run(pool, s, {})
    assert second.init_ms is None and second.init_logs == []
    assert json.loads(second.payload)["pid"] == json.loads(first.payload)["pid"]


def test_bytes_and_ascii_results(pool: Pool, code: Path) -> None:
    assert run(pool, spec(code), {"mode": "bytes"})[1].payload == b"raw"
    assert run(pool, spec(code), {"mode": "unicode"})[1].payload == b'{"s": "\\u00e9"}'
    as_312 = spec(code, key="312", env={"AWS_EXECUTION_ENV": "AWS_Lambda_python3.12"})
    assert run(pool, as_312, {"mode": "unicode"})[1].payload == '{"s": "é"}'.encode()


def test_exception_document(pool: Pool, code: Path) -> None:
    rid, out = run(pool, spec(code), {"mode": "raise"})
    assert not out.ok
    assert json.loads(out.payload) == {
        "errorMessage": "bad", "errorType": "Boom", "requestId": rid,
        "stackTrace": ['  File "/var/task/app.py", line 11, in handler\n    raise Boom("bad")\n'],
    }  # fmt: skip


def test_worker_death_is_exit_error(pool: Pool, code: Path) -> None:
    rid, out = run(pool, spec(code), {"mode": "kill"})
    assert (out.status, out.error_type) == ("error", "Runtime.ExitError")
    message = json.loads(out.payload)["errorMessage"]
    assert message == f"RequestId: {rid} Error: Runtime exited with error: exit status 7"
    assert pool.live_workers() == 0


def test_timeout_kills(pool: Pool, code: Path) -> None:
    rid, out = run(pool, spec(code, timeout=0.5), {"mode": "sleep", "s": 30})
    assert out.status == "timeout"
    assert json.loads(out.payload) == {
        "errorType": "Sandbox.Timedout",
        "errorMessage": f"RequestId: {rid} Error: Task timed out after {out.duration_ms / 1000:.2f} seconds",
    }
    assert pool.live_workers() == 0


def test_retire_replaces_workers(pool: Pool, code: Path) -> None:
    s = spec(code)
    before = json.loads(run(pool, s, {})[1].payload)["pid"]
    pool.retire("f")
    assert pool.live_workers() == 0
    assert json.loads(run(pool, s, {})[1].payload)["pid"] != before


def test_bounded_workers_wait_instead_of_failing(code: Path) -> None:
    pool = Pool(1)
    peak: list[int] = []
    results: list = []
    try:
        def one(key: str) -> None:
            results.append(run(pool, spec(code, key=key, function_id=key), {"mode": "sleep", "s": 0.2})[1])
            peak.append(pool.live_workers())

        threads = [threading.Thread(target=one, args=(f"k{i}",)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 3 and all(r.ok for r in results)
        assert max(peak) <= 1
    finally:
        pool.shutdown()


def test_every_waiter_of_a_full_pool_gets_a_worker(code: Path) -> None:
    """A release wakes one waiter, not all: a backlog of waiters on one function and on others must
    still drain, each release handing its worker (or its place) on, none left waiting for ever."""
    pool = Pool(2)
    done: list[bool] = []
    try:
        def one(key: str) -> None:
            done.append(run(pool, spec(code, key=key, function_id=key), {"mode": "sleep", "s": 0.02})[1].ok)

        keys = ["same"] * 8 + [f"other{i}" for i in range(4)]
        threads = [threading.Thread(target=one, args=(k,), daemon=True) for k in keys]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60  # a lost wake-up hangs its thread: caught here, not hanging the run
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        assert not any(t.is_alive() for t in threads)
        assert done == [True] * len(keys)
        assert pool.live_workers() <= 2
    finally:
        pool.shutdown()


def test_init_errors_report_an_empty_request_id(pool: Pool, code: Path) -> None:
    _, out = run(pool, spec(code, key="x", handler="nope.handler"), {})
    assert json.loads(out.payload) == {
        "errorMessage": "Unable to import module 'nope': No module named 'nope'",
        "errorType": "Runtime.ImportModuleError",
        "requestId": "",
        "stackTrace": [],
    }
    assert out.error_type == "Runtime.ImportModuleError"


def test_init_failures(pool: Pool, broken: Path) -> None:
    _, out = run(pool, spec(broken, key="raises", handler="raises.handler"), {})
    doc = json.loads(out.payload)
    assert (doc["errorType"], doc["errorMessage"], doc["requestId"]) == ("ValueError", "no config", "")
    last = doc["stackTrace"][-1]
    assert last == '  File "/var/task/raises.py", line 1, in <module>\n    raise ValueError(\'no config\')\n'
    _, out = run(pool, spec(broken, key="syntax", handler="syntax.handler"), {})
    doc = json.loads(out.payload)
    assert doc["errorType"] == "Runtime.UserCodeSyntaxError"
    assert doc["errorMessage"].startswith("Syntax error in module 'syntax': ")
    assert doc["stackTrace"] == ['  File "/var/task/syntax.py" Line 1\n    def (:\n']
    rid, out = run(pool, spec(broken, key="exits", handler="exits.handler"), {})
    assert json.loads(out.payload) == {
        "errorType": "Runtime.ExitError",
        "errorMessage": f"RequestId: {rid} Error: Runtime exited with error: exit status 3",
    }


OTHER_PYTHON = Path("/root/.pyenv/versions/3.12.1/bin/python3.12")


@pytest.mark.skipif(not OTHER_PYTHON.exists(), reason="no second Python interpreter on this machine")
def test_configured_interpreter_runs_the_runtime(tmp_path: Path) -> None:
    source = "import sys\n\ndef handler(event, context):\n    return list(sys.version_info[:2])\n"
    (tmp_path / "ver.py").write_text(source)
    pool = Pool(2, {"python3.12": str(OTHER_PYTHON)})
    try:
        base = spec(tmp_path, key="v", handler="ver.handler")
        other = WorkerSpec(base.key, base.function_id, base.version, base.task_root, base.handler, base.timeout_s,
                           base.make_env, interpreter=str(OTHER_PYTHON))  # fmt: skip
        _, out = run(pool, other, {})
        assert out.ok, out.payload
        assert json.loads(out.payload) == [3, 12]
    finally:
        pool.shutdown()


def test_nested_invocation_may_exceed_the_bound(tmp_path: Path) -> None:
    """A handler that invokes another function (with its own credentials) must not wait for a worker
    that only its own return would free: the parent here waits for a file the child writes."""
    flag, started = tmp_path / "child-ran", tmp_path / "parent-started"
    (tmp_path / "nest.py").write_text(
        "import os, time\n\n"
        "def parent(event, context):\n"
        f"    open({str(started)!r}, 'w').close()\n"
        f"    while not os.path.exists({str(flag)!r}):\n"
        "        time.sleep(0.01)\n"
        "    return 'parent done'\n\n"
        "def child(event, context):\n"
        f"    open({str(flag)!r}, 'w').close()\n"
        "    return 'child done'\n"
    )
    pool = Pool(1)
    try:
        parent = spec(tmp_path, key="p", handler="nest.parent", timeout=10, env={"AWS_ACCESS_KEY_ID": "ASIAPARENT"},
                      function_id="p")  # fmt: skip
        child = spec(tmp_path, key="c", handler="nest.child", function_id="c")
        results: dict[str, bytes] = {}
        thread = threading.Thread(target=lambda: results.update(parent=run(pool, parent, {})[1].payload))
        thread.start()
        while not started.exists():  # the parent runs on the only worker
            threading.Event().wait(0.01)
        rid = str(uuid.uuid4())
        results["child"] = pool.invoke(child, rid, "arn", b"{}", caller_key="ASIAPARENT").payload
        thread.join()
        assert results == {"parent": b'"parent done"', "child": b'"child done"'}
        assert pool.live_workers() <= 1  # the extra worker is not kept beyond the bound
    finally:
        pool.shutdown()
