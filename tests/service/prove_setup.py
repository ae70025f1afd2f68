"""The seed lab's prepared environment plus its workflow, on a server with a data folder, for the
prove tests and bench/bench_prove.py: `orders_lab(url, prefix, worker_file)`."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import boto3

from onceflow.examples.orders.provision import HERE, provision

WORKERS = Path(__file__).parent / "prove_workers"
STATES_TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def worker_file(variant: str) -> Path:
    """`protected` / `starter` (the seed's), or one of tests/service/prove_workers/*.py."""
    seed = HERE / variant / "app.py"
    return seed if seed.is_file() else WORKERS / f"{variant}.py"


def _zip(path: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(path, "app.py")
    return buf.getvalue()


def orders_lab(url: str, prefix: str, variant: str, template: dict[str, Any] | None = None) -> dict[str, str]:
    """Provision `prefix`, deploy the `variant` worker and create the `<prefix>-orders` workflow."""
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    made = provision(prefix, endpoint_url=url, session=session)
    lam = session.client("lambda", endpoint_url=url)
    lam.update_function_code(FunctionName=f"{prefix}-worker", ZipFile=_zip(worker_file(variant)))
    lam.get_waiter("function_updated_v2").wait(FunctionName=f"{prefix}-worker",
                                               WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    iam = session.client("iam", endpoint_url=url)
    role = iam.create_role(RoleName=f"{prefix}-workflow-role",
                           AssumeRolePolicyDocument=json.dumps(STATES_TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=f"{prefix}-workflow-role", PolicyName="invoke", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": made["worker_arn"]}]}))
    if template is None:
        template = json.loads((HERE / "workflow-template.json").read_text(encoding="utf-8"))
    definition = json.dumps(template).replace("WORKER_NAME", f"{prefix}-worker")
    sfn = session.client("stepfunctions", endpoint_url=url)
    arn = sfn.create_state_machine(name=f"{prefix}-orders", roleArn=role, definition=definition)["stateMachineArn"]
    return {**made, "state_machine_arn": arn, "state_machine": f"{prefix}-orders"}


def table_workflow(url: str, prefix: str, definition: dict[str, Any]) -> dict[str, str]:
    """Provision `prefix` and create `<prefix>-direct`: a workflow of DynamoDB tasks (no worker),
    its role allowed to write the orders table."""
    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    made = provision(prefix, endpoint_url=url, session=session)
    iam = session.client("iam", endpoint_url=url)
    role = iam.create_role(RoleName=f"{prefix}-direct-role",
                           AssumeRolePolicyDocument=json.dumps(STATES_TRUST))["Role"]["Arn"]
    table_arn = f"arn:aws:dynamodb:us-east-1:{made['account']}:table/{made['orders_table']}"
    iam.put_role_policy(RoleName=f"{prefix}-direct-role", PolicyName="tables", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:GetItem"],
                       "Resource": table_arn}]}))
    text = json.dumps(definition).replace("ORDERS_TABLE", made["orders_table"])
    sfn = session.client("stepfunctions", endpoint_url=url)
    arn = sfn.create_state_machine(name=f"{prefix}-direct", roleArn=role, definition=text)["stateMachineArn"]
    return {**made, "state_machine_arn": arn, "state_machine": f"{prefix}-direct"}


def concurrent_template() -> dict[str, Any]:
    """A Map of two concurrent iterations, then a Parallel of two branches: four invocations of
    one worker, two at a time."""
    retry = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1, "MaxAttempts": 2}]
    invoke = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True, "Retry": retry}

    def branch(name: str, order: str) -> dict[str, Any]:
        return {"StartAt": name, "States": {name: {**invoke, "Parameters": {
            "FunctionName": "WORKER_NAME", "Payload": {"id": order, "quantity": 1}}}}}

    return {"StartAt": "Each", "States": {
        "Each": {"Type": "Map", "ItemsPath": "$.orders", "MaxConcurrency": 2, "ResultPath": None, "Next": "Both",
                 "Iterator": {"StartAt": "Store", "States": {"Store": {
                     **invoke, "OutputPath": "$.Payload", "Parameters": {"FunctionName": "WORKER_NAME",
                                                                         "Payload.$": "$"}}}}},
        "Both": {"Type": "Parallel", "End": True, "Branches": [branch("Audit", "audit"), branch("Bill", "bill")]}}}
