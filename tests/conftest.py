"""Fixtures: a real onceflow server on a free loopback port, boto3 clients and the AWS CLI on it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from serverproc import ServerProcess, cli_env

CLIENT_CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120,
                                       connect_timeout=10)


@pytest.fixture(scope="session")
def server() -> Iterator[ServerProcess]:
    proc = ServerProcess().start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def endpoint(server: ServerProcess) -> str:
    return server.url


def client_factory(url: str) -> Callable[..., Any]:
    def make(service: str, region: str = "us-east-1", access_key: str = "test", secret_key: str = "test",
             session_token: str | None = None) -> Any:
        return boto3.client(service, endpoint_url=url, region_name=region, aws_access_key_id=access_key,
                            aws_secret_access_key=secret_key, aws_session_token=session_token, config=CLIENT_CONFIG)

    return make


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
