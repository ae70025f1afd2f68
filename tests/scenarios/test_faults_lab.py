"""The seed lab's ambiguous failure, made by a fault rule instead of the worker's `after-write`
mode: the protected worker's PutItem takes effect and its answer is lost (a throttling error);
boto3's own retry inside the handler repeats the write, the conditional write finds the order,
and the seed workflow succeeds with one order item."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

from scenarios.conftest import LabEnvironment

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))
from faults_client import faults, set_rules

WORKFLOW = Path(__file__).parents[2] / "src" / "onceflow" / "examples" / "orders" / "workflow-template.json"
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def prepare(env: LabEnvironment) -> str:
    """What the idempotency lab leaves: the protected worker and the seed workflow; its ARN."""
    from onceflow.examples.orders.provision import worker_zip

    url, prefix = env.server.url, env.prefix
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    lam, iam = session.client("lambda", endpoint_url=url), session.client("iam", endpoint_url=url)
    sfn = session.client("stepfunctions", endpoint_url=url)
    lam.update_function_code(FunctionName=f"{prefix}-worker", ZipFile=worker_zip("protected"))
    lam.get_waiter("function_updated_v2").wait(FunctionName=f"{prefix}-worker")
    role = iam.create_role(RoleName=f"{prefix}-workflow-role", AssumeRolePolicyDocument=json.dumps(TRUST))
    iam.put_role_policy(RoleName=f"{prefix}-workflow-role", PolicyName="InvokeWorker", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                 "Resource": env.provisioned["worker_arn"]}]}))
    definition = WORKFLOW.read_text().replace("WORKER_NAME", f"{prefix}-worker")
    return str(sfn.create_state_machine(name=f"{prefix}-orders", definition=definition,
                                        roleArn=role["Role"]["Arn"])["stateMachineArn"])


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 120
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING" and time.time() < deadline:
        time.sleep(0.2)
    return d  # type: ignore[no-any-return]


def test_lost_putitem_answer_is_absorbed_by_the_conditional_write(
    lab_environment: Callable[[str], LabEnvironment],
) -> None:
    env = lab_environment("labex-ev05")
    machine = prepare(env)
    url, prefix = env.server.url, env.prefix
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    sfn, ddb = session.client("stepfunctions", endpoint_url=url), session.client("dynamodb", endpoint_url=url)
    set_rules(url, [{"service": "dynamodb", "operation": "PutItem", "when": "after", "times": 1,
                     "caller": f"arn:aws:sts::*:assumed-role/{prefix}-worker-role/*",
                     "error": {"code": "ProvisionedThroughputExceededException"}}])
    order = {"id": "fault-order", "quantity": 2}
    arn = sfn.start_execution(stateMachineArn=machine, name="fault-order", input=json.dumps(order))["executionArn"]
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == {"id": "fault-order", "total_cents": 600, "completed": True}

    events = sfn.get_execution_history(executionArn=arn)["events"]
    stored = json.loads(next(e["taskSucceededEventDetails"]["output"] for e in events if e["type"] == "TaskSucceeded"))
    assert stored["Payload"] == {"id": "fault-order", "quantity": 2, "total_cents": 600, "duplicate": True}
    assert not [e for e in events if e["type"] == "TaskFailed"]  # the SDK's retry absorbed it inside the handler
    orders = ddb.scan(TableName=f"{prefix}-orders")["Items"]
    assert orders == [{"id": {"S": "fault-order"}, "quantity": {"N": "2"}, "total_cents": {"N": "600"}}]
    attempts = ddb.get_item(TableName=f"{prefix}-attempts", Key={"id": {"S": "fault-order"}})["Item"]
    assert attempts["attempts"] == {"N": "1"}  # one Lambda run: the retry was boto3's, not the workflow's
    [rule] = faults(url)[1]["rules"]
    assert (rule["matched"], rule["fired"]) == (2, 1)  # the write, then boto3's repeat of it


def readme_commands() -> list[str]:
    """The README's three commands for the seed lab's ambiguous failure, each as written."""
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"ambiguous failure in three commands.*?```\n(.*?)```", readme, re.S)
    assert block is not None
    commands: list[str] = []
    for line in block.group(1).splitlines():
        if line.startswith(("onceflow ", "aws ")):
            commands.append(line)
        else:
            commands[-1] += "\n" + line
    return commands


def test_the_readme_reproduces_it_in_three_commands(lab_environment: Callable[[str], LabEnvironment]) -> None:
    env = lab_environment("labex-ev05")
    machine = prepare(env)
    commands = readme_commands()
    assert len(commands) == 3

    def bash(command: str) -> str:
        script = f'onceflow() {{ "{sys.executable}" -m onceflow "$@"; }}\n{command}'
        proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, env=env.env,
                              cwd=env.project)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert json.loads(bash(commands[0]))["rules"][0]["caller"].endswith("labex-ev05-worker-role/*")
    arn = json.loads(bash(commands[1]))["executionArn"]
    sfn = boto3.client("stepfunctions", endpoint_url=env.server.url, region_name="us-east-1",
                       aws_access_key_id="test", aws_secret_access_key="test")
    assert arn.startswith(machine.replace(":stateMachine:", ":execution:"))
    assert wait_done(sfn, arn)["status"] == "SUCCEEDED"
    stored = json.loads(json.loads(bash(commands[2])))
    assert stored["Payload"] == {"id": "lost-answer", "quantity": 2, "total_cents": 600, "duplicate": True}
