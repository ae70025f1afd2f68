"""Parallel states' histories compared with AWS's recordings (LocalStack's AWS-validated snapshot
tests/aws/services/stepfunctions/v2/scenarios/test_base_scenarios.snapshot.json), end to end
through boto3.

The test_parallel_state recording went through LocalStack's SfnNoneRecursiveParallelTransformer,
which zeroes the branch events' ids and, by a slip in how it splices the sorted branch events back,
drops ParallelStateSucceeded; the events outside the branches keep AWS's ids. There
ParallelStateExited is #19 with previousEventId 17: it follows the branches' last event, not
ParallelStateSucceeded (#18), just as MapStateExited follows the last MapIterationSucceeded."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished, states_role


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfnrecb")


def _run(aws: Callable[..., Any], role: str, definition: dict[str, Any], data: Any) -> tuple[
        dict[str, Any], list[dict[str, Any]]]:
    sfn = aws("stepfunctions")
    arn = sfn.create_state_machine(name=f"recb-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                   roleArn=role)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn, input=json.dumps(data))["executionArn"]
    described = finished(sfn, ex)
    events = sfn.get_execution_history(executionArn=ex, maxResults=1000)["events"]
    return described, events


def _pass(nxt: str | None = None) -> dict[str, Any]:
    return {"Type": "Pass", **({"Next": nxt} if nxt else {"End": True})}


# test_parallel_state's template: three branches of one, two and three Pass states over [1,2,3,4]
PARALLEL_STATE = {"StartAt": "LoadInput", "States": {
    "LoadInput": {"Type": "Pass", "Result": [1, 2, 3, 4], "Next": "ParallelState"},
    "ParallelState": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "Branch1", "States": {"Branch1": _pass()}},
        {"StartAt": "Branch21", "States": {"Branch21": _pass("Branch22"), "Branch22": _pass()}},
        {"StartAt": "Branch31", "States": {"Branch31": _pass("Branch32"), "Branch32": _pass("Branch33"),
                                           "Branch33": _pass()}}]}}}


def test_parallel_state_history_is_numbered_as_aws_numbers_it(aws: Callable[..., Any], role: str) -> None:
    described, events = _run(aws, role, PARALLEL_STATE, {})
    whole = "[[1,2,3,4],[1,2,3,4],[1,2,3,4]]"
    assert described["status"] == "SUCCEEDED" and described["output"] == whole
    assert len(events) == 20
    outside = [(e["id"], e["previousEventId"], e["type"]) for e in events if e["id"] <= 5 or e["id"] >= 18]
    assert outside == [(1, 0, "ExecutionStarted"), (2, 0, "PassStateEntered"), (3, 2, "PassStateExited"),
                       (4, 3, "ParallelStateEntered"), (5, 4, "ParallelStateStarted"),
                       (18, 17, "ParallelStateSucceeded"), (19, 17, "ParallelStateExited"),
                       (20, 19, "ExecutionSucceeded")]
    branch = events[5:17]
    assert sorted(e["stateEnteredEventDetails"]["name"] for e in branch if e["type"] == "PassStateEntered") == [
        "Branch1", "Branch21", "Branch22", "Branch31", "Branch32", "Branch33"]
    assert all(e["type"] in ("PassStateEntered", "PassStateExited") for e in branch)
    for e in branch:
        details = e.get("stateEnteredEventDetails") or e["stateExitedEventDetails"]
        assert details.get("input", details.get("output")) == "[1,2,3,4]"
    assert events[18]["stateExitedEventDetails"] == {"name": "ParallelState", "output": whole,
                                                     "outputDetails": {"truncated": False}}
    assert events[19]["executionSucceededEventDetails"] == {"output": whole, "outputDetails": {"truncated": False}}


def test_the_state_after_a_parallel_chains_on_its_exit(aws: Callable[..., Any], role: str) -> None:
    """The pointer ParallelStateSucceeded leaves alone moves again with ParallelStateExited."""
    definition = {"StartAt": "P", "States": {
        "P": {"Type": "Parallel", "Next": "After", "Branches": [
            {"StartAt": "A", "States": {"A": _pass("B"), "B": _pass()}}]},
        "After": _pass()}}
    described, events = _run(aws, role, definition, {"k": 1})
    assert described["status"] == "SUCCEEDED" and described["output"] == '[{"k":1}]'
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "ParallelStateEntered"), (3, 2, "ParallelStateStarted"),
        (4, 3, "PassStateEntered"), (5, 4, "PassStateExited"), (6, 5, "PassStateEntered"),
        (7, 6, "PassStateExited"), (8, 7, "ParallelStateSucceeded"), (9, 7, "ParallelStateExited"),
        (10, 9, "PassStateEntered"), (11, 10, "PassStateExited"), (12, 11, "ExecutionSucceeded")]


def test_a_failed_parallel_still_chains_its_failure(aws: Callable[..., Any], role: str) -> None:
    """test_parallel_state_fail (open corpus): ParallelStateFailed follows the branch's last event
    and the execution's failure follows it."""
    definition = {"StartAt": "ParallelState", "States": {"ParallelState": {
        "Type": "Parallel", "End": True, "Branches": [
            {"StartAt": "Branch1", "States": {"Branch1": {"Type": "Fail", "Error": "FailureType"}}}]}}}
    described, events = _run(aws, role, definition, {})
    assert (described["status"], described["error"]) == ("FAILED", "FailureType")
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "ParallelStateEntered"), (3, 2, "ParallelStateStarted"),
        (4, 3, "FailStateEntered"), (5, 4, "ParallelStateFailed"), (6, 5, "ExecutionFailed")]


def test_parallel_state_parameters_history_is_numbered_as_aws_numbers_it(aws: Callable[..., Any],
                                                                         role: str) -> None:
    """test_parallel_state[PARALLEL_STATE_PARAMETERS] (recorded 12-09-2024): two branches of one Pass
    over the Parameters; ParallelStateExited is #9 with previousEventId 7."""
    def branch(name: str) -> dict[str, Any]:
        return {"StartAt": name, "States": {name: _pass()}}
    definition = {"StartAt": "TestState", "States": {"TestState": {
        "Type": "Parallel", "End": True, "Parameters": {"static-input-0": 0, "static-input-1": [1]},
        "Branches": [branch("Branch0State0"), branch("Branch1State0")]}}}
    described, events = _run(aws, role, definition, {})
    whole = '[{"static-input-0":0,"static-input-1":[1]},{"static-input-0":0,"static-input-1":[1]}]'
    assert described["output"] == whole
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events if e["id"] <= 3 or e["id"] >= 8] == [
        (1, 0, "ExecutionStarted"), (2, 0, "ParallelStateEntered"), (3, 2, "ParallelStateStarted"),
        (8, 7, "ParallelStateSucceeded"), (9, 7, "ParallelStateExited"), (10, 9, "ExecutionSucceeded")]
    for e in events[3:7]:
        details = e.get("stateEnteredEventDetails") or e["stateExitedEventDetails"]
        assert details.get("input", details.get("output")) == '{"static-input-0":0,"static-input-1":[1]}'


# --------------------------------------------------------------------------- the execution's input, encoded again
def test_the_first_state_enters_with_the_input_encoded_again(aws: Callable[..., Any], role: str) -> None:
    """test_map_state_result_writer (recorded 19-08-2024): ExecutionStarted keeps '["Hello", "World"]'
    as given, MapStateEntered has '["Hello","World"]' (older, 02-2024 recordings kept the spacing in
    the first state's input too; the newer one is followed)."""
    sfn = aws("stepfunctions")
    definition = {"StartAt": "MapState", "States": {"MapState": {"Type": "Map", "End": True, "ItemProcessor": {
        "ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "Inner", "States": {"Inner": _pass()}}}}}
    arn = sfn.create_state_machine(name=f"recb-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                   roleArn=role)["stateMachineArn"]
    raw = '["Hello", "World"]'
    ex = sfn.start_execution(stateMachineArn=arn, input=raw)["executionArn"]
    described = finished(sfn, ex)
    assert described["status"] == "SUCCEEDED" and described["input"] == raw
    events = sfn.get_execution_history(executionArn=ex)["events"]
    assert events[0]["executionStartedEventDetails"]["input"] == raw
    assert events[1]["type"] == "MapStateEntered"
    assert events[1]["stateEnteredEventDetails"]["input"] == '["Hello","World"]'



# --------------------------------------------------------------------------- a Distributed Map over an ItemReader
ITEMS = [{"verdict": "true", "statement_date": "6/11/2008", "statement_source": "speech"},
         {"verdict": "false", "statement_date": "6/7/2022", "statement_source": "television"},
         {"verdict": "mostly-true", "statement_date": "5/18/2016", "statement_source": "news"}]


def test_item_reader_map_history_is_numbered_as_aws_numbers_it(aws: Callable[..., Any], role: str) -> None:
    """test_map_item_reader_base_json_max_items_jsonata (recorded 13-11-2024): MapStateStarted's length
    is 0 (the items are read later), MapStateSucceeded follows MapRunSucceeded (#6 after #5) and
    MapStateExited follows MapRunStarted (#7 after #4)."""
    aws("iam").put_role_policy(RoleName=role.rsplit("/", 1)[1], PolicyName="read", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}))
    bucket = f"recb-{uuid.uuid4().hex[:10]}"
    aws("s3").create_bucket(Bucket=bucket)
    aws("s3").put_object(Bucket=bucket, Key="file.json", Body=json.dumps(ITEMS).encode())
    definition = {"QueryLanguage": "JSONata", "StartAt": "MapState", "States": {"MapState": {
        "Type": "Map", "End": True,
        "ItemReader": {"Resource": "arn:aws:states:::s3:getObject",
                       "ReaderConfig": {"InputType": "JSON", "MaxItems": "{% $states.input.MaxItems %}"},
                       "Arguments": {"Bucket": "{% $states.input.Bucket %}", "Key": "{% $states.input.Key %}"}},
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "Pass", "States": {"Pass": {"Type": "Pass", "End": True}}}}}}
    described, events = _run(aws, role, definition, {"Bucket": bucket, "Key": "file.json", "MaxItems": 2})
    assert described["status"] == "SUCCEEDED", described.get("cause")
    assert json.loads(described["output"]) == ITEMS[:2]
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "MapStateEntered"), (3, 2, "MapStateStarted"), (4, 3, "MapRunStarted"),
        (5, 4, "MapRunSucceeded"), (6, 5, "MapStateSucceeded"), (7, 4, "MapStateExited"),
        (8, 7, "ExecutionSucceeded")]
    assert events[2]["mapStateStartedEventDetails"] == {"length": 0}


def test_distributed_map_over_its_input_chains_its_exit_on_the_run_s_end(aws: Callable[..., Any],
                                                                         role: str) -> None:
    """test_map_state_config_distributed_item_selector (02-2024) and test_map_state_result_writer
    (08-2024): without an ItemReader the length is the input's and both closing events follow
    MapRunSucceeded."""
    definition = {"StartAt": "MapState", "States": {"MapState": {"Type": "Map", "End": True, "ItemProcessor": {
        "ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
        "StartAt": "Pass", "States": {"Pass": {"Type": "Pass", "End": True}}}}}}
    described, events = _run(aws, role, definition, ["Hello", "World"])
    assert described["output"] == '["Hello","World"]'
    assert [(e["id"], e["previousEventId"], e["type"]) for e in events] == [
        (1, 0, "ExecutionStarted"), (2, 0, "MapStateEntered"), (3, 2, "MapStateStarted"), (4, 3, "MapRunStarted"),
        (5, 4, "MapRunSucceeded"), (6, 5, "MapStateSucceeded"), (7, 5, "MapStateExited"),
        (8, 7, "ExecutionSucceeded")]
    assert events[2]["mapStateStartedEventDetails"] == {"length": 2}
