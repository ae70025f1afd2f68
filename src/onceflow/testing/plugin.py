"""The pytest plugin (entry point `pytest11`: loaded in every session once onceflow is installed).

- `onceflow_server` (session): an `Onceflow` on a server of its own (a child process in memory, or
  on `--onceflow-data DIR`; a thread with `--onceflow-in-process`; one per xdist worker) or on
  `--onceflow-endpoint URL` /
  $ONCEFLOW_ENDPOINT. For the session it points AWS_ENDPOINT_URL, the test/test keys, the region
  and AWS_DISABLE_HOST_PREFIX_INJECTION at it; they are restored after.
- `onceflow` (function): the same object, state reset before the test unless
  `@pytest.mark.onceflow(reset=False)`; after the test, fault rules are cleared and the time
  scale is put back.

Loading costs nothing: no import of boto3 nor onceflow's server, no server, until a test asks for a
fixture (a bad option is refused at start, which costs a check only when the option is given).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

if TYPE_CHECKING:
    from onceflow.testing.api import Onceflow

MARK = "onceflow"
MARK_OPTIONS = {"reset": bool}
# Taken away for the session: a profile or a session token would sign with something else than test/test.
ENV_REMOVED = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_DEFAULT_PROFILE")
SHARED_ENDPOINT = ("{where} is one server, and every xdist worker would reset the state the others' tests use: "
                   "leave it out under -n (each worker then starts a server of its own)")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("onceflow", "onceflow (local AWS-compatible stack)")
    group.addoption("--onceflow-endpoint", default=None, metavar="URL",
                    help="use the onceflow server at URL instead of starting one (default: $ONCEFLOW_ENDPOINT)")
    group.addoption("--onceflow-data", default=None, metavar="DIR",
                    help="keep the started server's state in DIR (one subfolder per xdist worker) instead of "
                         "memory; with --onceflow-endpoint, that server's data folder (read by prove)")
    group.addoption("--onceflow-port", default=None, type=int, metavar="PORT",
                    help="port for the started server (default: a free one; xdist worker N takes PORT+N)")
    group.addoption("--onceflow-in-process", action="store_true", default=False,
                    help="run the started server on a thread of the test process instead of a child process: "
                         "starts in a fraction of the time, but shares the process's warnings filters, "
                         "monkeypatches, clocks and GIL (testing/process.py)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "onceflow(reset=True): options of the onceflow fixture; reset=False keeps the state "
                   "the previous test left")
    endpoint = config.getoption("onceflow_endpoint")
    data = config.getoption("onceflow_data")
    port = config.getoption("onceflow_port")
    if endpoint is not None and config.getoption("onceflow_in_process"):
        raise pytest.UsageError("--onceflow-endpoint uses a running server: --onceflow-in-process is for a server "
                                "the plugin starts")
    if endpoint is not None and port is not None:
        raise pytest.UsageError("--onceflow-endpoint uses a running server: --onceflow-port is for a server the "
                                "plugin starts")
    if endpoint is not None and (getattr(config.option, "numprocesses", None) or _worker_index()):
        raise pytest.UsageError(SHARED_ENDPOINT.format(where="--onceflow-endpoint"))
    if endpoint is not None:
        _check_endpoint(endpoint)
    if data is not None and Path(data).exists() and not Path(data).is_dir():
        raise pytest.UsageError(f"--onceflow-data {data}: not a folder")
    if port is not None:
        _check_port(port + _worker_index())


def _check_endpoint(endpoint: str) -> None:
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise pytest.UsageError(f"--onceflow-endpoint takes a URL such as http://127.0.0.1:4566, not {endpoint!r}")
    from onceflow.testing.api import Onceflow
    from onceflow.testing.errors import OnceflowError

    try:
        Onceflow(endpoint).start()
    except OnceflowError as exc:
        raise pytest.UsageError(f"--onceflow-endpoint: {exc}") from None


def _check_port(port: int) -> None:
    if not 0 < port < 65536:
        raise pytest.UsageError(f"--onceflow-port takes a port from 1 to 65535, not {port}")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        raise pytest.UsageError(f"--onceflow-port {port}: cannot listen on 127.0.0.1:{port}: "
                                f"{exc.strerror or exc}") from None
    finally:
        sock.close()


def _worker_index() -> int:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # gw0, gw1, ... under pytest-xdist
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


_BAD_MARKS = pytest.StashKey[str]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for mark in item.iter_markers(MARK):
            problem = _mark_problem(mark)
            if problem:
                message = f"{item.nodeid}: @pytest.mark.onceflow{_shown(mark)}: {problem}"
                if not os.environ.get("PYTEST_XDIST_WORKER"):
                    raise pytest.UsageError(message)
                # An xdist worker's usage error is an INTERNALERROR in the controller: the test
                # errors with the message instead.
                item.stash[_BAD_MARKS] = message


@pytest.hookimpl(tryfirst=True)  # before any fixture starts a server
def pytest_runtest_setup(item: pytest.Item) -> None:
    message = item.stash.get(_BAD_MARKS, None)
    if message is not None:
        pytest.fail(message, pytrace=False)


def _mark_problem(mark: pytest.Mark) -> str | None:
    if mark.args:
        return "takes keyword arguments only (reset=False)"
    for name, value in mark.kwargs.items():
        if name not in MARK_OPTIONS:
            return f"unknown option {name!r} (options: {', '.join(sorted(MARK_OPTIONS))})"
        if not isinstance(value, MARK_OPTIONS[name]):
            return f"{name} takes True or False, not {value!r}"
    return None


def _shown(mark: pytest.Mark) -> str:
    args = [repr(a) for a in mark.args] + [f"{k}={v!r}" for k, v in mark.kwargs.items()]
    return f"({', '.join(args)})"


@pytest.fixture(scope="session")
def onceflow_server(request: pytest.FixtureRequest) -> Iterator[Onceflow]:
    from onceflow.testing.api import Onceflow
    from onceflow.testing.errors import OnceflowError

    config = request.config
    endpoint = config.getoption("onceflow_endpoint") or os.environ.get("ONCEFLOW_ENDPOINT") or None
    data = config.getoption("onceflow_data")
    port = config.getoption("onceflow_port")
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if data is not None and worker and not endpoint:
        data = str(Path(data) / worker)  # one server per worker: one store each
    if endpoint and worker:  # only the environment's endpoint gets here (the option is refused at start)
        pytest.exit(SHARED_ENDPOINT.format(where="ONCEFLOW_ENDPOINT"), returncode=pytest.ExitCode.USAGE_ERROR)
    try:
        if endpoint:
            server = Onceflow(endpoint, data=data)
        else:
            server = Onceflow(data=data, port=(port + _worker_index()) if port is not None else 0,
                              in_process=config.getoption("onceflow_in_process"))
        server.start()
    except OnceflowError as exc:
        where = "ONCEFLOW_ENDPOINT" if endpoint and not config.getoption("onceflow_endpoint") else "onceflow"
        pytest.exit(f"{where}: {exc}", returncode=pytest.ExitCode.USAGE_ERROR)
    saved = {name: os.environ.get(name) for name in (*server.environ(), *ENV_REMOVED)}
    for name in ENV_REMOVED:
        os.environ.pop(name, None)
    os.environ.update(server.environ())
    try:
        yield server
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.close()


@pytest.fixture
def onceflow(onceflow_server: Onceflow, request: pytest.FixtureRequest) -> Iterator[Onceflow]:
    mark = request.node.get_closest_marker(MARK)
    options: dict[str, Any] = {"reset": True, **(mark.kwargs if mark else {})}
    if options["reset"]:
        onceflow_server.reset()
    try:
        yield onceflow_server
    finally:
        onceflow_server.faults.clear()
        onceflow_server.restore_time()
