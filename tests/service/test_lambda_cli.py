"""The seed labs' Lambda commands through the AWS CLI v1, verbatim in shape."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import time
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

ACCOUNT = "000000000000"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
APP_V1 = "def handler(event, context):\n    print('WORKFLOW ' + str(event))\n    return {'v': 1, 'event': event}\n"
APP_V2 = """
class TransientOrderError(Exception):
    pass


def handler(event, context):
    print('attempt for ' + event['id'])
    raise TransientOrderError('Dependency temporarily unavailable')
"""

Cli = Callable[..., subprocess.CompletedProcess[str]]


def write_zip(folder: Path, source: str) -> Path:
    (folder / "app.py").write_text(source)
    path = folder / "function.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(folder / "app.py", "app.py")  # what `zip -j function.zip app.py` produces
    return path


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture
def function(aws_cli: Cli, tmp_path: Path) -> str:
    role = f"worker-role-{uuid.uuid4().hex[:8]}"
    (tmp_path / "trust.json").write_text(json.dumps(TRUST))
    role_arn = ok(aws_cli("iam", "create-role", "--role-name", role, "--assume-role-policy-document",
                          "file://trust.json", "--query", "Role.Arn", "--output", "text", cwd=str(tmp_path))).strip()
    name = f"worker-{uuid.uuid4().hex[:8]}"
    write_zip(tmp_path, APP_V1)
    created = json.loads(ok(aws_cli(
        "lambda", "create-function", "--function-name", name, "--runtime", "python3.12", "--role", role_arn,
        "--handler", "app.handler", "--zip-file", "fileb://function.zip",
        "--environment", "Variables={ORDERS_TABLE=orders,ATTEMPTS_TABLE=attempts}", cwd=str(tmp_path),
    )))  # fmt: skip
    assert created["State"] == "Pending"
    ok(aws_cli("lambda", "wait", "function-active-v2", "--function-name", name))
    return name


def test_update_code_prints_the_zip_sha(aws_cli: Cli, function: str, tmp_path: Path) -> None:
    path = write_zip(tmp_path, APP_V2)
    out = ok(aws_cli("lambda", "update-function-code", "--function-name", function, "--zip-file",
                     "fileb://function.zip", "--query", "CodeSha256", "--output", "text", cwd=str(tmp_path)))
    assert out == base64.b64encode(hashlib.sha256(path.read_bytes()).digest()).decode() + "\n"
    ok(aws_cli("lambda", "wait", "function-updated-v2", "--function-name", function))
    summary = json.loads(ok(aws_cli("lambda", "get-function-configuration", "--function-name", function,
                                    "--query", "{Name:FunctionName,Role:Role,Runtime:Runtime,Timeout:Timeout}")))
    assert summary["Name"] == function and summary["Runtime"] == "python3.12" and summary["Timeout"] == 3
    arn = ok(aws_cli("lambda", "get-function-configuration", "--function-name", function,
                     "--query", "FunctionArn", "--output", "text")).strip()
    assert arn == f"arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}"


def test_invoke_and_read_logs(aws_cli: Cli, function: str, tmp_path: Path) -> None:
    out = json.loads(ok(aws_cli("lambda", "invoke", "--function-name", function, "--payload", '{"id":"o1"}',
                                "response.json", cwd=str(tmp_path))))
    assert out == {"StatusCode": 200, "ExecutedVersion": "$LATEST"}
    assert json.loads((tmp_path / "response.json").read_text()) == {"v": 1, "event": {"id": "o1"}}

    write_zip(tmp_path, APP_V2)
    ok(aws_cli("lambda", "update-function-code", "--function-name", function, "--zip-file", "fileb://function.zip",
               cwd=str(tmp_path)))
    out = json.loads(ok(aws_cli("lambda", "invoke", "--function-name", function, "--payload", '{"id":"o2"}',
                                "response.json", cwd=str(tmp_path))))
    assert out == {"StatusCode": 200, "FunctionError": "Unhandled", "ExecutedVersion": "$LATEST"}
    error = json.loads((tmp_path / "response.json").read_text())
    assert (error["errorType"], error["errorMessage"]) == ("TransientOrderError", "Dependency temporarily unavailable")

    messages: list[str] = []
    deadline = time.monotonic() + 30  # Lambda ships logs asynchronously; wait for both REPORT lines
    while time.monotonic() < deadline and sum(m.startswith("REPORT ") for m in messages) < 2:
        messages = json.loads(ok(aws_cli("logs", "filter-log-events", "--log-group-name",
                                         f"/aws/lambda/{function}", "--query", "events[].message")))
    assert "WORKFLOW {'id': 'o1'}\n" in messages
    assert "attempt for o2\n" in messages
    assert any(m.startswith("[ERROR] TransientOrderError: Dependency temporarily unavailable\n") for m in messages)
    assert sum(m.startswith("START RequestId: ") for m in messages) == 2
    assert sum(m.startswith("REPORT RequestId: ") for m in messages) == 2

    deleted = ok(aws_cli("lambda", "delete-function", "--function-name", function))
    assert json.loads(deleted) == {"StatusCode": 204}
    missing = aws_cli("lambda", "get-function", "--function-name", function)
    assert missing.returncode == 255
    assert missing.stderr.strip() == (
        "An error occurred (ResourceNotFoundException) when calling the GetFunction operation: "
        f"Function not found: arn:aws:lambda:us-east-1:{ACCOUNT}:function:{function}"
    )
