"""The sandbox's own rules without a server: log events cut at CloudWatch's limit, file names as
Lambda shows them, which Python folders a worker's namespace must put back, the code copies'
ownership, uids per function, and the fallback when isolation is impossible."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import struct
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from onceflow.lambda_.runtime import confine, logstreams, paths, protocol
from onceflow.lambda_.runtime.pool import Pool, WorkerSpec
from onceflow.lambda_.runtime.sandbox import UID_BASE, UID_BLOCK, Sandbox

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="uids and chown need root")
LIMIT = protocol.MAX_EVENT_BYTES


@dataclass
class Host:
    mount_ns: bool = True
    unreadable: str = ""


@pytest.mark.parametrize(
    ("message", "sizes"),
    [
        ("short\n", [6]),
        ("y" * LIMIT, [LIMIT]),
        ("y" * (LIMIT + 1), [LIMIT, 1]),
        ("y" * 600_000, [LIMIT, LIMIT, 600_000 - 2 * LIMIT]),
    ],
)
def test_split_event_sizes(message: str, sizes: list[int]) -> None:
    parts = logstreams.split_event(message)
    assert [len(p.encode()) for p in parts] == sizes
    assert "".join(parts) == message


def test_split_event_never_cuts_a_character() -> None:
    message = "y" + "é" * LIMIT  # 2 bytes each: the first cut falls inside one
    parts = logstreams.split_event(message)
    assert "".join(parts) == message
    assert all(len(p.encode()) <= LIMIT for p in parts)


def test_aws_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LAMBDA_TASK_ROOT", str(tmp_path))
    monkeypatch.setenv("AWS_EXECUTION_ENV", "AWS_Lambda_python3.12")
    import json

    import botocore

    assert paths.aws_path(str(tmp_path / "app.py")) == "/var/task/app.py"
    assert paths.aws_path(botocore.__file__) == "/var/runtime/botocore/__init__.py"
    assert paths.aws_path(json.__file__) == "/var/lang/lib/python3.12/json/__init__.py"
    assert paths.aws_path(pytest.__file__).startswith("/var/lang/lib/python3.12/site-packages/")
    assert paths.aws_path("/elsewhere/x.py") == "/elsewhere/x.py"


def test_python_paths_and_blocked_folders() -> None:
    paths = confine.python_paths()
    assert "/" not in paths
    assert any(os.path.realpath(sysconfig.get_paths()["stdlib"]).startswith(p) for p in paths)
    assert not any(p != q and p.startswith(q + "/") for p in paths for q in paths)  # nested ones folded
    base = Path(tempfile.mkdtemp())  # under the open /tmp, unlike pytest's 0700 tmp_path
    try:
        base.chmod(0o755)
        assert confine.blocked_folder(str(base)) is None
        locked = base / "home"
        (locked / "py" / "lib").mkdir(parents=True)
        locked.chmod(0o700)
        assert confine.blocked_folder(str(locked / "py" / "lib")) == str(locked)  # the outermost one
    finally:
        shutil.rmtree(base)
    assert confine.to_expose(["/tmp/x/src"]) == ["/tmp/x/src"]  # under /tmp: the private one hides it


def test_limits_travel_in_the_spawn_spec() -> None:
    limits = confine.Limits(uid=100_007, gid=100_007, memory_mb=128, ephemeral_mb=512, tmp_dir="/t", private_tmp=True)
    assert confine.Limits.from_spec(limits.to_spec()) == limits
    assert confine.Limits.from_spec(None) == confine.Limits()


@ROOT_ONLY
def test_each_function_gets_its_own_uid_and_private_copy(tmp_path: Path) -> None:
    code = tmp_path / "abc123"
    (code / "pkg").mkdir(parents=True)
    (code / "app.py").write_text("x = 1\n")
    (code / "run.sh").write_text("#!/bin/sh\n")
    (code / "run.sh").chmod(0o755)
    sandbox = Sandbox(isolate=True)
    try:
        one = sandbox.place("acct/r/one", str(code), Host())
        two = sandbox.place("acct/r/two", str(code), Host())
        assert one.uid is not None and two.uid is not None and one.uid != two.uid
        assert one.uid >= UID_BASE and one.gid == one.uid
        assert sandbox.place("acct/r/one", str(code), Host()) == one  # stable within a run
        assert one.task_root != two.task_root != str(code)
        assert one.private_tmp
        app = Path(one.task_root) / "app.py"
        info = app.stat()
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, one.gid, 0o640)
        assert stat.S_IMODE((Path(one.task_root) / "run.sh").stat().st_mode) == 0o750
        assert stat.S_IMODE(Path(one.task_root).parent.stat().st_mode) == 0o750  # others cannot list it
        tmp = sandbox.new_tmp(one.uid)
        assert (os.stat(tmp).st_uid, stat.S_IMODE(os.stat(tmp).st_mode)) == (one.uid, 0o700)
    finally:
        sandbox.close()
    assert not sandbox.root.exists()


@ROOT_ONLY
def test_no_uid_when_the_python_is_unreadable_and_nothing_can_fix_it(tmp_path: Path) -> None:
    sandbox = Sandbox(isolate=True)
    try:
        placement = sandbox.place("acct/r/f", str(tmp_path), Host(mount_ns=False, unreadable="/root"))
        assert (placement.uid, placement.task_root) == (None, str(tmp_path))
        fixed = sandbox.place("acct/r/f", str(tmp_path), Host(mount_ns=True, unreadable=""))
        assert fixed.uid is not None
    finally:
        sandbox.close()


def test_without_root_the_code_stays_where_it_is(tmp_path: Path) -> None:
    sandbox = Sandbox(isolate=False)
    try:
        placement = sandbox.place("acct/r/f", str(tmp_path), Host())
        assert (placement.uid, placement.gid, placement.task_root, placement.private_tmp) == (
            None, None, str(tmp_path), False)  # fmt: skip
    finally:
        sandbox.close()


def test_abandoned_sandboxes_are_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dead = tmp_path / "onceflow-sandbox-dead"
    dead.mkdir()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    (dead / "server.pid").write_text(str(pid))  # a pid that no longer runs
    alive = tmp_path / "onceflow-sandbox-alive"
    alive.mkdir()
    (alive / "server.pid").write_text(str(os.getpid()))
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path))
    sandbox = Sandbox(isolate=False)
    try:
        assert sandbox.root.parent == tmp_path
        assert not dead.exists() and alive.exists()
    finally:
        sandbox.close()


@ROOT_ONLY
def test_two_servers_never_share_a_uid() -> None:
    first, second = Sandbox(isolate=True), Sandbox(isolate=True)
    try:
        a, b = first.uid_for("acct/r/f"), second.uid_for("acct/r/f")
        assert a is not None and b is not None
        assert a // UID_BLOCK != b // UID_BLOCK  # each holds its own block
        g = first.uid_for("acct/r/g")
        assert g is not None and a < g and g // UID_BLOCK == a // UID_BLOCK  # the next free one of the block
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize(
    "raw",
    [
        struct.pack(">II", protocol.MAX_HEADER_BYTES + 1, 0),  # a header beyond the bound
        struct.pack(">II", 2, protocol.MAX_BODY_BYTES + 1),  # a body beyond the bound
        struct.pack(">II", 3, 0) + b"{x}",  # not JSON
        struct.pack(">II", 2, 0) + b"[]",  # JSON, not a header
    ],
    ids=["huge-header", "huge-body", "bad-json", "not-an-object"],
)
def test_frames_from_a_worker_are_bounded(raw: bytes) -> None:
    a, b = socket.socketpair()
    with a, b:
        a.sendall(raw)
        with pytest.raises(protocol.BadFrame):
            protocol.recv(b, bounded=True)


def _readable_python() -> str | None:
    """A Python other uids can read (a system one), for the no-namespace path; None if there is none."""
    src = str(Path(confine.__file__).resolve().parents[3])
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate) and not confine.blocked_folder(os.path.realpath(candidate)):
            if not confine.blocked_folder(src) and not confine.blocked_folder("/usr/lib"):
                return candidate
    return None


@ROOT_ONLY
@pytest.mark.skipif(_readable_python() is None, reason="no Python that other uids can read")
def test_without_a_namespace_the_uid_and_tmpdir_still_apply() -> None:
    """What a root container without mount namespaces gets: its own uid, a private TMPDIR, the
    file size capped at EphemeralStorage (a uid-readable interpreter, as a system Python is)."""
    code = Path(tempfile.mkdtemp())
    try:
        (code / "app.py").write_text(
            "import os, tempfile, resource\n"
            "def handler(event, context):\n"
            "    tmp = tempfile.gettempdir()\n"
            "    big = os.path.join(tmp, 'big')\n"
            "    try:\n"
            "        with open(big, 'wb') as f:\n"
            "            f.write(b'x' * (2 << 20))\n"
            "        capped = False\n"
            "    except OSError:\n"
            "        capped = True\n"
            "    return {'uid': os.getuid(), 'tmp': tmp, 'mode': oct(os.stat(tmp).st_mode & 0o777), 'capped': capped}\n"
        )
        pool = Pool(1, sandbox=Sandbox(isolate=True, private_tmp=False))
        spec = WorkerSpec("k", "acct/r/nons", "$LATEST", str(code), "app.handler", 10.0,
                          lambda _s: {"PATH": "/usr/bin:/bin"}, interpreter=_readable_python(),
                          memory_mb=128, ephemeral_mb=1)  # fmt: skip
        try:
            out = pool.invoke(spec, "r", "arn", b"{}")
        finally:
            pool.shutdown()
        assert out.ok, out.payload
        result = json.loads(out.payload)
        assert result["uid"] >= UID_BASE and result["mode"] == "0o700" and result["capped"]
        assert Path(result["tmp"]).parent.parent.name.startswith("onceflow-sandbox-")  # <sandbox>/tmp/<worker>
    finally:
        shutil.rmtree(code)
