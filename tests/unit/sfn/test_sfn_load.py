"""The loaded form of a definition (asl/load.py): typed, frozen nodes with AWS's defaults, once per text."""

from __future__ import annotations

import dataclasses
import json
import logging

import pytest

from onceflow.sfn.asl.load import load, load_definition
from onceflow.sfn.asl.nodes import Program, Retrier, State
from onceflow.sfn.engine import integrations as integrations_module
from onceflow.sfn.engine.integrations import integration, log_unsupported, resolve_integration

DEFINITION = {
    "QueryLanguage": "JSONata",
    "TimeoutSeconds": 30,
    "StartAt": "T",
    "States": {
        "T": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke.waitForTaskToken", "Next": "P",
              "Retry": [{"ErrorEquals": ["A"]}, {"ErrorEquals": ["States.ALL"], "MaxAttempts": 0,
                                                 "JitterStrategy": "FULL", "MaxDelaySeconds": 5}],
              "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "F", "Output": "{% $states.errorOutput %}"}]},
        "P": {"Type": "Parallel", "End": True, "Branches": [
            {"StartAt": "S", "States": {"S": {"Type": "Succeed"}}},
            {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, "ItemProcessor": {
                "ProcessorConfig": {"Mode": "DISTRIBUTED"}, "StartAt": "X",
                "States": {"X": {"Type": "Pass", "End": True}}}}}},
        ]},
        "F": {"Type": "Fail", "QueryLanguage": "JSONata", "Error": "E"},
    },
}


def test_states_know_where_they_go_and_what_handles_their_errors() -> None:
    machine = load(json.dumps(DEFINITION))
    assert (machine.timeout_seconds, machine.query_language, machine.program.start_at) == (30, "JSONata", "T")
    task = machine.program.states["T"]
    assert (task.type, task.next, task.query_language) == ("Task", "P", "JSONata")
    assert task.retriers == (Retrier(("A",)),
                             Retrier(("States.ALL",), max_attempts=0, max_delay_seconds=5.0, full_jitter=True))
    assert task.retriers[0] == Retrier(("A",), 1, 3, 2.0, None, False)  # AWS's defaults
    assert [(c.error_equals, c.next) for c in task.catchers] == [(("States.ALL",), "F")]
    assert task.catchers[0].result_path == "$"
    assert task.resource is not None and (task.resource.service, task.resource.action, task.resource.pattern) == (
        "lambda", "invoke", ".waitForTaskToken")
    assert machine.program.states["F"].next is None  # a Fail ends its program


def test_branches_and_processors_are_programs_with_the_containers_language() -> None:
    par = load(json.dumps(DEFINITION)).program.states["P"]
    assert par.next is None and len(par.branches) == 2
    succeed = par.branches[0].states["S"]
    assert (succeed.type, succeed.next, succeed.query_language) == ("Succeed", None, "JSONata")
    map_state = par.branches[1].states["M"]
    assert isinstance(map_state.processor, Program) and map_state.distributed
    assert map_state.processor.states["X"].query_language == "JSONata"
    assert not load_definition({"StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "Iterator": {"StartAt": "X", "States": {}}}}}).program.states["M"].distributed


def test_nodes_are_frozen_and_loaded_once_per_text() -> None:
    text = json.dumps(DEFINITION)
    assert load(text) is load(text)
    state = load(text).program.states["T"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.next = "X"  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.fields["Next"] = "X"  # type: ignore[index]
    assert isinstance(state, State) and state["Resource"].endswith("waitForTaskToken") and "Retry" in state


@pytest.mark.parametrize(("resource", "kind", "rtype", "res", "token"), [
    ("arn:aws:states:::sqs:sendMessage.waitForTaskToken", "sqs", "sqs", "sendMessage.waitForTaskToken",
     True),
    ("arn:aws:states:::ecs:runTask.sync", "unsupported", "ecs", "runTask.sync", False),
    ("arn:aws:states:::aws-sdk:ec2:describeInstances", "unsupported", "aws-sdk:ec2", "describeInstances", False),
    ("arn:aws:states:::aws-sdk:dynamodb:getItem.waitForTaskToken", "aws_sdk", "aws-sdk:dynamodb",
     "getItem.waitForTaskToken", True),
    ("arn:aws:states:::aws-sdk:ec2:describeInstances.waitForTaskToken", "unsupported", "aws-sdk:ec2",
     "describeInstances.waitForTaskToken", True),
    ("arn:aws:states:::dynamodb:query", "unsupported", "", "arn:aws:states:::dynamodb:query", False),
    ("arn:aws:states:::lambda:invoke.sync", "lambda_invoke", "lambda", "invoke.sync", False),
    ("arn:aws:states:us-east-1:000000000000:activity:a", "activity", "activity",
     "arn:aws:states:us-east-1:000000000000:activity:a", False),
    ("arn:aws:states:::states:startExecution", "states", "states", "startExecution", False),
    ("arn:aws:states:::states:startExecution.sync:2", "states", "states", "startExecution.sync:2", True),
    ("not-an-arn", "unsupported", "", "not-an-arn", False),
])
def test_integrations_come_from_the_one_resource_parser(resource: str, kind: str, rtype: str, res: str,
                                                        token: bool) -> None:
    integ = resolve_integration(resource)
    assert (integ.kind, integ.resource_type, integ.resource, integ.wait_for_token) == (kind, rtype, res, token)
    node = load_definition({"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": resource, "End": True}}})
    assert integration(node.program.states["T"].resource, resource) == integ


def test_tasks_onceflow_does_not_run_are_logged_once_each(caplog: pytest.LogCaptureFixture) -> None:
    # Two resources onceflow does not run (SQS and SNS run since they are served).
    sqs, sns = "arn:aws:states:::glue:startJobRun.sync", "arn:aws:states:::aws-sdk:ec2:describeInstances"
    nested = {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, "ItemProcessor": {
        "StartAt": "S", "States": {"S": {"Type": "Task", "Resource": sns, "End": True}}}}}}
    definition = {"StartAt": "P", "States": {
        "P": {"Type": "Parallel", "Next": "L", "Branches": [nested]},
        "L": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "Next": "Q",
              "Parameters": {"Type": "Task", "Resource": "arn:aws:states:::ecs:runTask"}},  # data, not a state
        "Q": {"Type": "Task", "Resource": sqs, "End": True}}}
    integrations_module._logged.difference_update({sqs, sns, "arn:aws:states:::ecs:runTask"})  # once per process
    with caplog.at_level(logging.WARNING, logger="onceflow.sfn"):
        log_unsupported("arn:sm:1", definition)
        log_unsupported("arn:sm:2", definition)
    logged = [r.getMessage() for r in caplog.records if "which onceflow does not run" in r.getMessage()]
    assert [m.split(" names the Task resource ")[1].split(",")[0] for m in logged] == [sns, sqs]


@pytest.mark.parametrize("odd", [
    {"Type": "Task", "Resource": 7, "End": True, "Retry": [{"ErrorEquals": "A", "IntervalSeconds": "x",
                                                          "MaxAttempts": True, "MaxDelaySeconds": "y"}, 3],
     "Catch": {"ErrorEquals": ["A"]}},
    {"Type": "Parallel", "Branches": {"StartAt": "X"}, "Next": 5},
    {"Type": "Map", "ItemProcessor": [], "End": "yes", "Catch": [{"ErrorEquals": [1, "B"], "Next": None}]},
])
def test_an_unchecked_state_loads_with_defaults_instead_of_raising(odd: dict) -> None:
    """TestState runs a state the checker never saw: odd values take AWS's defaults."""
    state = load_definition({"StartAt": "S", "States": {"S": odd}}).program.states["S"]
    assert state.branches == () and state.processor is None
    assert all(r == Retrier(()) for r in state.retriers)
    assert [(c.error_equals, c.next) for c in state.catchers] in ([], [(("B",), "")])
