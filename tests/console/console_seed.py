"""Build the seed system on a server through boto3 and fetch console pages (used by conftest.py,
the tests and the benchmark)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from onceflow.examples.orders import provision as orders

XSS = "<script>alert(1)</script>"
QUOTES = "\"'><img src=x onerror=alert(2)>"
BIG = "A" * 100_000 + XSS
BINARY = b"\xff\xfe\x00" + XSS.encode() + b"\x80\xc3"
TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"},
                                                  "Action": "sts:AssumeRole"}]}


@dataclass
class Page:
    status: int
    text: str
    headers: dict[str, str]


def fetch(url: str) -> Page:
    req = urllib.request.Request(url, headers={"Accept": "text/html"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return Page(resp.status, resp.read().decode("utf-8"), {k.lower(): v for k, v in resp.headers.items()})
    except urllib.error.HTTPError as err:
        return Page(err.code, err.read().decode("utf-8"), {k.lower(): v for k, v in err.headers.items()})


@dataclass
class Lab:
    prefix: str
    machine: str
    machine_arn: str
    role: str
    executions: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> DescribeExecution


def wait(sfn: Any, arn: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        described: dict[str, Any] = sfn.describe_execution(executionArn=arn)
        if described["status"] != "RUNNING" or time.monotonic() > deadline:
            return described
        time.sleep(0.2)


def build_lab(aws: Callable[..., Any], endpoint: str, prefix: str) -> Lab:
    import boto3

    session = boto3.session.Session(aws_access_key_id="test", aws_secret_access_key="test")
    made = orders.provision(prefix, endpoint_url=endpoint, session=session)
    lam, iam, sfn = aws("lambda"), aws("iam"), aws("stepfunctions")
    worker = f"{prefix}-worker"
    lam.update_function_code(FunctionName=worker, ZipFile=orders.worker_zip("protected"))
    lam.get_waiter("function_updated_v2").wait(FunctionName=worker, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    role = f"{prefix}-workflow-role"
    role_arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    invoke = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                      "Resource": made["worker_arn"]}]}
    iam.put_role_policy(RoleName=role, PolicyName="InvokeWorker", PolicyDocument=json.dumps(invoke))
    definition = json.loads((orders.HERE / "workflow-template.json").read_text())
    for state in ("StoreOrder", "ReadSummary"):
        definition["States"][state]["Parameters"]["FunctionName"] = worker
    machine = f"{prefix}-orders"
    arn = sfn.create_state_machine(name=machine, roleArn=role_arn, definition=json.dumps(definition),
                                   type="STANDARD")["stateMachineArn"]
    return Lab(prefix, machine, arn, role)


def run(aws: Callable[..., Any], lab: Lab, name: str, payload: dict[str, Any]) -> dict[str, Any]:
    sfn = aws("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=lab.machine_arn, name=name, input=json.dumps(payload))["executionArn"]
    lab.executions[name] = wait(sfn, arn)
    return lab.executions[name]


def seed_labs(aws: Callable[..., Any], endpoint: str, tag: str) -> dict[str, Lab]:
    idem = build_lab(aws, endpoint, f"con{tag}-ev05")
    run(aws, idem, "after-write-order", {"id": "protected-order", "quantity": 4, "mode": "after-write"})
    run(aws, idem, "repeated-order", {"id": "protected-order", "quantity": 4, "mode": "after-write"})
    run(aws, idem, "different-order", {"id": "different-order", "quantity": 1, "mode": "normal"})
    retry = build_lab(aws, endpoint, f"con{tag}-ev04")
    run(aws, retry, "flaky-order", {"id": "flaky-order", "quantity": 2, "mode": "flaky"})
    run(aws, retry, "permanent-order", {"id": "permanent-order", "quantity": 3, "mode": "permanent"})
    iam = aws("iam")  # the retry lab's denied order: the workflow role loses its invoke permission
    policy = iam.get_role_policy(RoleName=retry.role, PolicyName="InvokeWorker")["PolicyDocument"]
    iam.delete_role_policy(RoleName=retry.role, PolicyName="InvokeWorker")
    try:
        run(aws, retry, "denied-order", {"id": "denied-order", "quantity": 1, "mode": "normal"})
    finally:
        iam.put_role_policy(RoleName=retry.role, PolicyName="InvokeWorker", PolicyDocument=json.dumps(policy))
    return {"idempotency": idem, "retry": retry}


def store_hostile(aws: Callable[..., Any], tag: str) -> dict[str, Any]:
    """Hostile values in every kind of resource the console shows."""
    ddb, iam, sfn, logs = aws("dynamodb"), aws("iam"), aws("stepfunctions"), aws("logs")
    table, btable = f"hostile-{tag}", f"hostile-bin-{tag}"
    for name, kind in ((table, "S"), (btable, "B")):
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": kind}],
                         KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    ddb.put_item(TableName=table, Item={"id": {"S": XSS}, "quotes": {"S": QUOTES}, XSS: {"S": "attribute name"},
                                        "big": {"S": BIG}, "bin": {"B": BINARY}, "set": {"SS": [XSS, QUOTES]},
                                        "map": {"M": {XSS: {"L": [{"S": QUOTES}]}}}})
    ddb.put_item(TableName=btable, Item={"id": {"B": BINARY}, "note": {"S": XSS}})
    role = f"hostile-role-{tag}"
    role_arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(TRUST),
                               Description=XSS)["Role"]["Arn"]
    iam.put_role_policy(RoleName=role, PolicyName="p", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Sid": "x", "Effect": "Deny", "Action": "s3:*", "Resource": "*",
                                                "Condition": {"StringEquals": {"aws:UserAgent": XSS}}}]}))
    second = "a\"b'c&d<e>"
    definition = {"StartAt": XSS, "Comment": XSS, "States": {
        XSS: {"Type": "Pass", "Result": {"x": XSS, "q": QUOTES}, "ResultPath": "$.r", "Next": second},
        second: {"Type": "Choice", "Choices": [{"Variable": "$.x", "StringEquals": XSS, "Next": "Boom"}],
                 "Default": "Boom"},
        "Boom": {"Type": "Fail", "Error": XSS, "Cause": QUOTES}}}
    machine = f"hostile-{tag}"
    arn = sfn.create_state_machine(name=machine, roleArn=role_arn, definition=json.dumps(definition))["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=arn, name="hostile-input",
                                    input=json.dumps({"x": XSS, "q": QUOTES, "big": BIG}))["executionArn"]
    deadline = time.monotonic() + 60
    while sfn.describe_execution(executionArn=execution)["status"] == "RUNNING" and time.monotonic() < deadline:
        time.sleep(0.1)
    group = f"/hostile/{tag}"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=XSS)
    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName=XSS, logEvents=[
        {"timestamp": now, "message": XSS}, {"timestamp": now + 1, "message": QUOTES},
        {"timestamp": now + 2, "message": BIG}])
    return {"table": table, "btable": btable, "role": role, "machine": machine, "group": group}


# A state machine that counts to $.limit: one long history (3 events a turn) for paging tests and the bench.
LOOP = {"StartAt": "Count", "States": {
    "Count": {"Type": "Pass", "Parameters": {"n.$": "States.MathAdd($.n, 1)", "limit.$": "$.limit"}, "Next": "More"},
    "More": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericLessThanPath": "$.limit", "Next": "Count"}],
             "Default": "Done"},
    "Done": {"Type": "Succeed"}}}
