"""A CDK app's `cdk synth` output deployed unchanged with `aws cloudformation deploy`: the app in
examples/cdk (a DynamoDB table, a Python function that writes to it, a state machine that calls the
function; CDK's own role, policy and CDKMetadata resources) is synthesized by the real CDK CLI, deployed,
run through Step Functions, and deleted.

The CDK (aws-cdk-lib and the aws-cdk CLI, pinned in examples/cdk/package.json) is installed once
with npm into the user's cache, like the SAM CLI test's virtualenv. Without node/npm or the npm
registry the test skips, saying why; under CI=true that is a failure, as the SAM CLI test fails
there when it cannot get its tool."""

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

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cdk"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "onceflow"
RUNTIME = f"python3.{sys.version_info.minor}"  # onceflow runs the function on this interpreter

pytestmark = pytest.mark.slow


def _unavailable(why: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why} (CI=true requires the CDK test to run)")
    pytest.skip(why)


@pytest.fixture(scope="module")
def cdk_modules() -> Path:
    """node_modules holding the example's pinned CDK, installed once per version set."""
    package = json.loads((EXAMPLE / "package.json").read_text())
    deps = package["dependencies"]
    home = CACHE / f"cdk-{deps['aws-cdk-lib']}-{deps['aws-cdk']}"
    if (home / "node_modules" / ".bin" / "cdk").exists():
        return home / "node_modules"
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            _unavailable(f"{tool} is not installed: the CDK test needs node 20 and npm")
    try:
        ping = subprocess.run(["npm", "ping"], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        ping = None
    if ping is None or ping.returncode != 0:
        _unavailable("the npm registry is unreachable: the CDK cannot be installed")
    home.mkdir(parents=True, exist_ok=True)
    (home / "package.json").write_text(json.dumps({"name": "onceflow-cdk-cache", "private": True,
                                                   "dependencies": deps}))
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=home, check=True,
                   capture_output=True, timeout=900)
    return home / "node_modules"


def test_cdk_synth_output_deploys_runs_and_deletes(cdk_modules: Path, endpoint: str, aws: Any, aws_cli: Any,
                                                   tmp_path: Path) -> None:
    app = tmp_path / "app"
    shutil.copytree(EXAMPLE, app, ignore=shutil.ignore_patterns("node_modules", "cdk.out"))
    (app / "node_modules").symlink_to(cdk_modules)
    env = cli_env(endpoint, CDK_DISABLE_CLI_TELEMETRY="true")
    synth = subprocess.run([str(cdk_modules / ".bin" / "cdk"), "synth", "--no-notices", "--quiet",
                            "--context", f"runtime={RUNTIME}"], cwd=app, capture_output=True, text=True,
                           env=env, timeout=300)
    assert synth.returncode == 0, synth.stderr[-3000:]
    template = app / "cdk.out" / "OrdersCdk.template.json"
    types = {r["Type"] for r in json.loads(template.read_text())["Resources"].values()}
    assert {"AWS::CDK::Metadata", "AWS::IAM::Role", "AWS::IAM::Policy", "AWS::Lambda::Function",
            "AWS::StepFunctions::StateMachine", "AWS::DynamoDB::Table"} <= types

    name = f"cdk-{uuid.uuid4().hex[:8]}"
    done = aws_cli("cloudformation", "deploy", "--template-file", str(template), "--stack-name", name,
                   "--capabilities", "CAPABILITY_IAM")
    assert done.returncode == 0, done.stderr + done.stdout
    cfn = aws("cloudformation")
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}

    sfn = aws("stepfunctions")
    run = sfn.start_execution(stateMachineArn=out["StateMachineArn"], input=json.dumps({"orderId": "o-1"}))
    for _ in range(600):
        execution = sfn.describe_execution(executionArn=run["executionArn"])
        if execution["status"] != "RUNNING":
            break
        time.sleep(0.1)
    assert execution["status"] == "SUCCEEDED", execution
    assert json.loads(execution["output"]) == {"orderId": "o-1", "status": "recorded"}
    item = aws("dynamodb").get_item(TableName=out["TableName"], Key={"pk": {"S": "o-1"}})["Item"]
    assert item == {"pk": {"S": "o-1"}, "status": {"S": "recorded"}}

    done = aws_cli("cloudformation", "delete-stack", "--stack-name", name)
    assert done.returncode == 0, done.stderr
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack["StackId"], WaiterConfig={"Delay": 1})
    assert out["TableName"] not in aws("dynamodb").list_tables()["TableNames"]


def test_a_state_machine_role_that_trusts_only_its_accounts_machines(aws: Any) -> None:
    """CDK writes a state machine's role trusting states.amazonaws.com only for the account's own
    state machines (aws:SourceArn, aws:SourceAccount): AWS accepts it, and so must onceflow; a role
    trusting another account's machines only is still refused."""
    cfn, tag = aws("cloudformation"), uuid.uuid4().hex[:8]

    def template(account: Any) -> str:
        trust = {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole",
            "Condition": {"ArnLike": {"aws:SourceArn": {"Fn::Join": ["", [
                "arn:aws:states:", {"Ref": "AWS::Region"}, ":", account, ":stateMachine:*"]]}},
                "StringEquals": {"aws:SourceAccount": account}}}]}
        return json.dumps({"Resources": {
            "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": trust}},
            "Flow": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
                "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]},
                "DefinitionString": json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})}}}})

    for name, account, status in ((f"own-{tag}", {"Ref": "AWS::AccountId"}, "CREATE_COMPLETE"),
                                  (f"other-{tag}", "111122223333", "ROLLBACK_COMPLETE")):
        cfn.create_stack(StackName=name, TemplateBody=template(account), Capabilities=["CAPABILITY_IAM"])
        for _ in range(600):
            stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
            if not stack["StackStatus"].endswith("_IN_PROGRESS"):
                break
            time.sleep(0.05)
        assert stack["StackStatus"] == status, stack
