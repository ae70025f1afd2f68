"""SIGTERM while a call is in flight: the call finishes and is answered, then the server exits 0
with its database closed cleanly (what it acknowledged is there after a restart)."""

from __future__ import annotations

import io
import json
import threading
import time
import zipfile
from collections.abc import Callable
from typing import Any

from entry_log import MARK, EntryLog

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
SLOW = MARK + """import time

def handler(event, context):
    mark("started")  # tells the test the call is in flight
    time.sleep(1.5)
    return {"slept": True}
"""


def test_sigterm_finishes_the_call_in_flight(server_factory: Callable[..., Any], entry_log: EntryLog) -> None:
    server = server_factory()
    role = server.client("iam").create_role(RoleName="slow", AssumeRolePolicyDocument=json.dumps(TRUST))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", SLOW)
    lam = server.client("lambda")
    lam.create_function(FunctionName="slow", Runtime="python3.12", Role=role["Role"]["Arn"], Handler="app.handler",
                        Code={"ZipFile": buf.getvalue()}, Timeout=10,
                        Environment={"Variables": {"ENTRY_PORT": str(entry_log.port)}})
    answered: dict[str, Any] = {}

    def invoke() -> None:
        out = lam.invoke(FunctionName="slow", Payload=b"{}")
        answered.update(status=out["StatusCode"], payload=json.loads(out["Payload"].read()))

    caller = threading.Thread(target=invoke)
    caller.start()
    deadline = time.monotonic() + 30
    while not entry_log.snapshot() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert entry_log.snapshot() == ["started"], "the handler never started"
    assert server.stop() == 0
    caller.join(10)
    assert answered == {"status": 200, "payload": {"slept": True}}
    again = server_factory(server.data_dir)
    assert again.client("lambda").get_function(FunctionName="slow")["Configuration"]["FunctionName"] == "slow"
