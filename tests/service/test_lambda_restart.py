"""Functions survive a restart (code re-unpacked from the database), and no worker process outlives
the server, whether it stops cleanly or is killed with -9."""

from __future__ import annotations

import io
import json
import shutil
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import botocore.config

from serverproc import client_factory

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
APP = "import os\n\ndef handler(event, context):\n    return {'pid': os.getpid(), 'ppid': os.getppid()}\n"
CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def client(url: str, service: str) -> Any:
    return client_factory(url)(service, config=CONFIG)


def make_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    return buf.getvalue()


def deploy(url: str) -> tuple[str, str]:
    role = client(url, "iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:8]}",
                                          AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]  # fmt: skip
    name = f"fn-{uuid.uuid4().hex[:8]}"
    sha = client(url, "lambda").create_function(
        FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler", Code={"ZipFile": make_zip()}
    )["CodeSha256"]
    return name, sha


def invoke(url: str, name: str) -> dict[str, int]:
    out = client(url, "lambda").invoke(FunctionName=name, Payload=b"{}")
    assert "FunctionError" not in out
    return json.loads(out["Payload"].read())


def alive(pid: int) -> bool:
    """Running and not a zombie (a container's init may reap late)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def gone(pids: list[int]) -> bool:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if not any(alive(p) for p in pids):
            return True
        time.sleep(0.05)
    return False


def test_functions_survive_restart_and_code_is_unpacked_again(server_factory: Callable[..., Any],
                                                              tmp_path: Path) -> None:  # fmt: skip
    data = tmp_path / "data"
    first = server_factory(data)
    name, sha = deploy(first.url)
    invoke(first.url, name)
    assert first.stop() == 0
    shutil.rmtree(data / "lambda")  # only the database keeps the zip now
    second = server_factory(data)
    assert client(second.url, "lambda").get_function_configuration(FunctionName=name)["CodeSha256"] == sha
    assert set(invoke(second.url, name)) == {"pid", "ppid"}


def test_clean_stop_ends_every_worker(server_factory: Callable[..., Any]) -> None:
    server = server_factory()
    name, _ = deploy(server.url)
    pids = invoke(server.url, name)
    assert alive(pids["pid"]) and alive(pids["ppid"])
    assert server.stop() == 0
    assert gone([pids["pid"], pids["ppid"]])


def test_kill9_leaves_no_workers(server_factory: Callable[..., Any]) -> None:
    server = server_factory()
    name, _ = deploy(server.url)
    pids = invoke(server.url, name)
    server.kill()
    assert gone([pids["pid"], pids["ppid"]])
