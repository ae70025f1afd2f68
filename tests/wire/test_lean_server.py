"""wire/http.py's serve(): the lean server process answers boto3 and exits cleanly on SIGTERM."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import boto3

LEAN = Path(__file__).resolve().parents[2] / "bench" / "lean_server.py"


def test_lean_server_serves_and_stops_on_sigterm() -> None:
    proc = subprocess.Popen([sys.executable, str(LEAN)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split("ready at ", 1)[1].split()[0]
        sts = boto3.client("sts", endpoint_url=url, region_name="us-east-1", aws_access_key_id="123456789012",
                           aws_secret_access_key="x")
        assert sts.get_caller_identity()["Account"] == "123456789012"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
