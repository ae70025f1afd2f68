"""`onceflow demo`: one command serves, provisions, runs both labs and reports; it can run again on
the same data folder, and says clearly when its port is taken."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest


def run_demo_until_serving(data: Path, timeout: float = 240) -> str:
    proc = subprocess.Popen([sys.executable, "-m", "onceflow", "demo", "--port", "0", "--data", str(data),
                             "--time-scale", "4"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Serving until Ctrl-C."):
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(30) == 0, "".join(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
        assert proc.stdout is not None
        proc.stdout.close()
    return "".join(lines)


@pytest.mark.slow
def test_demo_runs_both_labs_and_can_run_again(tmp_path: Path) -> None:
    first = run_demo_until_serving(tmp_path / "data")
    assert "Traceback" not in first, first
    for expected in ("after-write-order  SUCCEEDED", "repeated-order     SUCCEEDED", "different-order    SUCCEEDED",
                     "retry-order        SUCCEEDED", "permanent-order    FAILED    OrderRejected",
                     "denied-order       FAILED    Lambda.AWSLambdaException",
                     "protected-order  5 invocation(s), 1 order item(s), 2 duplicate decision(s)",
                     "different-order  2 invocation(s), 1 order item(s), 0 duplicate decision(s)",
                     "denied-order     0 invocation(s), 0 order item(s)",
                     "is not authorized to perform: lambda:InvokeFunction", "AWS_ENDPOINT_URL=http://127.0.0.1:"):
        assert expected in first, first
    second = run_demo_until_serving(tmp_path / "data")
    assert "removed the workflow an earlier demo run left" in second, second
    assert "protected-order  5 invocation(s), 1 order item(s), 2 duplicate decision(s)" in second, second


def test_demo_on_a_busy_port_says_so(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = subprocess.run([sys.executable, "-m", "onceflow", "demo", "--port", str(port), "--data",
                               str(tmp_path / "data")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert "Traceback" not in proc.stderr
