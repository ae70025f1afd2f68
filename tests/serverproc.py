"""Start and stop real `onceflow serve` processes for tests (imported by conftest.py and benches)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import boto3
import botocore.config
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

READY = re.compile(r"onceflow ready at (http://\S+)")
CLIENT_CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120,
                                       connect_timeout=10)


class ServerProcess:
    """One `python -m onceflow serve` child on a free loopback port."""

    def __init__(self, data_dir: Path | None = None, *, time_scale: float = 1.0, extra_args: tuple[str, ...] = ()):
        self.data_dir = data_dir
        self.time_scale = time_scale
        self.extra_args = extra_args
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""
        self.log_path = Path(tempfile.mkstemp(prefix="onceflow-server-", suffix=".log")[1])

    def start(self, timeout: float = 30.0) -> ServerProcess:
        args = [sys.executable, "-m", "onceflow", "serve", "--port", "0", "--time-scale", str(self.time_scale)]
        args += ["--data", str(self.data_dir)] if self.data_dir else ["--in-memory"]
        args += list(self.extra_args)
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        log_file = self.log_path.open("w")
        try:
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log_file, text=True, env=env)
        finally:
            log_file.close()  # the child holds its own descriptor
        found: list[str] = []

        def read_ready() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                m = READY.search(line)
                if m:
                    found.append(m.group(1))
                    return

        reader = threading.Thread(target=read_ready, daemon=True)
        reader.start()
        reader.join(timeout)
        if not found:
            self.kill()
            raise RuntimeError(f"onceflow did not start; log:\n{self.log_path.read_text()[-4000:]}")
        self.url = found[0]
        # Keep draining stdout so the child never blocks on a full pipe.
        threading.Thread(target=lambda: self.proc and self.proc.stdout and self.proc.stdout.read(), daemon=True).start()
        return self

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM and wait: the clean shutdown path."""
        if self.proc is None or self.proc.poll() is not None:
            self._close_pipe()
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        finally:
            self._close_pipe()

    def kill(self) -> None:
        """kill -9: what a crash looks like."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.proc is not None and self.proc.stdout is not None and not self.proc.stdout.closed:
            try:
                self.proc.stdout.close()
            except (OSError, ValueError):
                pass  # the drain thread may be closing it at the same moment

    def log(self) -> str:
        return self.log_path.read_text()

    def client(self, service: str, **kw: Any) -> Any:
        """A boto3 client on this server (see client_factory)."""
        return client_factory(self.url)(service, **kw)


def cli_env(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null",
               AWS_SHARED_CREDENTIALS_FILE="/dev/null")
    # The `aws` that pip installed beside this Python comes first (a pyenv shim may not know it yet).
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.update(extra)
    return env


def client_factory(url: str) -> Any:
    """boto3 clients on the server at `url`: make(service, region=, access_key=, secret_key=,
    session_token=, config=) with test credentials and no client-side retries by default."""

    def make(service: str, region: str = "us-east-1", access_key: str = "test", secret_key: str = "test",
             session_token: str | None = None, config: botocore.config.Config | None = None) -> Any:
        return boto3.client(service, endpoint_url=url, region_name=region, aws_access_key_id=access_key,
                            aws_secret_access_key=secret_key, aws_session_token=session_token,
                            config=config or CLIENT_CONFIG)

    return make


def signed_headers(method: str, url: str, service: str, body: bytes = b"", headers: dict[str, str] | None = None,
                   *, region: str = "us-east-1", access_key: str = "test", secret_key: str = "test",
                   session_token: str | None = None) -> dict[str, str]:
    """The headers of a raw HTTP request signed as boto3 signs it (SigV4; test/test by default):
    `headers` plus Host, X-Amz-Date, Authorization (and X-Amz-Security-Token). Send exactly `url`
    and `body` with them. `service` is the signing name (states for Step Functions)."""
    request = AWSRequest(method, url, data=body, headers=dict(headers or {}))
    SigV4Auth(Credentials(access_key, secret_key, session_token), service, region).add_auth(request)
    return dict(request.headers.items())
