"""TestState on Map and Parallel states through boto3: mocked results and errors (their Retry and
Catch), mapIterationFailureCount against the tolerated failures, and the Map's DEBUG inspection."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))  # TestState: "sync-"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return str(aws("iam").create_role(RoleName=f"ts-map-{uuid.uuid4().hex[:8]}",
                                      AssumeRolePolicyDocument=TRUST)["Role"]["Arn"])


@pytest.fixture(scope="module")
def run(sfn: Any, role: str) -> Callable[..., dict[str, Any]]:
    def call(state: dict[str, Any], data: Any, **kw: Any) -> dict[str, Any]:
        return sfn.test_state(definition=json.dumps(state), roleArn=role, input=json.dumps(data), **kw)
    return call


def test_a_mocked_map_result_goes_through_result_path(run: Callable[..., dict[str, Any]]) -> None:
    # a mocked Map still reads its items (AWS: 'Reference path "$" must point to array.' for an object)
    state = {"Type": "Map", "ItemProcessor": PASS, "ItemsPath": "$.xs", "ResultPath": "$.out", "Next": "After"}
    r = run(state, {"xs": [1]}, mock={"result": "[10, 20]"})
    assert (r["status"], r["nextState"], json.loads(r["output"])) == ("SUCCEEDED", "After",
                                                                       {"xs": [1], "out": [10, 20]})


@pytest.mark.parametrize("kind", ["Map", "Parallel"])
def test_a_mocked_error_is_retried_or_caught(run: Callable[..., dict[str, Any]], kind: str) -> None:
    body = {"ItemProcessor": PASS} if kind == "Map" else {"Branches": [PASS]}
    state = {"Type": kind, **body, "End": True,
             "Retry": [{"ErrorEquals": ["Retry.Me"], "MaxAttempts": 1}],
             "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Handler"}]}
    r = run(state, [1], mock={"errorOutput": {"error": "Retry.Me", "cause": "c"}})
    assert (r["status"], r["error"]) == ("RETRIABLE", "Retry.Me")
    r = run(state, [1], mock={"errorOutput": {"error": "Other", "cause": "c"}})
    assert (r["status"], r["nextState"]) == ("CAUGHT_ERROR", "Handler")
    assert json.loads(r["output"]) == {"Error": "Other", "Cause": "c"}


def test_failed_iterations_beyond_the_tolerance_fail_the_map(run: Callable[..., dict[str, Any]]) -> None:
    state = {"Type": "Map", "ItemProcessor": PASS, "ToleratedFailureCount": 1, "End": True}
    ok = run(state, [1, 2, 3], mock={"result": "[]"}, stateConfiguration={"mapIterationFailureCount": 1})
    assert ok["status"] == "SUCCEEDED"
    r = run(state, [1, 2, 3], mock={"result": "[]"}, stateConfiguration={"mapIterationFailureCount": 2})
    assert (r["status"], r["error"]) == ("FAILED", "States.ExceedToleratedFailureThreshold")


def test_debug_shows_the_map_input_steps(run: Callable[..., dict[str, Any]]) -> None:
    state = {"Type": "Map", "ItemProcessor": PASS, "InputPath": "$.in", "ItemsPath": "$.xs",
             "ItemSelector": {"v.$": "$$.Map.Item.Value", "k.$": "$.k"}, "ItemBatcher": {"MaxItemsPerBatch": 2},
             "ToleratedFailurePercentage": 50, "MaxConcurrency": 3, "End": True}
    batches = [{"Items": [{"v": 1, "k": "K"}, {"v": 2, "k": "K"}]}, {"Items": [{"v": 3, "k": "K"}]}]
    # AWS's TestState runs no iteration: a Map needs a mock (test_state_mock_validation's recording)
    r = run(state, {"in": {"xs": [1, 2, 3], "k": "K"}}, inspectionLevel="DEBUG", mock={"result": json.dumps(batches)})
    assert r["status"] == "SUCCEEDED", r
    data = r["inspectionData"]
    assert json.loads(data["afterInputPath"]) == {"xs": [1, 2, 3], "k": "K"}
    assert json.loads(data["afterItemsPath"]) == [1, 2, 3]
    assert json.loads(data["afterItemSelector"]) == [{"v": 1, "k": "K"}, {"v": 2, "k": "K"}, {"v": 3, "k": "K"}]
    assert json.loads(data["afterItemBatcher"]) == [{"Items": [{"v": 1, "k": "K"}, {"v": 2, "k": "K"}]},
                                                    {"Items": [{"v": 3, "k": "K"}]}]
    assert (data["toleratedFailurePercentage"], data["maxConcurrency"]) == (50.0, 3)
    assert json.loads(r["output"]) == [{"Items": [{"v": 1, "k": "K"}, {"v": 2, "k": "K"}]},
                                       {"Items": [{"v": 3, "k": "K"}]}]
