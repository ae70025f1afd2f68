"""Which Python runs a function: --lambda-interpreter wins, else a python3.X on PATH that really is
3.X, else the host Python with a warning in INIT_START and in the server log; a --lambda-interpreter
that cannot run the workers stops `onceflow serve` at start with one line."""

from __future__ import annotations

import base64
import glob
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
import venv
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from serverproc import ServerProcess

HOST = f"python{sys.version_info.major}.{sys.version_info.minor}"
# A supported runtime that is not the host's version (the case of the issue: python3.12 on a 3.11 host).
OTHER = next(r for r in ("python3.12", "python3.13") if r != HOST)
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
WHO_RUNS = ("import sys\ndef handler(event, context):\n"
            "    return {'version': list(sys.version_info[:2]), 'executable': sys.executable}\n")


def code(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", text)
    return buf.getvalue()


def deploy_and_invoke(server: ServerProcess, runtime: str, handler: str = WHO_RUNS) -> tuple[dict[str, Any], str]:
    """Create a function of runtime, invoke it once (a cold start); return its result and INIT_START line."""
    role = server.client("iam").create_role(RoleName=f"r-{runtime.replace('.', '')}",
                                            AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    lam = server.client("lambda")
    name = f"who-{runtime.replace('.', '')}"
    lam.create_function(FunctionName=name, Runtime=runtime, Role=role, Handler="app.handler",
                        Code={"ZipFile": code(handler)})
    answer = lam.invoke(FunctionName=name, LogType="Tail")
    assert "FunctionError" not in answer, answer["Payload"].read()
    tail = base64.b64decode(answer["LogResult"]).decode()
    assert tail.startswith("START RequestId: ")  # recorded: INIT_START goes to the stream, not to LogResult
    return json.loads(answer["Payload"].read()), _init_start(server, name)


def _init_start(server: ServerProcess, name: str) -> str:
    """The INIT_START line in the function's log stream, once shipped (Lambda ships logs asynchronously)."""
    logs = server.client("logs")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            events = logs.filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        except logs.exceptions.ResourceNotFoundException:
            events = []
        found = [e["message"].rstrip("\n") for e in events if e["message"].startswith("INIT_START")]
        if found:
            return str(found[0])
        time.sleep(0.05)
    raise AssertionError(f"no INIT_START line in /aws/lambda/{name}")


def serve_fails(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "onceflow", "serve", "--port", "0", "--in-memory", *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_a_missing_interpreter_stops_the_server_at_start(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "python3.12"
    done = serve_fails("--lambda-interpreter", f"python3.12={missing}")
    assert done.returncode == 1
    assert done.stderr == f"onceflow: --lambda-interpreter python3.12={missing}: no such file\n"
    assert done.stdout == ""


def test_an_interpreter_without_boto3_stops_the_server_at_start(tmp_path: Path) -> None:
    venv.create(tmp_path / "bare", with_pip=False)  # no system site-packages: no boto3
    python = tmp_path / "bare" / "bin" / "python"
    done = serve_fails("--lambda-interpreter", f"{OTHER}={python}")
    assert done.returncode == 1
    assert done.stderr == (f"onceflow: --lambda-interpreter {OTHER}={python}: boto3 is not installed for it "
                           "(Lambda's Python runtimes include boto3)\n")


def test_the_explicit_interpreter_wins(tmp_path: Path, server_factory: Callable[..., ServerProcess]) -> None:
    chosen = tmp_path / "bin" / "python-for-lambda"
    chosen.parent.mkdir()
    chosen.symlink_to(sys.executable)
    server = server_factory(extra_args=("--lambda-interpreter", f"{OTHER}={chosen}"))
    result, init_start = deploy_and_invoke(server, OTHER)
    assert result["executable"] == str(chosen)
    assert "warning" not in init_start
    assert "no usable" not in server.log()


def test_without_a_matching_python_the_host_runs_it_with_a_warning(
    tmp_path: Path, server_factory: Callable[..., ServerProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A python3.X on PATH that is really the host's Python (like a stale link) is passed over.
    impostor = tmp_path / "bin" / OTHER
    impostor.parent.mkdir()
    impostor.symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(impostor.parent))
    server = server_factory()
    result, init_start = deploy_and_invoke(server, OTHER)
    assert result["version"] == list(sys.version_info[:2])
    host = sys.version.split()[0]
    warning = (f"no usable {OTHER} on PATH: {OTHER} functions run on the host's Python {host}; "
               f"pass --lambda-interpreter {OTHER}=PATH to choose one")
    assert init_start.startswith(f"INIT_START Runtime Version: {OTHER.replace('python', 'python:')}.v1\t")
    assert init_start.endswith(f"\tonceflow warning: {warning}")
    log = server.log()
    assert f"WARNING onceflow.lambda: {warning} (passed over: {impostor} (is Python {HOST[6:]}))" in log
    # The host's own version needs no search and gets no warning.
    _, host_init = deploy_and_invoke(server, HOST)
    assert "warning" not in host_init
    assert log.count("no usable") == 1


def _real_other_python() -> tuple[str, str] | None:
    """(runtime, path) of an installed CPython of another supported version, if this machine has one."""
    folders = [*os.environ.get("PATH", "").split(os.pathsep), "/usr/bin", "/usr/local/bin"]
    found = [os.path.join(f, f"python3.{m}") for f in folders for m in (12, 13)]
    found += sorted(glob.glob(os.path.join(os.path.dirname(sys.base_prefix), "*", "bin", "python3.1[23]")))
    for path in found:
        if not os.access(path, os.X_OK):
            continue
        done = subprocess.run([path, "-c", "import sys; print('python%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=30)
        runtime = done.stdout.strip()
        if done.returncode == 0 and runtime in ("python3.12", "python3.13") and runtime != HOST:
            return runtime, path
    return None


def _with_boto3(runtime: str, python: str, folder: Path) -> Path:
    """A `python3.X` wrapper on that interpreter that also sees the host's pure-Python boto3 stack."""
    site = folder / "site"
    site.mkdir(parents=True)
    for module in ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six"):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        origin = Path(spec.origin)
        (site / (origin.parent.name if origin.name == "__init__.py" else origin.name)).symlink_to(
            origin.parent if origin.name == "__init__.py" else origin)
    wrapper = folder / "bin" / runtime
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{site}" exec {python} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def test_a_matching_python_on_path_runs_the_runtime(
    tmp_path: Path, server_factory: Callable[..., ServerProcess], monkeypatch: pytest.MonkeyPatch
) -> None:
    other = _real_other_python()
    if other is None:
        pytest.skip("no CPython 3.12 or 3.13 besides the host's on this machine")
    runtime, python = other
    wrapper = _with_boto3(runtime, python, tmp_path)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    server = server_factory()
    # PEP 695 syntax: valid 3.12 code that the host's 3.11 cannot even compile.
    handler = WHO_RUNS + "type Order = dict[str, int]\n"
    result, init_start = deploy_and_invoke(server, runtime, handler)
    assert result["version"] == [3, int(runtime[8:])]
    assert "warning" not in init_start
    assert "no usable" not in server.log()
