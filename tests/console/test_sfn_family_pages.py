"""The console's Step Functions pages beyond the STANDARD history: EXPRESS executions rebuilt from
the state machine's execution log, and nested executions linked to their parent and children."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import botocore.config
import pytest
from console_seed import Page

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
EXPRESS = {"StartAt": "Greet", "States": {
    "Greet": {"Type": "Pass", "Parameters": {"hello.$": "$.who"}, "Next": "Check"},
    "Check": {"Type": "Choice", "Choices": [{"Variable": "$.hello", "StringEquals": "boom", "Next": "Broke"}],
              "Default": "Done"},
    "Done": {"Type": "Succeed"},
    "Broke": {"Type": "Fail", "Error": "Express.Broke", "Cause": "<b>asked</b> to"}}}
CHILD = {"StartAt": "Echo", "States": {"Echo": {"Type": "Pass", "End": True}}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"console-family-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return str(arn)


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))


def _express_machine(aws: Callable[..., Any], sfn: Any, role: str, level: str = "ALL") -> tuple[str, str]:
    group = f"/aws/vendedlogs/states/console-{uuid.uuid4().hex[:8]}"
    aws("logs").create_log_group(logGroupName=group)
    name = f"express-{uuid.uuid4().hex[:8]}"
    arn = sfn.create_state_machine(
        name=name, definition=json.dumps(EXPRESS), roleArn=role, type="EXPRESS",
        loggingConfiguration={"level": level, "includeExecutionData": True, "destinations": [
            {"cloudWatchLogsLogGroup": {"logGroupArn": f"arn:aws:logs:us-east-1:000000000000:log-group:{group}:*"}}]},
    )["stateMachineArn"]
    return name, str(arn)


def test_express_executions_are_listed_and_drawn_from_their_log(page: Callable[[str], Page],
                                                                aws: Callable[..., Any], sfn: Any, role: str) -> None:
    name, arn = _express_machine(aws, sfn, role)
    ok = sfn.start_sync_execution(stateMachineArn=arn, name="first", input='{"who": "ann"}')
    failed = sfn.start_sync_execution(stateMachineArn=arn, name="second", input='{"who": "boom"}')
    assert (ok["status"], failed["status"]) == ("SUCCEEDED", "FAILED")

    listing = page(f"/states/{name}")
    assert listing.status == 200
    ok_key, failed_key = (e["executionArn"].split(":", 7)[7] for e in (ok, failed))
    assert f'href="/states/{name}/express/{quote(ok_key, safe="")}"' in listing.text
    assert f'href="/states/{name}/express/{quote(failed_key, safe="")}"' in listing.text
    assert "SUCCEEDED" in listing.text and "FAILED" in listing.text

    shown = page(f"/states/{name}/express/{quote(failed_key, safe='')}")
    assert shown.status == 200
    assert failed["executionArn"] in shown.text
    assert "ChoiceStateEntered" in shown.text and "FailStateEntered" in shown.text
    assert "Express.Broke" in shown.text
    assert "&lt;b&gt;asked&lt;/b&gt;" in shown.text and "<b>asked" not in shown.text  # escaped
    assert "idempotency" not in shown.text.split("Graph")[0]  # no ledger page for an execution without history
    status = json.loads(page(f"/states/{name}/express/{quote(ok_key, safe='')}/status.json").text)
    assert status["status"] == "SUCCEEDED"
    assert status["states"]["Done"]["status"] == "succeeded" and "Broke" not in status["states"]  # never entered

    assert page(f"/states/{name}/express/nosuch:{uuid.uuid4()}").status == 404


def test_express_machine_without_logging_says_why_nothing_is_listed(page: Callable[[str], Page], sfn: Any,
                                                                     role: str) -> None:
    name = f"express-{uuid.uuid4().hex[:8]}"
    arn = sfn.create_state_machine(name=name, definition=json.dumps(EXPRESS), roleArn=role,
                                   type="EXPRESS")["stateMachineArn"]
    assert sfn.start_sync_execution(stateMachineArn=arn, input='{"who": "x"}')["status"] == "SUCCEEDED"
    listing = page(f"/states/{name}")
    assert listing.status == 200
    assert "turn on the state machine" in listing.text and f"/states/{name}/express/" not in listing.text


def test_a_standard_machine_has_no_express_pages(page: Callable[[str], Page], sfn: Any, role: str) -> None:
    name = f"std-{uuid.uuid4().hex[:8]}"
    sfn.create_state_machine(name=name, definition=json.dumps(CHILD), roleArn=role)
    assert page(f"/states/{name}/express/x:{uuid.uuid4()}").status == 404


def test_parent_and_child_executions_link_to_each_other(page: Callable[[str], Page], sfn: Any, role: str) -> None:
    child_name = f"child-{uuid.uuid4().hex[:8]}"
    child = sfn.create_state_machine(name=child_name, definition=json.dumps(CHILD), roleArn=role)["stateMachineArn"]
    parent_name = f"parent-{uuid.uuid4().hex[:8]}"
    definition = {"StartAt": "Run", "States": {"Run": {
        "Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2", "End": True,
        "Parameters": {"StateMachineArn": child, "Name": "kid",
                       "Input": {"AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID.$": "$$.Execution.Id"}}}}}
    parent = sfn.create_state_machine(name=parent_name, definition=json.dumps(definition),
                                      roleArn=role)["stateMachineArn"]
    run = sfn.start_execution(stateMachineArn=parent, name="mum")["executionArn"]
    deadline = time.time() + 60
    while sfn.describe_execution(executionArn=run)["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    assert sfn.describe_execution(executionArn=run)["status"] == "SUCCEEDED"

    parent_page = page(f"/states/{parent_name}/executions/mum")
    assert parent_page.status == 200
    assert f'href="/states/{child_name}/executions/kid"' in parent_page.text
    child_page = page(f"/states/{child_name}/executions/kid")
    assert child_page.status == 200
    assert f'href="/states/{parent_name}/executions/mum"' in child_page.text


def test_a_map_run_links_its_child_executions_and_back(page: Callable[[str], Page], sfn: Any, role: str) -> None:
    name = f"dmap-{uuid.uuid4().hex[:8]}"
    definition = {"StartAt": "M", "States": {"M": {"Type": "Map", "Label": "Each", "End": True, "ItemProcessor": {
        "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
        "StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}}}}
    arn = sfn.create_state_machine(name=name, definition=json.dumps(definition), roleArn=role)["stateMachineArn"]
    run = sfn.start_execution(stateMachineArn=arn, name="many", input="[1, 2]")["executionArn"]
    deadline = time.time() + 60
    while sfn.describe_execution(executionArn=run)["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    map_run = sfn.list_map_runs(executionArn=run)["mapRuns"][0]["mapRunArn"]
    kids = sfn.list_executions(mapRunArn=map_run)["executions"]
    assert len(kids) == 2

    parent_page = page(f"/states/{name}/executions/many")
    assert parent_page.status == 200
    assert map_run in parent_page.text and "2 succeeded" in parent_page.text
    for kid in kids:
        href = f"/states/{name}/Each/executions/{kid['name']}"
        assert f'href="{href}"' in parent_page.text
        child_page = page(href)
        assert child_page.status == 200, child_page.text[:500]
        assert kid["executionArn"] in child_page.text
        assert f'href="/states/{name}/executions/many"' in child_page.text
        assert f'href="/states/{name}"' in child_page.text  # the crumb: the parent's machine
        assert "PassStateEntered" in child_page.text
        assert page(href + "/status.json").status == 200
