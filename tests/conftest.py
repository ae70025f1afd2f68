"""Fixtures: a real onceflow server on a free loopback port, boto3 clients and the AWS CLI on it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from entry_log import EntryLog
from serverproc import ServerProcess, cli_env, client_factory
from shared_data import missing_corpus_line, sfn_corpus_present


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say at the end, not in one skip reason among many, what a run without the corpus left out."""
    if not sfn_corpus_present():
        terminalreporter.write_line(missing_corpus_line(), yellow=True, bold=True)


@pytest.fixture(scope="session")
def server() -> Iterator[ServerProcess]:
    proc = ServerProcess().start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def endpoint(server: ServerProcess) -> str:
    return server.url


@pytest.fixture(scope="session")
def aws(endpoint: str) -> Callable[..., Any]:
    return client_factory(endpoint)


@pytest.fixture(scope="session")
def aws_cli(endpoint: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    def run(*args: str, cwd: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["aws", *args], capture_output=True, text=True, env=cli_env(endpoint, **env), cwd=cwd,
                              timeout=300)

    return run


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start servers on a data folder of your choice; all are stopped (or killed) at the end."""
    started: list[ServerProcess] = []

    def start(
        data_dir: Path | None = None, *, time_scale: float = 1.0, extra_args: tuple[str, ...] = ()
    ) -> ServerProcess:
        proc = ServerProcess(data_dir if data_dir is not None else tmp_path / "data", time_scale=time_scale,
                             extra_args=extra_args).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


@pytest.fixture
def entry_log() -> Iterator[EntryLog]:
    """Where Lambda handlers under test mark that they ran (tests/entry_log.py)."""
    log = EntryLog()
    yield log
    log.close()
