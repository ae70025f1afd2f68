"""SIGTERM while a call is in flight: the call finishes and is answered, then the server exits 0
with its database closed cleanly (what it acknowledged is there after a restart)."""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
SLOW = """import os, time

def handler(event, context):
    open(os.environ["STARTED"], "w").close()  # tells the test the call is in flight
    time.sleep(1.5)
    return {"slept": True}
"""


def test_sigterm_finishes_the_call_in_flight(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    started = tmp_path / "started"
    server = server_factory()
    role = server.client("iam").create_role(RoleName="slow", AssumeRolePolicyDocument=json.dumps(TRUST))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", SLOW)
    lam = server.client("lambda")
    lam.create_function(FunctionName="slow", Runtime="python3.12", Role=role["Role"]["Arn"], Handler="app.handler",
                        Code={"ZipFile": buf.getvalue()}, Timeout=10,
                        Environment={"Variables": {"STARTED": str(started)}})
    answered: dict[str, Any] = {}

    def invoke() -> None:
        out = lam.invoke(FunctionName="slow", Payload=b"{}")
        answered.update(status=out["StatusCode"], payload=json.loads(out["Payload"].read()))

    caller = threading.Thread(target=invoke)
    caller.start()
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert started.exists(), "the handler never started"
    assert server.stop() == 0
    caller.join(10)
    assert answered == {"status": 200, "payload": {"slept": True}}
    again = server_factory(server.data_dir)
    assert again.client("lambda").get_function(FunctionName="slow")["Configuration"]["FunctionName"] == "slow"
