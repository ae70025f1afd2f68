"""The seed lab's ambiguous failure, made by a fault rule instead of the worker's `after-write`
mode: the protected worker's PutItem takes effect and its answer is lost (a throttling error);
boto3's own retry inside the handler repeats the write, the conditional write finds the order,
and the seed workflow succeeds with one order item."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import boto3

from scenarios.conftest import LabEnvironment

sys.path.insert(0, str(Path(__file__).parents[1] / "service"))
from faults_client import faults, set_rules

WORKFLOW = Path(__file__).parents[2] / "src" / "onceflow" / "examples" / "orders" / "workflow-template.json"
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def test_lost_putitem_answer_is_absorbed_by_the_conditional_write(
    lab_environment: Callable[[str], LabEnvironment],
) -> None:
    from onceflow.examples.orders.provision import worker_zip

    env = lab_environment("labex-ev05")
    url, prefix = env.server.url, env.prefix
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    lam, iam = session.client("lambda", endpoint_url=url), session.client("iam", endpoint_url=url)
    sfn, ddb = session.client("stepfunctions", endpoint_url=url), session.client("dynamodb", endpoint_url=url)
    lam.update_function_code(FunctionName=f"{prefix}-worker", ZipFile=worker_zip("protected"))
    lam.get_waiter("function_updated_v2").wait(FunctionName=f"{prefix}-worker")
    role = iam.create_role(RoleName=f"{prefix}-workflow-role", AssumeRolePolicyDocument=json.dumps(TRUST))
    iam.put_role_policy(RoleName=f"{prefix}-workflow-role", PolicyName="InvokeWorker", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                 "Resource": env.provisioned["worker_arn"]}]}))
    definition = WORKFLOW.read_text().replace("WORKER_NAME", f"{prefix}-worker")
    machine = sfn.create_state_machine(name=f"{prefix}-orders", definition=definition,
                                       roleArn=role["Role"]["Arn"])["stateMachineArn"]

    set_rules(url, [{"service": "dynamodb", "operation": "PutItem", "when": "after", "times": 1,
                     "caller": f"arn:aws:sts::*:assumed-role/{prefix}-worker-role/*",
                     "error": {"code": "ProvisionedThroughputExceededException"}}])
    order = {"id": "fault-order", "quantity": 2}
    arn = sfn.start_execution(stateMachineArn=machine, name="fault-order", input=json.dumps(order))["executionArn"]
    deadline = time.time() + 120
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING" and time.time() < deadline:
        time.sleep(0.2)
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
