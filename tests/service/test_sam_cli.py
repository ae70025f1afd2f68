"""The SAM CLI from PyPI, unchanged, against a real server: `sam build` (no container) then
`sam deploy --resolve-s3` (its managed bucket stack, the code uploaded to our S3, a change set),
the deployed function and state machine used through their own APIs, changed code built and
deployed again (an update), `sam logs` of the function, `sam list stack-outputs`, then
`sam delete`.

The SAM CLI lives in a virtualenv of its own (made once, kept in the user's cache): it pins
boto3/botocore/cfn-lint to ranges that conflict with onceflow's own, so it cannot share our env."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from serverproc import cli_env

APP = Path(__file__).with_name("sam_app")
SAM_CLI = "aws-sam-cli>=1.170,<1.171"  # tested with 1.170.0; its commands' output changes between minors
VENV = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "onceflow" / "sam-cli-1.170"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sam() -> Path:
    exe = VENV / "bin" / "sam"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, timeout=120)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", SAM_CLI], check=True, timeout=900)
    return exe


RUNTIME = f"python3.{sys.version_info.minor}"  # the runtime `sam build` finds on PATH: this interpreter


def _interpreters() -> str:
    """A folder holding `python3.N` of the interpreter running the tests (a venv has the link), put
    first on PATH: `sam build` (no container) runs the function's runtime from there, so the app is
    deployed with that runtime whatever Python this machine has."""
    folder = Path(sys.executable).parent
    if not (folder / RUNTIME).exists():
        raise AssertionError(f"sam build needs {RUNTIME} on PATH beside {sys.executable}")
    return str(folder)


def _run(sam: Path, endpoint: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = cli_env(endpoint, SAM_CLI_TELEMETRY="0", SAM_CLI_POLL_DELAY="0.2")
    env["PATH"] = os.pathsep.join([_interpreters(), env["PATH"]])
    done = subprocess.run([str(sam), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, f"sam {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_sam_build_deploy_run_delete(sam: Path, endpoint: str, aws: Any, tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(APP, app)
    template = app / "template.yaml"  # linted as committed (python3.12); deployed on this interpreter's runtime
    template.write_text(template.read_text().replace("Runtime: python3.12", f"Runtime: {RUNTIME}"))
    name = f"sam{uuid.uuid4().hex[:8]}"
    _run(sam, endpoint, app, "build")
    assert (app / ".aws-sam" / "build" / "Greeter" / "helper.py").exists()
    _run(sam, endpoint, app, "deploy", "--stack-name", name, "--resolve-s3", "--no-confirm-changeset",
         "--capabilities", "CAPABILITY_IAM", "--region", "us-east-1", "--no-fail-on-empty-changeset")

    cfn = aws("cloudformation")
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    managed = cfn.describe_stacks(StackName="aws-sam-cli-managed-default")["Stacks"][0]
    assert managed["StackStatus"] == "CREATE_COMPLETE"
    bucket = next(o["OutputValue"] for o in managed["Outputs"] if o["OutputKey"] == "SourceBucket")
    assert aws("s3").list_objects_v2(Bucket=bucket)["KeyCount"] >= 1  # the zipped code and the template

    sfn = aws("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=out["FlowArn"], input='{"name": "sam"}')["executionArn"]
    for _ in range(300):  # the Step Functions model has no execution waiter: poll
        run = sfn.describe_execution(executionArn=arn)
        if run["status"] != "RUNNING":
            break
        time.sleep(0.1)
    assert run["status"] == "SUCCEEDED", run
    assert json.loads(run["output"]) == {"greeting": "hello, sam"}

    # Changed code: built and deployed again, the stack is updated and the function runs the new code.
    (app / "src" / "helper.py").write_text("def greet(name: str) -> str:\n    return f'hi again, {name}'\n")
    _run(sam, endpoint, app, "build")
    _run(sam, endpoint, app, "deploy", "--stack-name", name, "--resolve-s3", "--no-confirm-changeset",
         "--capabilities", "CAPABILITY_IAM", "--region", "us-east-1", "--no-fail-on-empty-changeset")
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    answer = aws("lambda").invoke(FunctionName=out["GreeterName"], Payload=b'{"name": "sam"}')["Payload"].read()
    assert json.loads(answer) == {"greeting": "hi again, sam"}

    logs = _run(sam, endpoint, app, "logs", "--stack-name", name, "--name", "Greeter", "--start-time", "10min ago")
    assert "START RequestId" in logs.stdout, logs.stdout

    listed = _run(sam, endpoint, app, "list", "stack-outputs", "--stack-name", name, "--output", "json")
    assert {o["OutputKey"] for o in json.loads(listed.stdout)} == {"FlowArn", "GreeterName"}

    _run(sam, endpoint, app, "delete", "--stack-name", name, "--no-prompts", "--region", "us-east-1")
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    names = [f["FunctionName"] for f in aws("lambda").list_functions()["Functions"]]
    assert out["GreeterName"] not in names
