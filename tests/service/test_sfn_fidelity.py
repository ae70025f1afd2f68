"""Small Step Functions behaviours end to end through boto3, each as AWS records or documents it:
how runtime errors print the offending value, how States.Format prints objects, that a Wait of
centuries neither crashes the timers nor blocks other executions, and JSONata at version 2.0.6."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished, states_role


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfnfid")


def _start(aws: Callable[..., Any], role: str, definition: dict[str, Any], data: Any) -> str:
    sfn = aws("stepfunctions")
    arn = sfn.create_state_machine(name=f"fid-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                   roleArn=role)["stateMachineArn"]
    ex: str = sfn.start_execution(stateMachineArn=arn, input=json.dumps(data))["executionArn"]
    return ex


def _run(aws: Callable[..., Any], role: str, definition: dict[str, Any], data: Any) -> dict[str, Any]:
    sfn = aws("stepfunctions")
    ex = _start(aws, role, definition, data)
    return finished(sfn, ex)


WAIT_SECONDS_PATH = {"StartAt": "W", "States": {"W": {"Type": "Wait", "SecondsPath": "$.s", "End": True}}}


@pytest.mark.parametrize(("value", "printed"), [(None, "null"), (True, "true"), ("x", "x"), ({"a": [1]}, "{a=[1]}")])
def test_a_bad_seconds_path_value_prints_as_aws_does(aws: Callable[..., Any], role: str, value: Any,
                                                      printed: str) -> None:
    d = _run(aws, role, WAIT_SECONDS_PATH, {"s": value})
    assert d["status"] == "FAILED" and d["error"] == "States.Runtime"
    assert d["cause"] == ("An error occurred while executing the state 'W' (entered at the event id #2). The "
                          f"SecondsPath parameter cannot be parsed as a long value: $.s == {printed}")


def test_max_concurrency_path_prints_null_as_null(aws: Callable[..., Any], role: str) -> None:
    definition = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ItemsPath": "$.items", "MaxConcurrencyPath": "$.mc", "End": True,
        "ItemProcessor": {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}}}}
    d = _run(aws, role, definition, {"items": [1], "mc": None})
    assert d["status"] == "FAILED"
    assert d["cause"].endswith('The MaxConcurrencyPath field refers to value "null" which is not a valid integer: $.mc')


def test_format_prints_objects_and_arrays_as_java_does(aws: Callable[..., Any], role: str) -> None:
    definition = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True, "Parameters": {
        "r.$": "States.Format('o={} a={} m={}', $.o, $.a, $$.StateMachine.Name)"}}}}
    d = _run(aws, role, definition, {"o": {"Arg1": 1, "Arg2": []}, "a": ["x", 2, None]})
    name = d["stateMachineArn"].rsplit(":", 1)[1]
    assert json.loads(d["output"]) == {"r": f"o={{Arg1=1, Arg2=[]}} a=[x, 2, null] m={name}"}


def test_a_wait_of_centuries_leaves_the_timers_running(aws: Callable[..., Any], role: str) -> None:
    sfn = aws("stepfunctions")
    far = _start(aws, role, WAIT_SECONDS_PATH, {"s": 99999999999})
    try:
        time.sleep(0.2)  # the far timer is scheduled first
        short = _run(aws, role, WAIT_SECONDS_PATH, {"s": 1})
        assert short["status"] == "SUCCEEDED"
        assert sfn.describe_execution(executionArn=far)["status"] == "RUNNING"
    finally:
        sfn.stop_execution(executionArn=far)


@pytest.mark.parametrize(("expr", "symbol"), [("$states.input.a ?? 1", "?"), ("$states.input.a ?: 1", ":")])
def test_jsonata_2_1_operators_are_refused_at_creation(aws: Callable[..., Any], role: str, expr: str,
                                                        symbol: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "P",
                  "States": {"P": {"Type": "Pass", "Output": "{% " + expr + " %}", "End": True}}}
    with pytest.raises(aws("stepfunctions").exceptions.InvalidDefinition) as info:
        aws("stepfunctions").create_state_machine(name=f"fid-{uuid.uuid4().hex[:10]}",
                                                  definition=json.dumps(definition), roleArn=role)
    message = info.value.response["Error"]["Message"]
    assert "INVALID_JSONATA_EXPRESSION" in message
    assert f"The symbol {symbol} cannot be used as a unary operator" in message


def test_jsonata_eval_is_not_available(aws: Callable[..., Any], role: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "P",
                  "States": {"P": {"Type": "Pass", "Output": "{% $eval('1 + 1') %}", "End": True}}}
    d = _run(aws, role, definition, {})
    assert d["status"] == "FAILED" and d["error"] == "States.QueryEvaluationError"
    assert d["cause"].endswith("threw an error during evaluation. T1006: Attempted to invoke a non-function")


@pytest.mark.parametrize("stamp", ["2016-12-05 21:29:29Z", "2016-12-05T21:29:29", "2016-13-05T21:29:29Z",
                                   "2016-12-05T25:29:29Z", "05-12-2016T21:29:29Z", "{% $states.input.t %}"])
def test_a_literal_timestamp_must_be_rfc3339(aws: Callable[..., Any], role: str, stamp: str) -> None:
    definition = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Timestamp": stamp, "End": True}}}
    sfn = aws("stepfunctions")
    with pytest.raises(sfn.exceptions.InvalidDefinition) as info:
        sfn.create_state_machine(name=f"fid-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition), roleArn=role)
    assert info.value.response["Error"]["Message"] == (
        "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: String does not match RFC3339 timestamp at "
        "/States/W/Timestamp'")


@pytest.mark.parametrize("stamp", ["2016-03-14T01:59:00Z", "2016-03-05T21:29:29.243167252Z",
                                   "2016-03-05T21:29:29+01:00"])
def test_rfc3339_timestamps_wait(aws: Callable[..., Any], role: str, stamp: str) -> None:
    definition = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Timestamp": stamp, "End": True}}}
    assert _run(aws, role, definition, {})["status"] == "SUCCEEDED"


def test_a_jsonata_timestamp_that_is_no_date_fails_after_the_wait_is_entered(aws: Callable[..., Any],
                                                                             role: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "W", "States": {
        "W": {"Type": "Wait", "Timestamp": "{% $states.input.t %}", "End": True}}}
    d = _run(aws, role, definition, {"t": "2016-12-05T25:29:29Z"})
    cause = ("An error occurred while executing the state 'W' (entered at the event id #2). The Timestamp field "
             "cannot be parsed as an ISO-8601 extended offset date-time format string: 2016-12-05T25:29:29Z")
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "States.QueryEvaluationError", cause)
    events = aws("stepfunctions").get_execution_history(executionArn=d["executionArn"])["events"]
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "WaitStateEntered"), (3, 2, "EvaluationFailed"), (4, 3, "ExecutionFailed")]
    assert events[2]["evaluationFailedEventDetails"] == {
        "error": "States.QueryEvaluationError", "cause": cause, "location": "Timestamp", "state": "W"}


def _tolerance_map(field: str) -> dict[str, Any]:
    return {"StartAt": "M", "States": {"M": {
        "Type": "Map", "ItemsPath": "$.Items", "MaxConcurrency": 1, f"{field}Path": "$.t", "End": True,
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}}}}


@pytest.mark.parametrize(("field", "value", "why"), [
    ("ToleratedFailureCount", "x", 'The ToleratedFailureCountPath field refers to value "x" which is not a valid '
                                   "integer: $.t"),
    ("ToleratedFailureCount", -1, "ToleratedFailureCount cannot be negative."),
    ("ToleratedFailurePercentage", {}, 'The ToleratedFailurePercentagePath field refers to value "{}" which is not a '
                                       "valid float: $.t"),
    ("ToleratedFailurePercentage", -1.1, "ToleratedFailurePercentage must be between 0 and 100."),
    ("ToleratedFailurePercentage", 100.1, "ToleratedFailurePercentage must be between 0 and 100."),
])
def test_a_bad_tolerance_path_fails_once_the_map_has_started(aws: Callable[..., Any], role: str, field: str,
                                                             value: Any, why: str) -> None:
    d = _run(aws, role, _tolerance_map(field), {"Items": [0], "t": value})
    assert (d["status"], d["error"]) == ("FAILED", "States.Runtime")
    assert d["cause"] == f"An error occurred while executing the state 'M' (entered at the event id #2). {why}"
    events = aws("stepfunctions").get_execution_history(executionArn=d["executionArn"])["events"]
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "MapStateEntered"), (3, 2, "MapStateStarted"), (4, 3, "ExecutionFailed")]


@pytest.mark.parametrize(("field", "value"), [("ToleratedFailureCount", 0), ("ToleratedFailurePercentage", 1.1),
                                              ("ToleratedFailurePercentage", 100)])
def test_a_good_tolerance_path_runs_the_map(aws: Callable[..., Any], role: str, field: str, value: Any) -> None:
    d = _run(aws, role, _tolerance_map(field), {"Items": [0], "t": value})
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", [0])
