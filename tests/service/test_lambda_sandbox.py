"""Handlers are sandboxed and bounded (README "Lambda sandbox"), tried as an attacker would, against a
real server on a data folder: what a handler can read, signal and leave behind, how much memory,
/tmp and server memory it can take, what its environment and stack traces show, and the zips no
file system can hold. Tests that need root (a uid per function) skip without it; CI runs as root."""

from __future__ import annotations

import base64
import io
import json
import os
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from onceflow.lambda_.runtime import confine
from serverproc import ServerProcess

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="a uid per function needs onceflow to run as root")
NAMESPACES = pytest.mark.skipif(
    os.geteuid() != 0 or not confine.probe_namespaces(),
    reason="private /dev/shm and /var/tmp need root and a mount namespace",
)
SERVER_SECRET = "ONCEFLOW_TEST_SERVER_SECRET"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
# A path a handler may not read is either not there for it (its /tmp, /var/tmp are its own, a
# folder it cannot enter is covered) or refused (modes, uids): both deny, as a test of modes alone
# would need a folder outside all of those.
DENIED = ({"error": "PermissionError"}, {"error": "FileNotFoundError"})
BAD_ZIP = "Could not unzip uploaded file. Please check your file, then try to upload again."
# The server's RSS may grow by at most this much while one handler prints 100 MB (README).
LOG_FLOOD_RSS_BOUND_MB = 64

APP = r"""
import json, os, signal, subprocess, sys, tempfile, time


def try_(fn):
    try:
        return {"ok": repr(fn())[:200]}
    except Exception as exc:
        return {"error": type(exc).__name__}


def handler(event, context):
    mode = event["mode"]
    if mode == "whoami":
        return {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
                "root": os.environ["LAMBDA_TASK_ROOT"], "tmp": tempfile.gettempdir()}
    if mode == "read":
        return {path: try_(lambda p=path: open(p, "rb").read(64)) for path in event["paths"]}
    if mode == "list":
        return {path: try_(lambda p=path: os.listdir(p)) for path in event["paths"]}
    if mode == "write":
        return {path: try_(lambda p=path: open(p, "a").write("x")) for path in event["paths"]}
    if mode == "kill":
        return try_(lambda: os.kill(event["pid"], signal.SIGTERM))
    if mode == "env":
        return dict(os.environ)
    if mode == "daemon":
        read, write = os.pipe()
        if os.fork() == 0:  # double fork: the grandchild is in its own session, parented to nobody we know
            os.setsid()
            if os.fork() == 0:
                os.write(write, str(os.getpid()).encode())
                time.sleep(600)
            os._exit(0)
        pid = os.read(read, 32).decode()
        print(f"daemon pid {pid}")
        time.sleep(60)
    if mode == "orphans":  # each shell leaves a background sleep behind, reparented away from us
        for _ in range(event["n"]):
            subprocess.run("sleep 0.05 &", shell=True, check=True)
        time.sleep(0.3)
        return [os.getpid(), os.getppid()]
    if mode == "allocate":
        blob = bytearray(event["mb"] * 1024 * 1024)
        return len(blob)
    if mode == "flood":
        line = "x" * 999
        for _ in range(event["mb"] * 1_000):
            print(line)
        return "done"
    if mode == "fill_tmp":
        path = os.path.join(tempfile.gettempdir(), "fill")
        chunk = b"\0" * (1 << 20)
        written = 0
        try:
            with open(path, "wb") as f:
                for _ in range(event["mb"]):
                    f.write(chunk)
                    f.flush()
                    written += 1
        except OSError as exc:
            return {"written_mb": written, "error": type(exc).__name__}
        finally:
            if os.path.exists(path):
                os.unlink(path)
        return {"written_mb": written}
    if mode == "tmp_marker":
        path = os.path.join(tempfile.gettempdir(), event["name"])
        if event.get("write"):
            open(path, "w").write("mine")
        return {"path": path, "exists": os.path.exists(path)}
    if mode == "boto_error":
        import boto3
        boto3.client("dynamodb").get_item(TableName="", Key={})
    if mode == "json_error":
        return json.loads("{not json")
    if mode == "own_endpoints":  # onceflow's own state-changing endpoints, over loopback like a user's tool
        import urllib.error, urllib.request
        codes = {}
        for path, body in (("/_onceflow/reset", b""), ("/_onceflow/faults", b'{"rules": []}')):
            request = urllib.request.Request(os.environ["AWS_ENDPOINT_URL"] + path, data=body, method="POST")
            try:
                codes[path] = urllib.request.urlopen(request, timeout=10).status
            except urllib.error.HTTPError as exc:
                codes[path] = exc.code
        return codes
"""


def make_zip(source: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", source)
    return buf.getvalue()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    os.environ[SERVER_SECRET] = "must-not-reach-handlers"
    try:
        proc = ServerProcess(tmp_path_factory.mktemp("sandbox") / "data").start()
    finally:
        del os.environ[SERVER_SECRET]
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def role(server: ServerProcess) -> str:
    iam = server.client("iam")
    name = f"sandbox-{uuid.uuid4().hex[:8]}"
    return iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


@pytest.fixture(scope="module")
def deploy(server: ServerProcess, role: str) -> Callable[..., str]:
    def make(**config: Any) -> str:
        name = f"sbx-{uuid.uuid4().hex[:10]}"
        server.client("lambda").create_function(
            FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
            Code={"ZipFile": make_zip(APP)}, **config,
        )  # fmt: skip
        return name

    return make


def call(server: ServerProcess, name: str, event: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], Any]:
    out = server.client("lambda").invoke(FunctionName=name, Payload=json.dumps(event).encode(), **kw)
    return out, json.loads(out["Payload"].read() or b"null")


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


# ---------------------------------------------------------------------------------- isolation
@ROOT_ONLY
def test_each_function_runs_as_its_own_unprivileged_uid(server: ServerProcess, deploy: Callable[..., str]) -> None:
    one, other = deploy(), deploy()
    _, a = call(server, one, {"mode": "whoami"})
    _, b = call(server, other, {"mode": "whoami"})
    assert a["uid"] != 0 and b["uid"] != 0 and a["uid"] != b["uid"]
    assert a["gid"] == a["uid"] and a["groups"] == []
    assert a["uid"] != os.stat(f"/proc/{server.proc.pid}").st_uid  # never the server's


@ROOT_ONLY
def test_handler_cannot_read_the_data_folder_or_the_server(server: ServerProcess, deploy: Callable[..., str]) -> None:
    assert server.data_dir is not None
    db = server.data_dir / "onceflow.db"
    assert db.exists() and (server.data_dir.stat().st_mode & 0o777) == 0o700
    pid = server.proc.pid
    _, read = call(server, deploy(), {"mode": "read", "paths": [str(db), f"/proc/{pid}/environ", f"/proc/{pid}/mem"]})
    assert read[str(db)] in DENIED
    assert read[f"/proc/{pid}/environ"] == read[f"/proc/{pid}/mem"] == {"error": "PermissionError"}
    _, listed = call(server, deploy(), {"mode": "list", "paths": [str(server.data_dir), f"/proc/{pid}/fd"]})
    assert listed[str(server.data_dir)] in DENIED
    assert listed[f"/proc/{pid}/fd"] == {"error": "PermissionError"}


@NAMESPACES
def test_handler_cannot_read_the_server_or_other_functions_in_proc(server: ServerProcess,
                                                                    deploy: Callable[..., str]) -> None:
    """The server's cmdline may hold a --root-key secret: a handler's /proc opens no process's entries
    but its own uid's (which still work)."""
    _, other = call(server, deploy(), {"mode": "whoami"})  # a warm worker of another function, another uid
    theirs = next(p for p in os.listdir("/proc") if p.isdigit() and os.stat(f"/proc/{p}").st_uid == other["uid"])
    pid = server.proc.pid
    paths = [f"/proc/{pid}/cmdline", f"/proc/{pid}/status", f"/proc/{theirs}/cmdline", "/proc/self/cmdline"]
    _, read = call(server, deploy(), {"mode": "read", "paths": paths})
    assert [read[p] for p in paths[:3]] == [{"error": "PermissionError"}] * 3
    assert "onceflow" in read["/proc/self/cmdline"]["ok"]


@ROOT_ONLY
def test_handler_cannot_read_or_change_code(server: ServerProcess, deploy: Callable[..., str]) -> None:
    victim, attacker = deploy(), deploy()
    _, where = call(server, victim, {"mode": "whoami"})
    theirs = os.path.join(where["root"], "app.py")
    assert where["root"] != str(server.data_dir) and not where["root"].startswith(str(server.data_dir))
    _, read = call(server, attacker, {"mode": "read", "paths": [theirs]})
    assert read[theirs] in DENIED
    _, listed = call(server, attacker, {"mode": "list", "paths": [where["root"]]})
    assert listed[where["root"]] in DENIED
    _, own = call(server, victim, {"mode": "write", "paths": [theirs]})  # its own code is read-only to it
    assert own == {theirs: {"error": "PermissionError"}}
    _, mine = call(server, victim, {"mode": "read", "paths": [theirs]})
    assert "ok" in mine[theirs]


@ROOT_ONLY
def test_handler_cannot_signal_the_server(server: ServerProcess, deploy: Callable[..., str]) -> None:
    _, result = call(server, deploy(), {"mode": "kill", "pid": server.proc.pid})
    assert result == {"error": "PermissionError"}
    assert server.proc.poll() is None
    assert server.client("sts").get_caller_identity()["Account"]  # still serving


@ROOT_ONLY
def test_handler_cannot_reset_the_server_or_change_fault_rules(server: ServerProcess,
                                                              deploy: Callable[..., str]) -> None:
    """Loopback is not enough: the peer socket's owner is a handler's uid, not the user's tool."""
    name = deploy()
    _, result = call(server, name, {"mode": "own_endpoints"})
    assert result == {"/_onceflow/reset": 403, "/_onceflow/faults": 403}
    assert server.client("lambda").get_function(FunctionName=name)["Configuration"]["FunctionName"] == name


@ROOT_ONLY
def test_tmp_is_private_to_the_function(server: ServerProcess, deploy: Callable[..., str]) -> None:
    one, other = deploy(), deploy()
    marker = f"marker-{uuid.uuid4().hex}"
    _, wrote = call(server, one, {"mode": "tmp_marker", "name": marker, "write": True})
    assert wrote["exists"]
    _, seen = call(server, other, {"mode": "tmp_marker", "name": marker})
    assert not seen["exists"]
    _, read = call(server, other, {"mode": "read", "paths": [wrote["path"]]})
    assert "error" in read[wrote["path"]]
    _, again = call(server, one, {"mode": "tmp_marker", "name": marker})  # a warm worker keeps its /tmp
    assert again["exists"]


@NAMESPACES
def test_shared_folders_are_private_or_read_only(server: ServerProcess, deploy: Callable[..., str]) -> None:
    one, other = deploy(), deploy()
    shm = f"/dev/shm/marker-{uuid.uuid4().hex}"
    _, wrote = call(server, one, {"mode": "write", "paths": [shm, "/var/tmp/x", "/etc/x"]})
    assert wrote[shm] == {"ok": "1"}
    assert wrote["/var/tmp/x"] == {"error": "OSError"}  # read-only, as all but /tmp is on Lambda
    assert "error" in wrote["/etc/x"]
    _, seen = call(server, other, {"mode": "read", "paths": [shm]})
    assert seen == {shm: {"error": "FileNotFoundError"}}  # another function's /dev/shm is its own
    assert not os.path.exists(shm)  # and so is the server's


def test_environment_holds_only_what_lambda_gives(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy(Environment={"Variables": {"MY_SETTING": "on"}})
    _, env = call(server, name, {"mode": "env"})
    assert SERVER_SECRET not in env and "HOME" not in env
    assert env["PYTHONPATH"] == "/var/runtime"  # Lambda's (recorded), not the server's path to onceflow
    assert env["MY_SETTING"] == "on" and env["AWS_LAMBDA_FUNCTION_NAME"] == name
    assert env["AWS_ACCESS_KEY_ID"].startswith("ASIA") and env["AWS_SESSION_TOKEN"]
    assert env["LAMBDA_RUNTIME_DIR"] == "/var/runtime"
    root = env["LAMBDA_TASK_ROOT"]  # in /var/task's place
    assert env["LD_LIBRARY_PATH"] == (
        f"/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:{root}:{root}/lib:/opt/lib")  # fmt: skip
    lambda_defined = {
        "PATH", "LANG", "LC_CTYPE", "SHLVL", "TZ", "LAMBDA_TASK_ROOT", "LAMBDA_RUNTIME_DIR", "_HANDLER",
        "AWS_EXECUTION_ENV", "PYTHONPATH", "LD_LIBRARY_PATH",  # both Lambda's (docs' defined variables)
        "AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_VERSION",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME", "AWS_REGION",
        "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "TMPDIR", "MY_SETTING",
        "PWD", "AWS_LAMBDA_RUNTIME_API", "AWS_XRAY_CONTEXT_MISSING", "AWS_XRAY_DAEMON_ADDRESS",
        "_AWS_XRAY_DAEMON_ADDRESS", "_AWS_XRAY_DAEMON_PORT", "_X_AMZN_TRACE_ID",
    }  # fmt: skip
    assert set(env) <= lambda_defined, set(env) - lambda_defined


# ---------------------------------------------------------------------------------- bounds
def test_timeout_kills_a_double_forked_child(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy(Timeout=2)
    out, body = call(server, name, {"mode": "daemon"}, LogType="Tail")
    assert body["errorType"] == "Sandbox.Timedout"
    tail = base64.b64decode(out["LogResult"]).decode()
    pid = int(tail.split("daemon pid ", 1)[1].split()[0])
    deadline = time.monotonic() + 20  # generous: a poll for the end, not a speed requirement
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid), f"the setsid grandchild {pid} outlived its invocation's timeout"


def test_abandoned_processes_are_reaped_while_the_worker_lives(
    server: ServerProcess, deploy: Callable[..., str]
) -> None:
    name = deploy(Timeout=30)
    pids: list[int] = []
    for _ in range(3):
        _, pids = call(server, name, {"mode": "orphans", "n": 20})
    deadline = time.monotonic() + 10
    while any(zombies_of(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(zombies_of(p) for p in pids)  # none pile up against the function's 1,024 processes
    _, again = call(server, name, {"mode": "orphans", "n": 1})
    assert again == pids  # the same warm worker all along


def zombies_of(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


def test_memory_size_is_a_hard_limit(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy(MemorySize=128, Timeout=30)
    out, body = call(server, name, {"mode": "allocate", "mb": 1024}, LogType="Tail")
    request_id = out["ResponseMetadata"]["RequestId"]
    assert out["FunctionError"] == "Unhandled"
    assert body == {
        "errorType": "Runtime.OutOfMemory",
        "errorMessage": f"RequestId: {request_id} Error: Runtime exited with error: signal: killed",
    }
    report = base64.b64decode(out["LogResult"]).decode().splitlines()[-1]
    assert report.endswith("Status: error\tError Type: Runtime.OutOfMemory")
    assert "Max Memory Used: 128 MB" in report
    out, body = call(server, name, {"mode": "allocate", "mb": 16})  # a new worker serves the next call
    assert "FunctionError" not in out and body == 16 * 1024 * 1024


def test_tmp_is_bounded_by_ephemeral_storage(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy(EphemeralStorage={"Size": 512}, Timeout=60)
    _, body = call(server, name, {"mode": "fill_tmp", "mb": 600})
    assert body["error"] == "OSError"  # ENOSPC on its tmpfs, EFBIG past RLIMIT_FSIZE without one
    assert 500 <= body["written_mb"] <= 512


def test_log_flood_leaves_server_memory_bounded(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy(Timeout=300)
    call(server, name, {"mode": "flood", "mb": 1})  # warm: the worker, the log stream, the writer
    before = rss_mb(server.proc.pid, "VmHWM")
    out, body = call(server, name, {"mode": "flood", "mb": 100}, LogType="Tail")
    assert body == "done"
    grown = rss_mb(server.proc.pid, "VmHWM") - before
    assert grown < LOG_FLOOD_RSS_BOUND_MB, f"peak RSS grew {grown:.0f} MB while a handler printed 100 MB"
    tail = base64.b64decode(out["LogResult"])
    assert len(tail) <= 4096 and b"x" * 999 in tail


def test_a_long_line_becomes_events_within_cloudwatch_limits(server: ServerProcess, role: str) -> None:
    source = "def handler(event, context):\n    print('y' * 600_000)\n    return 'ok'\n"
    name = f"sbx-{uuid.uuid4().hex[:10]}"
    lam = server.client("lambda")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": make_zip(source)})  # fmt: skip
    lam.invoke(FunctionName=name, Payload=b"{}")
    logs = server.client("logs")
    deadline = time.monotonic() + 20
    sizes: list[int] = []
    while time.monotonic() < deadline:
        events = logs.filter_log_events(logGroupName=f"/aws/lambda/{name}", filterPattern="yyyy")["events"]
        sizes = [len(e["message"].encode()) for e in events]
        if sum(sizes) >= 600_000:
            break
        time.sleep(0.2)
    assert sum(sizes) == 600_001  # the whole line, newline included, in three events
    assert len(sizes) == 3 and max(sizes) <= 262_144 - 26


FORGER = r"""
import json, os, socket, stat, struct, time


def runtime_socket():
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return socket.socket(fileno=os.dup(fd))
        except OSError:
            pass


def frame(header):
    head = json.dumps(header).encode()
    return struct.pack(">II", len(head), 0) + head


SERVER = int(os.environ["SERVER_PID"])  # the handler's /proc no longer shows it; the test tells it
runtime_socket().sendall(frame({"t": "hello", "pid": SERVER}))  # "kill this one when I time out"


def handler(event, context):
    if event["mode"] == "surrogate":
        print("lone \ud800 surrogate")
        return "printed"
    if event["mode"] == "huge_frame":
        runtime_socket().sendall(struct.pack(">II", 0xFFFFFFFF, 0xFFFFFFFF))
    time.sleep(60)
"""


def test_forged_runtime_frames_cannot_hurt_the_server(server: ServerProcess, role: str) -> None:
    name = f"sbx-{uuid.uuid4().hex[:10]}"
    lam = server.client("lambda")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler", Timeout=2,
                        Code={"ZipFile": make_zip(FORGER)},
                        Environment={"Variables": {"SERVER_PID": str(server.proc.pid)}})  # fmt: skip
    _, body = call(server, name, {"mode": "sleep"})  # times out: the worker named by the first hello dies
    assert body["errorType"] == "Sandbox.Timedout"
    out, body = call(server, name, {"mode": "huge_frame"})  # claims a 4 GB frame
    assert out["FunctionError"] == "Unhandled" and body["errorType"] == "Runtime.ExitError"
    out, body = call(server, name, {"mode": "surrogate"}, LogType="Tail")
    assert body == "printed" and "lone \ufffd" in base64.b64decode(out["LogResult"]).decode()
    assert server.proc.poll() is None
    assert server.client("sts").get_caller_identity()["Account"]


# ---------------------------------------------------------------------------------- what AWS shows
def test_stack_traces_show_lambda_paths(server: ServerProcess, deploy: Callable[..., str]) -> None:
    name = deploy()
    _, boto = call(server, name, {"mode": "boto_error"})
    files = [line.split('"')[1] for line in boto["stackTrace"]]
    assert files[0] == "/var/task/app.py"
    assert any(f.startswith("/var/runtime/botocore/") for f in files), files
    assert all(f.startswith(("/var/task/", "/var/runtime/", "/var/lang/lib/python3.12/")) for f in files), files
    _, stdlib = call(server, name, {"mode": "json_error"})
    files = [line.split('"')[1] for line in stdlib["stackTrace"]]
    assert files[1:] and all(f.startswith("/var/lang/lib/python3.12/json/") for f in files[1:]), files


@pytest.mark.parametrize(
    "entries",
    [
        [("app.py", "x"), ("app.py/inner.py", "")],
        [("lib/", ""), ("lib", "x")],
        [("n" * 256 + ".py", "")],
        [("a/" * 2000 + "deep.py", "")],
    ],
    ids=["file-folder-conflict", "folder-entry-and-file", "name-over-255-bytes", "2000-levels"],
)
def test_zips_no_file_system_holds_get_4xx(server: ServerProcess, role: str, entries: list[tuple[str, str]]) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("handler.py", "def handler(e, c):\n    return 1\n")
        for entry, text in entries:
            zf.writestr(entry, text)
    assert_bad_zip(server, role, buf.getvalue())


def test_zip_with_a_nul_in_a_name_gets_4xx(server: ServerProcess, role: str) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("handler.py", "def handler(e, c):\n    return 1\n")
        zf.writestr("evil#.py", "x")
    assert_bad_zip(server, role, buf.getvalue().replace(b"evil#.py", b"evil\x00.py"))


def assert_bad_zip(server: ServerProcess, role: str, data: bytes) -> None:
    lam = server.client("lambda")
    name = f"sbx-{uuid.uuid4().hex[:10]}"
    with pytest.raises(ClientError) as err:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="handler.handler",
                            Code={"ZipFile": data})  # fmt: skip
    response = err.value.response
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Error"] == {"Code": "InvalidParameterValueException", "Message": BAD_ZIP}
    with pytest.raises(ClientError) as missing:
        lam.get_function(FunctionName=name)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
