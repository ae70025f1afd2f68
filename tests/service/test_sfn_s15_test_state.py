"""TestState against AWS's recorded answers, the entries session 14 left uncompared.

Each case sends what one of LocalStack's AWS-validated tests sent and expects what its snapshot
recorded (tests/aws/services/stepfunctions/v2/test_state/test_test_state_scenarios.snapshot.json in
localstack/localstack); the entry is named beside each case.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

LAMBDA_SERVICE_TASK = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True}
# templates/outputdecl/statemachines/base_expr.json5
BASE_EXPR = {"StartAt": "Init", "States": {
    "Init": {"Type": "Pass", "Assign": {"var_input_value.$": "$.input_value", "var_constant_1": 1}, "Next": "State0"},
    "State0": {"QueryLanguage": "JSONata", "Type": "Pass", "Output": {
        "ja_states_context": "{% $states.context %}", "ja_states_input": "{% $states.input %}",
        "ja_var_access": "{% $var_input_value %}",
        "ja_expr": "{% $sum($states.input.input_values) + $var_constant_1 %}"}, "End": True}}}
# the "Ask for Approval" state of the recorded localstack_blogpost_scenario (its afterArguments)
ASK_FOR_APPROVAL = {"Type": "Task", "QueryLanguage": "JSONata", "Resource": "arn:aws:states:::apigateway:invoke",
                    "Arguments": {"Method": "POST", "ApiEndpoint": "example.execute-api.us-east-1.amazonaws.com",
                                  "Path": "/approval", "AuthType": "NO_AUTH",
                                  "RequestBody": {"cost": "{% $states.input.cost %}", "dept_id": "12345678"}},
                    "Next": "Check Approval",
                    "Output": {"approval": "{% $states.result.approval %}", "approval_code": "2387462",
                               "approved_by": "Mary"}}


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    # TestState's endpoint carries a "sync-" host prefix that loopback names cannot take.
    return aws("stepfunctions", config=botocore.config.Config(retries={"max_attempts": 1}, inject_host_prefix=False))


def test_a_task_that_would_run_needs_a_role(sfn: Any) -> None:
    # test_base_lambda_service_task_state_no_role_arn_validation: no roleArn, no mock
    with pytest.raises(ClientError) as e:
        sfn.test_state(definition=json.dumps(LAMBDA_SERVICE_TASK), inspectionLevel="TRACE",
                       input=json.dumps({"FunctionName": "lambda_func_x", "Payload": None}))
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert e.value.response["Error"] == {"Code": "ValidationException",
                                         "Message": "RoleArn must be specified when testing a Task state"}


def test_a_mocked_task_needs_no_role(sfn: Any) -> None:
    # test_localstack_blogpost_scenario: large_purchase_ask_for_approval_response (no roleArn)
    out = sfn.test_state(definition=json.dumps(ASK_FOR_APPROVAL), input=json.dumps({"cost": 10}),
                         mock={"result": '{"approval": true }'}, inspectionLevel="TRACE")
    assert (out["status"], out["nextState"]) == ("SUCCEEDED", "Check Approval")
    assert json.loads(out["output"]) == {"approval": True, "approval_code": "2387462", "approved_by": "Mary"}
    assert {k: json.loads(v) for k, v in out["inspectionData"].items()} == {
        "input": {"cost": 10}, "result": {"approval": True},
        "afterArguments": {"Method": "POST", "ApiEndpoint": "example.execute-api.us-east-1.amazonaws.com",
                           "Path": "/approval", "RequestBody": {"cost": 10, "dept_id": "12345678"},
                           "AuthType": "NO_AUTH"}}


def test_the_context_of_a_named_state_without_a_role(sfn: Any) -> None:
    # test_state_with_variables[base_expressions]: the state is named StateName whatever stateName
    # says, and Execution.RoleArn is there and null
    out = sfn.test_state(definition=json.dumps(BASE_EXPR), stateName="State0", inspectionLevel="TRACE",
                         input=json.dumps({"input_values": [1, 2, 3]}),
                         variables=json.dumps({"var_input_value": "test_value", "var_constant_1": 10}))
    assert out["status"] == "SUCCEEDED"
    assert {k: json.loads(v) for k, v in out["inspectionData"].items()} == {
        "input": {"input_values": [1, 2, 3]}, "variables": {"var_input_value": "test_value", "var_constant_1": 10}}
    output = json.loads(out["output"])
    assert (output["ja_states_input"], output["ja_var_access"], output["ja_expr"]) == (
        {"input_values": [1, 2, 3]}, "test_value", 16)
    execution, state = output["ja_states_context"]["Execution"], output["ja_states_context"]["State"]
    assert list(execution) == ["Id", "Input", "Name", "RoleArn", "StartTime"]
    assert (execution["RoleArn"], execution["Input"]) == (None, {"input_values": [1, 2, 3]})
    assert state == {"Name": "StateName", "EnteredTime": state["EnteredTime"]}  # a Pass has no RetryCount
