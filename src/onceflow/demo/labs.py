"""The seed labs' workflow steps, driven with boto3 as the lab documents drive them with the CLI.

Each run first removes what an earlier demo run left (its state machine, workflow role, orders,
attempts and worker logs), so re-running the demo on the same data folder works and repeats the
same outcomes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from onceflow.examples.orders.provision import worker_zip

TEMPLATE = Path(__file__).resolve().parents[1] / "examples" / "orders" / "workflow-template.json"
STATES_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


@dataclass
class ExecutionRecord:
    lab: str
    order_id: str
    name: str
    arn: str
    status: str = ""
    output: Any = None
    error: str | None = None
    cause: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)


def _ignore(codes: tuple[str, ...], call: Any, **kwargs: Any) -> None:
    try:
        call(**kwargs)
    except ClientError as exc:
        if exc.response["Error"]["Code"] not in codes:
            raise


class LabRunner:
    def __init__(self, clients: dict[str, Any], prefix: str, account: str, region: str) -> None:
        self.c = clients
        self.prefix = prefix
        self.account = account
        self.region = region
        self.worker = f"{prefix}-worker"
        self.role = f"{prefix}-workflow-role"
        self.machine_arn = f"arn:aws:states:{region}:{account}:stateMachine:{prefix}-orders"

    # ------------------------------------------------------------------ setup
    def clean_earlier_run(self, order_ids: list[str]) -> bool:
        """Remove the workflow resources and results an earlier run left; True if there were any."""
        found = False
        try:
            self.c["stepfunctions"].describe_state_machine(stateMachineArn=self.machine_arn)
            found = True
            self.c["stepfunctions"].delete_state_machine(stateMachineArn=self.machine_arn)
        except ClientError:
            pass
        try:
            self.c["iam"].get_role(RoleName=self.role)
            found = True
            for name in self.c["iam"].list_role_policies(RoleName=self.role)["PolicyNames"]:
                self.c["iam"].delete_role_policy(RoleName=self.role, PolicyName=name)
            self.c["iam"].delete_role(RoleName=self.role)
        except ClientError:
            pass
        for order in order_ids:
            for table in ("orders", "attempts"):
                self.c["dynamodb"].delete_item(TableName=f"{self.prefix}-{table}", Key={"id": {"S": order}})
        _ignore(("ResourceNotFoundException",), self.c["logs"].delete_log_group,
                logGroupName=f"/aws/lambda/{self.worker}")
        return found

    def deploy_worker(self, variant: str) -> str:
        return str(self.c["lambda"].update_function_code(FunctionName=self.worker, ZipFile=worker_zip(variant))[
            "CodeSha256"])

    def create_workflow(self) -> None:
        worker_arn = self.c["lambda"].get_function_configuration(FunctionName=self.worker)["FunctionArn"]
        role_arn = self.c["iam"].create_role(RoleName=self.role,
                                             AssumeRolePolicyDocument=json.dumps(STATES_TRUST))["Role"]["Arn"]
        self.invoke_policy = json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": worker_arn}]})
        self.grant_invoke()
        definition = json.loads(TEMPLATE.read_text())
        for state in ("StoreOrder", "ReadSummary"):
            definition["States"][state]["Parameters"]["FunctionName"] = self.worker
        self.c["stepfunctions"].create_state_machine(name=f"{self.prefix}-orders", type="STANDARD",
                                                     roleArn=role_arn, definition=json.dumps(definition))

    def grant_invoke(self) -> None:
        self.c["iam"].put_role_policy(RoleName=self.role, PolicyName="InvokeWorker", PolicyDocument=self.invoke_policy)

    def revoke_invoke(self) -> None:
        self.c["iam"].delete_role_policy(RoleName=self.role, PolicyName="InvokeWorker")

    # ------------------------------------------------------------------ executions
    def execute(self, lab: str, name: str, order: dict[str, Any], timeout: float = 120) -> ExecutionRecord:
        sfn = self.c["stepfunctions"]
        arn = sfn.start_execution(stateMachineArn=self.machine_arn, name=name, input=json.dumps(order))["executionArn"]
        record = ExecutionRecord(lab, order["id"], name, arn)
        deadline = time.monotonic() + timeout
        while True:
            described = sfn.describe_execution(executionArn=arn)
            if described["status"] != "RUNNING" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        record.status = described["status"]
        record.output = json.loads(described["output"]) if described.get("output") else None
        record.error, record.cause = described.get("error"), described.get("cause")
        paginator = sfn.get_paginator("get_execution_history")
        record.events = [e for page in paginator.paginate(executionArn=arn) for e in page["events"]]
        return record

    def item(self, table: str, order_id: str) -> dict[str, Any] | None:
        found = self.c["dynamodb"].get_item(TableName=f"{self.prefix}-{table}", Key={"id": {"S": order_id}})
        return found.get("Item")

    def worker_log_lines(self) -> list[str]:
        try:
            paginator = self.c["logs"].get_paginator("filter_log_events")
            return [e["message"] for page in paginator.paginate(logGroupName=f"/aws/lambda/{self.worker}")
                    for e in page["events"]]
        except ClientError:
            return []
