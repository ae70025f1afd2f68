"""`onceflow.testing.Onceflow` without pytest's fixtures (as unittest and scripts use it), the
`/_onceflow/time-scale` endpoint behind its time control, and the deploy helpers' packaging."""

from __future__ import annotations

import io
import json
import socket
import threading
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from onceflow.testing import Onceflow, OnceflowError
from onceflow.testing import deploy as packaging

CODE = """import json
def handler(event, context):
    print('GOT ' + json.dumps(event))
    return {'doubled': event['n'] * 2}
"""


@pytest.fixture(scope="module")
def of() -> Iterator[Onceflow]:
    with Onceflow() as server:  # a server of this module's own: the tests change its time scale
        yield server


@pytest.fixture
def fresh(of: Onceflow) -> Iterator[Onceflow]:
    of.reset()
    yield of
    of.restore_time()


def post(of: Onceflow, path: str, body: bytes, **headers: str) -> tuple[int, dict[str, object]]:
    req = urllib.request.Request(of.endpoint + path, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_context_manager_starts_and_stops_its_own_server_and_leaves_others_alone() -> None:
    with Onceflow() as owner:
        assert owner.owns_server and owner.endpoint.startswith("http://127.0.0.1:")
        with Onceflow(owner.endpoint) as guest:
            assert not guest.owns_server
            guest.create_table("guest-table")
        assert owner.client("dynamodb").list_tables()["TableNames"] == ["guest-table"]
        endpoint = owner.endpoint
    with pytest.raises(OnceflowError, match=f"no onceflow server answers at {endpoint}"):
        Onceflow(endpoint).start()


def test_an_in_process_server_runs_functions_and_stops_with_close() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(OnceflowError, match=f"cannot listen on 127.0.0.1:{port}"):
            Onceflow(port=port, in_process=True).start()
    with Onceflow(in_process=True) as of:
        assert of.owns_server
        assert "onceflow-server" in [t.name for t in threading.enumerate()]
        of.deploy_function("double", source=CODE)
        out = of.client("lambda").invoke(FunctionName="double", Payload=b'{"n": 4}')
        assert json.loads(out["Payload"].read()) == {"doubled": 8}
        endpoint = of.endpoint
    assert "onceflow-server" not in [t.name for t in threading.enumerate()]
    with pytest.raises(OnceflowError, match=f"no onceflow server answers at {endpoint}"):
        Onceflow(endpoint).start()


def test_a_function_from_code_runs_and_logs(fresh: Onceflow) -> None:
    config = fresh.deploy_function("doubler", source=CODE)
    assert config["State"] == "Active" and config["Role"].endswith(":role/onceflow-test-lambda-role")
    answer = fresh.client("lambda").invoke(FunctionName="doubler", Payload=b'{"n": 21}')
    assert json.loads(answer["Payload"].read()) == {"doubled": 42}
    assert 'GOT {"n": 21}\n' in fresh.logs("doubler", contains="GOT")
    # deploying again updates the code in place
    fresh.deploy_function("doubler", source=CODE.replace("* 2", "* 3"))
    answer = fresh.client("lambda").invoke(FunctionName="doubler", Payload=b'{"n": 2}')
    assert json.loads(answer["Payload"].read()) == {"doubled": 6}


def test_time_scale_divides_waits_and_is_reported(fresh: Onceflow) -> None:
    assert fresh.time_state() == {"timeScale": 1.0, "skipWaits": False}
    assert fresh.time_scale(100) == 100.0
    arn = fresh.deploy_state_machine("ten-seconds", {"StartAt": "W", "States": {
        "W": {"Type": "Wait", "Seconds": 10, "End": True}}})
    done = fresh.execute(arn, {"k": 1}, timeout=30)
    assert done["status"] == "SUCCEEDED" and json.loads(done["output"]) == {"k": 1}
    fresh.restore_time()
    assert fresh.time_state() == {"timeScale": 1.0, "skipWaits": False}


def test_a_running_execution_times_out_of_wait_execution(fresh: Onceflow) -> None:
    fresh.deploy_state_machine("hour", {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600,
                                                                         "End": True}}})
    arn = fresh.start_execution("hour")
    with pytest.raises(TimeoutError, match="still RUNNING"):
        fresh.wait_execution(arn, timeout=0.2)
    assert [e["type"] for e in fresh.history(arn)][:2] == ["ExecutionStarted", "WaitStateEntered"]


@pytest.mark.parametrize("body, message", [
    (b'{"timeScale": 0}', "timeScale must be a number greater than 0, not 0"),
    (b'{"timeScale": true}', "timeScale must be a number greater than 0, not True"),
    (b'{"skipWaits": "yes"}', "skipWaits must be true or false, not 'yes'"),
    (b'{"speed": 2}', 'the body is {"timeScale": number > 0, "skipWaits": boolean}'),
    (b"{}", 'the body is {"timeScale": number > 0, "skipWaits": boolean}'),
    (b"fast", "the body is not JSON"),
])
def test_bad_time_scale_requests_are_refused_and_change_nothing(of: Onceflow, body: bytes, message: str) -> None:
    status, answer = post(of, "/_onceflow/time-scale", body)
    assert status == 400
    assert str(answer["message"]).startswith(message)
    assert of.time_state() == {"timeScale": 1.0, "skipWaits": False}


def test_a_web_page_cannot_change_the_time_scale(of: Onceflow) -> None:
    status, answer = post(of, "/_onceflow/time-scale", b'{"skipWaits": true}', Origin="https://evil.example")
    assert status == 403 and answer["message"] == "the time scale is not answered to a web page (Origin: https://evil.example)"
    assert of.time_state() == {"timeScale": 1.0, "skipWaits": False}


def test_prove_on_a_server_in_memory_says_what_it_needs(of: Onceflow) -> None:
    with pytest.raises(OnceflowError, match=r"(no data folder|does not have)"):
        of.prove("orders", {"id": "o-1"})


def test_bad_fault_rules_are_reported(of: Onceflow) -> None:
    with pytest.raises(OnceflowError, match=r"rules\[0\]\.probability"):
        of.faults.add(service="dynamodb", probability=7)
    assert of.faults.list() == []


def _names(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def test_packages_from_a_folder_a_file_code_and_bytes(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "app.py").write_text("def handler(e, c): pass\n")
    (tmp_path / "pkg" / "util.py").write_text("X = 1\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    assert _names(packaging.package(tmp_path, "app.handler")) == {
        "app.py": b"def handler(e, c): pass\n", "pkg/util.py": b"X = 1\n"}
    assert _names(packaging.package(str(tmp_path / "app.py"), "app.handler")) == {
        "app.py": b"def handler(e, c): pass\n"}
    assert _names(packaging.package(CODE, "svc.main.handler")) == {"svc/main.py": CODE.encode()}
    assert packaging.package(b"PK-bytes", "app.handler") == b"PK-bytes"
    with pytest.raises(OnceflowError, match="no such file or folder"):
        packaging.package(str(tmp_path / "missing"), "app.handler")
    with pytest.raises(OnceflowError, match="holds no files"):
        (tmp_path / "empty").mkdir()
        packaging.package(tmp_path / "empty", "app.handler")
