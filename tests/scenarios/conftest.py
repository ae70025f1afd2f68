"""Fixtures for the seed labs: a fresh server per lab, provisioned like the labs' prepared VM."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import boto3
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from serverproc import ServerProcess, cli_env


class LabEnvironment:
    def __init__(self, server: ServerProcess, project: Path, prefix: str, provisioned: dict[str, str]) -> None:
        self.server = server
        self.project = project
        self.prefix = prefix
        self.provisioned = provisioned
        self.env = cli_env(server.url)


@pytest.fixture
def lab_environment(server_factory: Callable[..., ServerProcess], tmp_path: Path) -> Callable[[str], LabEnvironment]:
    from onceflow.examples.orders.provision import provision

    def make(prefix: str) -> LabEnvironment:
        server = server_factory(tmp_path / "data", time_scale=4.0)
        session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test")
        provisioned = provision(prefix, endpoint_url=server.url, session=session)
        project = tmp_path / "project"
        project.mkdir()
        return LabEnvironment(server, project, prefix, provisioned)

    return make
