"""Lab 002 (selective retry, a permanent-failure path, an execution whose role lost its invoke
permission), verbatim through the AWS CLI against onceflow, asserting every outcome it names."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from scenarios.conftest import LabEnvironment
from scenarios.labs import RETRY_LAB, load_lab, run_lab

# Harness probe after the denied execution: how many times the worker ran so far.
INVOCATIONS_PROBE = ("aws logs filter-log-events --log-group-name /aws/lambda/labex-ev04-worker "
                     "--filter-pattern '\"START RequestId\"' --query 'length(events)'")


DENIED_HISTORY_PROBE = ("aws stepfunctions get-execution-history --execution-arn \"$DENIED_ARN\" "
                        "--query 'events[?type==`TaskFailed`].taskFailedEventDetails'")


@pytest.mark.slow
def test_retry_lab_verbatim(lab_environment: Callable[[str], LabEnvironment]) -> None:
    env = lab_environment("labex-ev04")
    commands = load_lab(RETRY_LAB)
    denied_get = next(i for i, c in enumerate(commands) if '"denied-order"}}' in c)
    commands[denied_get + 1 : denied_get + 1] = [INVOCATIONS_PROBE, DENIED_HISTORY_PROBE]
    run = run_lab(commands, env.project, env.env)
    transcript = run.transcript()
    # The worker's own log lines carry Lambda's tracebacks of the failed attempts; nothing else may.
    assert not any("Traceback" in out for cmd, out in zip(run.commands, run.outputs, strict=True)
                   if "filter-log-events" not in cmd), transcript
    assert "An error occurred" not in transcript, transcript

    config = json.loads(run.output("--query '{Name:FunctionName,Role:Role,Runtime:Runtime,Timeout:Timeout}'"))
    assert config["Name"] == "labex-ev04-worker" and config["Runtime"] == "python3.12"
    assert json.loads(run.output("aws stepfunctions list-state-machines", 0)) == {"stateMachines": []}
    policy = json.loads(run.output("aws iam get-role-policy"))
    assert policy["PolicyDocument"]["Statement"][0]["Resource"] == env.provisioned["worker_arn"]

    # Flaky order: one TransientOrderError, then the store and the summary; 2/600; two attempts.
    retry = json.loads(run.output('--execution-arn "$RETRY_ARN" \\\n  --query \'{Status'))
    assert retry["Status"] == "SUCCEEDED"
    assert json.loads(retry["Output"]) == {"id": "retry-order", "total_cents": 600, "completed": True}
    tasks = json.loads(run.output('get-execution-history \\\n  --execution-arn "$RETRY_ARN"'))
    assert tasks == [{"Type": "TaskFailed", "Error": "TransientOrderError"},
                     {"Type": "TaskSucceeded", "Error": None}, {"Type": "TaskSucceeded", "Error": None}]
    order = json.loads(run.output('--table-name labex-ev04-orders \\\n  --key \'{"id":{"S":"retry-order"}}\''))
    assert order == {"id": {"S": "retry-order"}, "quantity": {"N": "2"}, "total_cents": {"N": "600"}}
    attempts = json.loads(run.output('--table-name labex-ev04-attempts \\\n  --key \'{"id":{"S":"retry-order"}}\''))
    assert attempts == {"id": {"S": "retry-order"}, "attempts": {"N": "2"}}

    # Permanent order: one InvalidOrder, caught to Rejected, FAILED with OrderRejected, no item.
    permanent = json.loads(run.output('--execution-arn "$PERMANENT_ARN" \\\n  --query \'{Status'))
    assert permanent == {"Status": "FAILED", "Error": "OrderRejected"}
    events = json.loads(run.output('get-execution-history \\\n  --execution-arn "$PERMANENT_ARN"'))
    assert events == [{"Type": "TaskFailed", "Error": "InvalidOrder", "State": None},
                      {"Type": "FailStateEntered", "Error": None, "State": "Rejected"}]
    assert run.output('--key \'{"id":{"S":"permanent-order"}}\'').strip() == "null"

    # Denied order: the role lost lambda:InvokeFunction; the worker never ran.
    denied = json.loads(run.output('--execution-arn "$DENIED_ARN" \\\n  --query \'{Status'))
    assert denied == {"Status": "FAILED", "Error": "Lambda.AWSLambdaException"}
    assert run.output('--key \'{"id":{"S":"denied-order"}}\'').strip() == "null"
    assert json.loads(run.output(INVOCATIONS_PROBE)) == 3 + 1  # retry-order (2 + summary) + permanent
    failed = json.loads(run.output(DENIED_HISTORY_PROBE))
    assert len(failed) == 1 and failed[0]["error"] == "Lambda.AWSLambdaException"
    cause = failed[0]["cause"]
    assert "is not authorized to perform: lambda:InvokeFunction" in cause
    assert "labex-ev04-workflow-role" in cause and "Status Code: 403" in cause
    assert "AccessDeniedException" in cause

    # Cleanup leaves only the prepared resources.
    assert json.loads(run.output("aws stepfunctions list-state-machines", 1)) == {"stateMachines": []}
    assert json.loads(run.output("aws iam list-roles")) == ["labex-ev04-worker-role"]
    assert json.loads(run.output("aws dynamodb scan --table-name labex-ev04-orders --query Items", 0)) == []
    assert json.loads(run.output("aws logs describe-log-groups")) == []
    reference = json.loads(run.output("aws dynamodb scan --table-name labex-ev04-reference"))
    assert reference == [{"id": {"S": "pricing"}, "unit_cents": {"N": "250"}, "fee_cents": {"N": "100"}}]
