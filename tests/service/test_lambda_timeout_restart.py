"""After a timeout Lambda restarts the function's runtime in the same execution environment: the
module starts afresh, /tmp keeps what was written (recorded on AWS: LocalStack's aws-validated
test_lambda_invoke_timed_out_environment_reuse)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from typing import Any

from lambda_setup import lambda_role, zip_of

APP = """
import time

NUMBER = 0


def handler(event, context):
    global NUMBER
    action = event["action"]
    if action == "write":
        with open("/tmp/some-file", "w") as f:
            f.write("some-content")
    elif action == "read":
        with open("/tmp/some-file") as f:
            return {"content": f.read()}
    elif action == "set":
        NUMBER = 42
    elif action == "get":
        return {"number": NUMBER}
    elif action == "sleep":
        time.sleep(10)
"""


def test_tmp_outlives_a_timeout_and_the_module_does_not(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    name = f"restart-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=lambda_role(aws, "restart"),
                        Handler="app.handler", Code={"ZipFile": zip_of(APP)}, Timeout=1)  # fmt: skip

    def invoke(action: str) -> tuple[str | None, Any]:
        out = lam.invoke(FunctionName=name, Payload=json.dumps({"action": action}).encode())
        return out.get("FunctionError"), json.loads(out["Payload"].read())

    assert [invoke(a) for a in ("write", "read", "set", "get")] == [
        (None, None), (None, {"content": "some-content"}), (None, None), (None, {"number": 42})]  # fmt: skip
    error, payload = invoke("sleep")
    assert (error, payload["errorType"]) == ("Unhandled", "Sandbox.Timedout")
    assert re.fullmatch(r"RequestId: \S+ Error: Task timed out after \d+\.\d\d seconds", payload["errorMessage"])
    assert invoke("read") == (None, {"content": "some-content"})
    assert invoke("get") == (None, {"number": 0})
