"""TestState's `mock` (result / errorOutput) and DEBUG inspection data, through boto3."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

LAMBDA_TASK = {
    "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
    "InputPath": "$.order",
    "Parameters": {"FunctionName": "no-such-function", "Payload.$": "$"},
    "ResultSelector": {"body.$": "$.Payload.body"},
    "ResultPath": "$.result",
    "Retry": [{"ErrorEquals": ["Lambda.TooManyRequestsException"], "MaxAttempts": 2}],
    "Catch": [{"ErrorEquals": ["Custom.Failure"], "Next": "Handle"}],
    "Next": "After",
}
RESULT = {"StatusCode": 200, "Payload": {"body": "mocked"}}
INPUT = {"order": {"id": 7}}


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    # TestState's endpoint carries a "sync-" host prefix that loopback names cannot take.
    return aws("stepfunctions", config=botocore.config.Config(retries={"max_attempts": 1}, inject_host_prefix=False))


def probe(sfn: Any, state: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    return sfn.test_state(definition=json.dumps(state or LAMBDA_TASK), input=json.dumps(INPUT), **kw)


def test_a_mocked_result_replaces_the_call(sfn: Any) -> None:
    # the result shows in DEBUG's inspection data: AWS answers INFO without inspectionData
    out = probe(sfn, mock={"result": json.dumps(RESULT)}, inspectionLevel="DEBUG")
    assert out["status"] == "SUCCEEDED"
    assert json.loads(out["output"]) == {"order": {"id": 7}, "result": {"body": "mocked"}}
    assert out["nextState"] == "After"
    assert json.loads(out["inspectionData"]["result"]) == RESULT


def test_debug_shows_each_processing_step(sfn: Any) -> None:
    out = probe(sfn, mock={"result": json.dumps(RESULT)}, inspectionLevel="DEBUG")
    data = out["inspectionData"]
    assert json.loads(data["input"]) == INPUT
    assert json.loads(data["afterInputPath"]) == {"id": 7}
    assert json.loads(data["afterParameters"]) == {"FunctionName": "no-such-function", "Payload": {"id": 7}}
    assert json.loads(data["result"]) == RESULT
    assert json.loads(data["afterResultSelector"]) == {"body": "mocked"}
    assert json.loads(data["afterResultPath"]) == {"order": {"id": 7}, "result": {"body": "mocked"}}


def test_info_has_no_debug_steps(sfn: Any) -> None:
    out = probe(sfn, mock={"result": json.dumps(RESULT)})
    assert "inspectionData" not in out  # AWS's INFO recordings have none at all
    data = out.get("inspectionData", {})
    assert "afterInputPath" not in data and "afterParameters" not in data and "afterResultSelector" not in data


def test_a_mocked_error_a_catcher_takes(sfn: Any) -> None:
    out = probe(sfn, mock={"errorOutput": {"error": "Custom.Failure", "cause": "it broke"}})
    assert out["status"] == "CAUGHT_ERROR"
    assert out["nextState"] == "Handle"
    assert (out["error"], out["cause"]) == ("Custom.Failure", "it broke")


def test_a_mocked_error_a_retrier_takes_until_its_attempts_are_spent(sfn: Any) -> None:
    mock = {"errorOutput": {"error": "Lambda.TooManyRequestsException", "cause": "slow down"}}
    assert probe(sfn, mock=mock)["status"] == "RETRIABLE"
    assert probe(sfn, mock=mock, stateConfiguration={"retrierRetryCount": 1})["status"] == "RETRIABLE"
    spent = probe(sfn, mock=mock, stateConfiguration={"retrierRetryCount": 2})
    assert spent["status"] == "FAILED"
    assert (spent["error"], spent["cause"]) == ("Lambda.TooManyRequestsException", "slow down")


def test_an_unhandled_mocked_error_fails(sfn: Any) -> None:
    out = probe(sfn, mock={"errorOutput": {"error": "Other.Error"}})
    assert out["status"] == "FAILED"
    assert out["error"] == "Other.Error"
    assert "nextState" not in out


def test_mocks_tasks_onceflow_does_not_run_and_callbacks(sfn: Any) -> None:
    glue = {"Type": "Task", "Resource": "arn:aws:states:::glue:startJobRun.sync",
            "Parameters": {"JobName": "nightly"}, "End": True}
    out = probe(sfn, glue, mock={"result": '{"JobRunState":"SUCCEEDED"}'})
    assert out["status"] == "SUCCEEDED" and json.loads(out["output"]) == {"JobRunState": "SUCCEEDED"}
    token = {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
             "Parameters": {"QueueUrl": "http://nowhere/q", "MessageBody": {"t.$": "$$.Task.Token"}}, "End": True}
    out = probe(sfn, token, mock={"result": '{"approved":true}'})
    assert out["status"] == "SUCCEEDED" and json.loads(out["output"]) == {"approved": True}


def test_an_activity_runs_only_mocked(sfn: Any) -> None:
    activity = {"Type": "Task", "Resource": "arn:aws:states:us-east-1:000000000000:activity:approve", "End": True}
    with pytest.raises(ClientError) as exc:
        probe(sfn, activity)
    assert exc.value.response["Error"]["Code"] == "ValidationException"  # no worker could take it
    out = probe(sfn, activity, mock={"result": '{"approved":true}'})
    assert out["status"] == "SUCCEEDED" and json.loads(out["output"]) == {"approved": True}


def test_jsonata_debug_shows_the_arguments(sfn: Any) -> None:
    state = {"Type": "Task", "QueryLanguage": "JSONata", "Resource": "arn:aws:states:::lambda:invoke",
             "Arguments": {"FunctionName": "f", "Payload": "{% $states.input.order %}"},
             "Output": "{% $states.result.Payload %}", "End": True}
    out = probe(sfn, state, mock={"result": json.dumps(RESULT)}, inspectionLevel="DEBUG")
    assert json.loads(out["output"]) == {"body": "mocked"}
    assert json.loads(out["inspectionData"]["afterArguments"]) == {"FunctionName": "f", "Payload": {"id": 7}}


@pytest.mark.parametrize("mock, fragment", [
    ({}, "exactly one of result or errorOutput"),
    ({"result": "{}", "errorOutput": {"error": "E"}}, "only one of the following fields: [result, errorOutput]"),
    ({"result": "{not json"}, "Mocked result must be valid JSON"),
    ({"errorOutput": {"cause": "no error"}}, "errorOutput.error is required"),
])
def test_bad_mocks_are_refused(sfn: Any, mock: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ClientError) as exc:
        probe(sfn, mock=mock)
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert fragment in exc.value.response["Error"]["Message"]


def test_a_mock_on_a_pass_state_is_refused(sfn: Any) -> None:
    with pytest.raises(ClientError) as exc:
        probe(sfn, {"Type": "Pass", "End": True}, mock={"result": "{}"})
    assert exc.value.response["Error"]["Code"] == "ValidationException"


DESCRIBE = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sfn:describeExecution",
            "Parameters": {"ExecutionArn": "arn:aws:states:us-east-1:000000000000:execution:m:e"}, "End": True}


def test_strict_field_validation_wants_the_required_fields(sfn: Any) -> None:
    partial = json.dumps({"Status": "SUCCEEDED"})
    with pytest.raises(ClientError) as exc:
        probe(sfn, DESCRIBE, mock={"result": partial})  # STRICT is the default
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert exc.value.response["Error"]["Message"] == (
        "Mock result schema validation error: Required field 'ExecutionArn' is missing")
    out = probe(sfn, DESCRIBE, mock={"result": partial, "fieldValidationMode": "PRESENT"})
    assert out["status"] == "SUCCEEDED" and json.loads(out["output"]) == {"Status": "SUCCEEDED"}


# AWS checks the fields its API defines only: an unknown field passes (test_field_validation_mode's
# field_not_part_of_api_spec recording, in test_sfn_test_state_recorded.py)
@pytest.mark.parametrize("result, fragment", [
    ({"StatusCode": "200"}, "Mock result schema validation error: Field 'StatusCode' must be a number"),
])
def test_present_fields_must_conform_to_the_api(sfn: Any, result: dict[str, Any], fragment: str) -> None:
    for mode in ("STRICT", "PRESENT"):
        with pytest.raises(ClientError) as exc:
            probe(sfn, mock={"result": json.dumps(result), "fieldValidationMode": mode})
        assert exc.value.response["Error"]["Code"] == "ValidationException"
        assert fragment in exc.value.response["Error"]["Message"]
    out = probe(sfn, {**LAMBDA_TASK, "ResultSelector": {"s.$": "$.StatusCode"}},
                mock={"result": json.dumps(result), "fieldValidationMode": "NONE"})
    assert out["status"] == "SUCCEEDED"


def test_debug_shows_a_pass_states_steps(sfn: Any) -> None:
    state = {"Type": "Pass", "InputPath": "$.order", "Parameters": {"copy.$": "$.id"}, "ResultPath": "$.p",
             "End": True}
    data = probe(sfn, state, inspectionLevel="DEBUG")["inspectionData"]
    assert json.loads(data["afterInputPath"]) == {"id": 7}
    assert json.loads(data["afterParameters"]) == {"copy": 7}
    # AWS shows no `result` for a Pass without Result: Parameters' output goes on as afterResultSelector
    # (test_test_state_scenarios' IO_PASS_STATE recording)
    assert "result" not in data
    assert json.loads(data["afterResultSelector"]) == {"copy": 7}
    assert json.loads(data["afterResultPath"]) == {"order": {"id": 7}, "p": {"copy": 7}}
    fixed = probe(sfn, {"Type": "Pass", "Result": {"r": 1}, "End": True}, inspectionLevel="DEBUG")
    assert json.loads(fixed["inspectionData"]["result"]) == {"r": 1}
    assert json.loads(fixed["inspectionData"]["afterResultPath"]) == {"r": 1}
