"""One frozen Settings object, built once by the CLI and passed down. No module-level switches."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_data_dir() -> Path:
    """$ONCEFLOW_DATA, else $XDG_DATA_HOME/onceflow, else ~/.local/share/onceflow."""
    if env := os.environ.get("ONCEFLOW_DATA"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "onceflow"


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 4566
    data_dir: Path | None = None  # None with in_memory=True
    in_memory: bool = False
    account_id: str = "000000000000"
    default_region: str = "us-east-1"
    # Step Functions waits, retry intervals and timeouts are divided by this (history keeps nominal times),
    # and so is the 5 minutes DynamoDB's LatestRestorableDateTime trails now (ddb/service.py PITR_LAG_S).
    time_scale: float = 1.0
    # When True, callers with ordinary access keys are evaluated against their IAM policies too.
    enforce_iam: bool = False
    # `serve --faults FILE`: fault injection rules that replace the stored ones at start.
    faults_file: Path | None = None
    # `serve --mock-config FILE` or $SFN_MOCK_CONFIG: Step Functions Local's mock configuration (sfn/mocks.py).
    mock_config_file: Path | None = None
    # Upper bound on live Lambda worker processes across all functions (sized for the machine).
    lambda_max_workers: int = max(4, (os.cpu_count() or 2) * 4)
    lambda_account_concurrency: int = 1000
    # Runtime -> interpreter path (python3.11 -> /usr/bin/python3.11); unlisted runtimes run on the
    # Python that runs onceflow. Pairs, so the settings stay hashable and frozen.
    lambda_interpreters: tuple[tuple[str, str], ...] = ()
    max_body_bytes: int = 16 * 1024 * 1024
    # The request bodies held at once, all requests together: a request that would go over waits for
    # room, then gets a 503 that SDKs retry (so six 70 MB uploads cannot take a GB of memory).
    max_bodies_in_flight_bytes: int = 256 * 1024 * 1024
    # Connections: the request line and headers must arrive within header_timeout_s, each piece of
    # a body within body_timeout_s; an idle kept-alive connection is closed after keep_alive_s.
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: float = 5.0
    # Security (README "Security"): Host names besides loopback ones the API answers (--allow-host),
    # web origins allowed to call it from a browser (--cors-origin), and the access keys that are the
    # account root under enforce_iam (--root-key ID:SECRET; pairs, so the settings stay hashable).
    allow_hosts: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    root_keys: tuple[tuple[str, str], ...] = (("test", "test"),)
    # `serve --oidc-keys ISSUER=FILE`: (issuer URL, JSON Web Key Set file) pairs whose tokens
    # AssumeRoleWithWebIdentity verifies (sts/web_identity_keys.py); other issuers' go unverified.
    oidc_keys: tuple[tuple[str, str], ...] = ()
    # `serve --stack-answer-within S`: CloudFormation's stack operations run in the background, their
    # request answering when they end or after S seconds (0: at once, as AWS answers).
    stack_answer_within_s: float = 10.0
    # `serve --event-loop uvloop`: the server's event loop on uvloop (`pip install 'onceflow[uvloop]'`)
    # instead of asyncio's own (README "DynamoDB performance": 0.74-1.19x of the server CPU per call).
    event_loop: str = "asyncio"

    @property
    def endpoint_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    @property
    def database_path(self) -> str:
        if self.in_memory or self.data_dir is None:
            return ":memory:"
        return str(self.data_dir / "onceflow.db")
