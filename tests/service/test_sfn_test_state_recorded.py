"""TestState against AWS's recorded answers.

Each case sends what one of LocalStack's AWS-validated TestState tests sent and expects what its
snapshot recorded (tests/aws/services/stepfunctions/v2/test_state/<file>.snapshot.json in
localstack/localstack; the states are its templates under templates/test_state/statemachines/).
The snapshot entry each case comes from is named beside it (<file>::<test>[<params>]). The
recordings parse JSON strings and replace ARNs' partitions and regions, uuids and request ids;
the assertions here compare the same parts.
"""

from __future__ import annotations

import io
import json
import re
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import botocore.config
import botocore.exceptions
import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": ["states.amazonaws.com", "lambda.amazonaws.com"]},
     "Action": "sts:AssumeRole"}]})

# --- the templates (templates/test_state/statemachines/*.json5)
BASE_PASS_STATE = {"Type": "Pass", "End": True}
BASE_FAIL_STATE = {"Type": "Fail", "Error": "SomeFailure",
                   "Cause": "This state machines raises a 'SomeFailure' failure."}
BASE_SUCCEED_STATE = {"Type": "Succeed"}
BASE_LAMBDA_SERVICE_TASK_STATE = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True}
_INNER_LAMBDA = {"Type": "Task", "QueryLanguage": "JSONata", "Resource": "arn:aws:states:::lambda:invoke",
                 "Arguments": {"FunctionName": "foo", "Payload": "bar"}, "End": True}
_DISTRIBUTED = {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}
BASE_MAP_STATE = {
    "Comment": "BASE_MAP_STATE", "Type": "Map", "QueryLanguage": "JSONata", "Items": "{% $states.input.Values %}",
    "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "TestState", "States": {"TestState": _INNER_LAMBDA}},
    "Output": "{% $states %}", "End": True,
}
MAP_TASK_STATE = {
    "Comment": "MAP_TASK_STATE", "Type": "Map", "QueryLanguage": "JSONata", "Items": "{% $states.input.Values %}",
    "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "TestState", "States": {"TestState": _INNER_LAMBDA}},
    "Output": {
        "result": "{% $map($states.result, function($v) { $v = 1 ? 'pass' : 'failed' }) %}",
        "successCount": "{% $count($states.result[$ = 1]) %}",
        "failedCount": "{% $count($states.result[$ = 0]) %}",
    },
    "ToleratedFailureCount": 1,
    "Retry": [{"ErrorEquals": ["MockException"], "MaxAttempts": 3},
              {"ErrorEquals": ["States.ExceedToleratedFailureThreshold"], "MaxAttempts": 2}],
    "Catch": [{"ErrorEquals": ["States.ExceedToleratedFailureThreshold"], "Output": "{% $states %}",
               "Next": "HandleThresholdExceeded"},
              {"ErrorEquals": ["MockException"], "Output": "{% $states %}", "Next": "HandleMockException"}],
    "End": True,
}
BASE_MAP_STATE_WITH_RESULT_WRITER = {
    "Comment": "BASE_MAP_STATE", "Type": "Map", "ItemsPath": "$.Values",
    "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "TestState", "States": {"TestState": {
        "Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": "foo", "Payload": "bar"}, "End": True}}},
    "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                     "Parameters": {"Bucket": "result-bucket", "Prefix": "mapJobs"}},
    "Label": "TestMap", "End": True,
}
BASE_PARALLEL_STATE = {
    "Comment": "BASE_PARALLEL_STATE", "Type": "Parallel",
    "Branches": [{"StartAt": f"Branch{i}", "States": {f"Branch{i}": _INNER_LAMBDA}} for i in (1, 2)],
    "End": True,
}
_PUT_ITEM = {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem",
             "Parameters": {"TableName.$": "$.TableName", "Item.$": "$.Item"}, "End": True}
BASE_DYNAMODB_SERVICE_TASK_STATE = _PUT_ITEM
IO_DYNAMODB_SERVICE_TASK_STATE = {**_PUT_ITEM, "ResultPath": "$.putItemOutput"}
IO_OUTPUT_PATH_DYNAMODB_SERVICE_TASK_STATE = {**_PUT_ITEM, "ResultPath": "$.putItemOutput",
                                              "OutputPath": "$.putItemOutput"}
BASE_EVENTS_PUT_EVENTS_TASK_STATE = {"Type": "Task", "Resource": "arn:aws:states:::events:putEvents",
                                     "Parameters": {"Entries.$": "$.Entries"}, "End": True}
BASE_SQS_SEND_MESSAGE_TASK_STATE = {"Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
                                    "Parameters": {"QueueUrl.$": "$.QueueUrl", "MessageBody.$": "$.MessageBody"},
                                    "End": True}
BASE_SFN_START_EXECUTION_TASK_STATE = {
    "Type": "Task", "QueryLanguage": "JSONata", "Resource": "arn:aws:states:::states:startExecution",
    "Arguments": {"Input": "{% $states.input.targetInput %}", "StateMachineArn": "{% $states.input.stateMachineArn %}",
                  "Name": "{% $states.input.name %}"},
    "Output": {"targetExecutionResult": "{% $states.result %}"}, "End": True,
}


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    # TestState's endpoint carries a "sync-" host prefix that loopback names cannot take.
    return aws("stepfunctions", config=botocore.config.Config(retries={"max_attempts": 1}, inject_host_prefix=False))


def call(sfn: Any, state: dict[str, Any], data: Any = None, **kw: Any) -> dict[str, Any]:
    if data is not None:
        kw["input"] = json.dumps(data)
    out: dict[str, Any] = sfn.test_state(definition=json.dumps(state), **kw)
    out.pop("ResponseMetadata", None)
    return out


def refusal(sfn: Any, state: dict[str, Any], data: Any = None, **kw: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(sfn, state, data, **kw)
    err = e.value.response["Error"]
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    return err["Code"], err["Message"]


def parsed(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer as the recordings show it: output and inspection data parsed from JSON. The
    recorder leaves arrays as AWS wrote them ('["first", "second", "third"]', '[1, 4, 9]'):
    each array met here is checked to be written so."""
    out = dict(answer)
    if "output" in out:
        out["output"] = _loads(out["output"])
    if "inspectionData" in out:
        out["inspectionData"] = {k: _loads(v) if isinstance(v, str) else v for k, v in out["inspectionData"].items()}
    return out


def _loads(text: str) -> Any:
    value = json.loads(text)
    if isinstance(value, list):
        assert text == "[" + ", ".join(json.dumps(v, separators=(",", ":")) for v in value) + "]", text
    return value


# ---------------------------------------------------------------- test_state_mock_validation
NOT_MOCKABLE = "State type '{}' is not supported when a mock is specified"
NO_FANOUT = ("TestState API does not support Map or Parallel states. "
             "Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]")


@pytest.mark.parametrize("mock", [{"result": json.dumps({"mock": "the unmockable"})},
                                  {"errorOutput": {"error": "Error", "cause": "Cause"}}],
                         ids=["mock_result", "mock_error_output"])
@pytest.mark.parametrize("state", [BASE_PASS_STATE, BASE_FAIL_STATE, BASE_SUCCEED_STATE],
                         ids=["PassState", "FailState", "SucceedState"])
def test_a_state_without_a_call_takes_no_mock(sfn: Any, state: dict[str, Any], mock: dict[str, Any]) -> None:
    # test_state_mock_validation::test_state_type_does_not_accept_mock[<mock>-<State>] (6 entries)
    assert refusal(sfn, state, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", NOT_MOCKABLE.format(state["Type"]))


@pytest.mark.parametrize("state", [BASE_MAP_STATE, MAP_TASK_STATE, BASE_PARALLEL_STATE],
                         ids=["MapState", "MapTaskState", "ParallelState"])
def test_a_map_or_parallel_needs_a_mock(sfn: Any, state: dict[str, Any]) -> None:
    # test_state_mock_validation::test_state_type_requires_mock[MapState|MapTaskState|ParallelState]
    assert refusal(sfn, state, inspectionLevel="TRACE") == ("InvalidDefinition", NO_FANOUT)


def test_a_mock_has_a_result_or_an_error_not_both(sfn: Any) -> None:
    # test_state_mock_validation::test_both_mock_result_and_mock_error_output_are_set
    mock = {"result": json.dumps({"mock": "response"}), "errorOutput": {"error": "Error", "cause": "Cause"}}
    assert refusal(sfn, BASE_LAMBDA_SERVICE_TASK_STATE, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", "A test mock should have only one of the following fields: [result, errorOutput].")


def test_reveal_secrets_takes_no_mock(sfn: Any) -> None:
    # test_state_mock_validation::test_reveal_secrets_is_true_and_mock_result_is_set
    mock = {"result": json.dumps({"mock": "response"})}
    assert refusal(sfn, BASE_LAMBDA_SERVICE_TASK_STATE, inspectionLevel="TRACE", mock=mock, revealSecrets=True) == (
        "ValidationException", "TestState does not support RevealSecrets when a mock is specified.")


def test_a_map_mock_without_result_writer_is_an_array(sfn: Any) -> None:
    # test_state_mock_validation::test_mock_result_is_not_array_on_map_state_without_result_writer
    mock = {"result": json.dumps({"mock": "array is expected but object is provided instead"})}
    assert refusal(sfn, BASE_MAP_STATE, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", "Mocked result must be an array.")


def test_a_map_mock_with_result_writer_is_an_object(sfn: Any) -> None:
    # test_state_mock_validation::test_mock_result_is_not_object_on_map_state_with_result_writer
    mock = {"result": json.dumps(["object is expected but array is provided instead"])}
    assert refusal(sfn, BASE_MAP_STATE_WITH_RESULT_WRITER, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", "Mocked result must be a JSON object.")


def test_a_parallel_mock_is_an_array(sfn: Any) -> None:
    # test_state_mock_validation::test_mock_result_is_not_array_on_parallel_state
    mock = {"result": json.dumps({"mock": "array is expected"})}
    assert refusal(sfn, BASE_PARALLEL_STATE, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", "Mocked result must be an array.")


@pytest.mark.parametrize("items", [1, 3])
def test_a_parallel_mock_has_one_item_per_branch(sfn: Any, items: int) -> None:
    # test_state_mock_validation::test_mock_result_array_size_mismatch_on_parallel_state (2 branches;
    # the recording's plan names 1 item and 3 items: both are refused alike)
    mock = {"result": json.dumps([{"branch": i} for i in range(items)])}
    assert refusal(sfn, BASE_PARALLEL_STATE, inspectionLevel="TRACE", mock=mock) == (
        "ValidationException", "Mocked result must contain the same number of items as number of Parallel branches.")


# ---------------------------------------------------------------- test_test_state_mock_scenarios
def test_a_mocked_result_is_json_even_without_field_validation(sfn: Any) -> None:
    # test_test_state_mock_scenarios::test_base_lambda_service_task_mock_is_not_json_string
    mock = {"result": "not JSON string", "fieldValidationMode": "NONE"}
    assert refusal(sfn, BASE_LAMBDA_SERVICE_TASK_STATE, {"FunctionName": "f", "Payload": None},
                   inspectionLevel="INFO", mock=mock) == ("ValidationException", "Mocked result must be valid JSON")


def test_a_mocked_lambda_result_is_the_output(sfn: Any) -> None:
    # test_test_state_mock_scenarios::test_base_lambda_service_task_mock_success: INFO has no inspectionData
    result = {"Payload": "function output", "SdkHttpMetadata": {"HttpStatusCode": 200}}
    out = call(sfn, BASE_LAMBDA_SERVICE_TASK_STATE, {"FunctionName": "f", "Payload": None},
               inspectionLevel="INFO", mock={"result": json.dumps(result)})
    assert parsed(out) == {"output": result, "status": "SUCCEEDED"}


@pytest.mark.parametrize("state,expected", [
    (BASE_DYNAMODB_SERVICE_TASK_STATE, {"SdkHttpMetadata": {"HttpStatusCode": 200}}),
    (IO_DYNAMODB_SERVICE_TASK_STATE, {"TableName": "t", "Item": {"data": {"S": "HelloWorld"}, "id": {"S": "id1"}},
                                      "putItemOutput": {"SdkHttpMetadata": {"HttpStatusCode": 200}}}),
    (IO_OUTPUT_PATH_DYNAMODB_SERVICE_TASK_STATE, {"SdkHttpMetadata": {"HttpStatusCode": 200}}),
], ids=["base", "io", "io_output_path"])
def test_a_mocked_put_item_goes_through_result_and_output_path(sfn: Any, state: dict[str, Any],
                                                               expected: dict[str, Any]) -> None:
    # test_test_state_mock_scenarios::test_io_dynamodb_service_task_mock_success[base|io|io_output_path]
    data = {"TableName": "t", "Item": {"data": {"S": "HelloWorld"}, "id": {"S": "id1"}}}
    out = call(sfn, state, data, inspectionLevel="INFO",
               mock={"result": json.dumps({"SdkHttpMetadata": {"HttpStatusCode": 200}})})
    assert parsed(out) == {"output": expected, "status": "SUCCEEDED"}


def test_a_mocked_put_events(sfn: Any) -> None:
    # test_test_state_mock_scenarios::test_put_events_mock_success
    result = {"Entries": [{"EventId": "0b6d8f4e-6c2e-4b8a-9a8e-5d1f2c3b4a59"}]}
    data = {"Entries": [{"Detail": "detail", "DetailType": "detail_type", "Source": "source"}]}
    out = call(sfn, BASE_EVENTS_PUT_EVENTS_TASK_STATE, data, inspectionLevel="INFO",
               mock={"result": json.dumps(result)})
    assert parsed(out) == {"output": result, "status": "SUCCEEDED"}


def test_a_mocked_send_message(sfn: Any) -> None:
    # test_test_state_mock_scenarios::test_send_sqs_message_success
    result = {"MD5OfMessageBody": "2a4f0b0c6e2f8c1a3d5e7f9b1c3d5e7f",
              "MessageId": "5f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"}
    out = call(sfn, BASE_SQS_SEND_MESSAGE_TASK_STATE, {"QueueUrl": "queue_url", "MessageBody": "message_body"},
               inspectionLevel="INFO", mock={"result": json.dumps(result)})
    assert parsed(out) == {"output": result, "status": "SUCCEEDED"}


def test_a_mocked_start_execution_in_jsonata(sfn: Any) -> None:
    # test_test_state_mock_scenarios::test_sfn_start_execution_success
    target = "arn:aws:states:us-east-1:111111111111:stateMachine:TargetStateMachine"
    result = {"ExecutionArn": "arn:aws:states:us-east-1:111111111111:execution:TargetStateMachine:TestStartTarget",
              "StartDate": "2025-12-03T00:34:15.123456"}
    out = call(sfn, BASE_SFN_START_EXECUTION_TASK_STATE,
               {"stateMachineArn": target, "targetInput": None, "name": "TestStartTarget"},
               inspectionLevel="INFO", mock={"result": json.dumps(result)})
    assert parsed(out) == {"output": {"targetExecutionResult": result}, "status": "SUCCEEDED"}


# ---------------------------------------------------------------- test_test_state_scenarios
BASE_RESULT_PASS_STATE = {"Type": "Pass", "Result": {"resultKey": "result value"}, "End": True}
IO_PASS_STATE = {"Type": "Pass", "InputPath": "$.initialData",
                 "Parameters": {"staticValue": "some value", "inputValue.$": "$.fieldFromInput"},
                 "ResultPath": "$.modifiedData", "End": True}
IO_RESULT_PASS_STATE = {**IO_PASS_STATE, "Result": {"resultKey": "result value"}}
BASE_CHOICE_STATE = {"Type": "Choice", "Choices": [
    {"Not": {"Variable": "$.type", "StringEquals": "Private"}, "Next": "Public"},
    {"Variable": "$.value", "NumericEquals": 0, "Next": "ValueIsZero"},
    {"And": [{"Variable": "$.value", "NumericGreaterThanEquals": 20}, {"Variable": "$.value", "NumericLessThan": 30}],
     "Next": "ValueInTwenties"},
], "Default": "DefaultState"}

HELLO = {"Value": "HelloWorld"}
NESTED = {"initialData": {"fieldFromInput": "value from input", "otherField": "other"},
          "unrelatedData": {"someOtherField": 1234}}
CHOICE_INPUT = {"type": "Private", "value": 22}
RESULT = {"resultKey": "result value"}
PARAMS = {"staticValue": "some value", "inputValue": "value from input"}
FAILED = {"cause": "This state machines raises a 'SomeFailure' failure.", "error": "SomeFailure", "status": "FAILED"}
# (state, input, the INFO answer, the inspectionData DEBUG and TRACE add): the entries
# test_test_state_scenarios::test_base_inspection_level_<info|debug|trace>[<id>]
SCENARIOS = {
    "BASE_PASS_STATE": (BASE_PASS_STATE, HELLO, {"output": HELLO, "status": "SUCCEEDED"}, {
        "afterInputPath": HELLO, "afterParameters": HELLO, "afterResultPath": HELLO, "afterResultSelector": HELLO,
        "input": HELLO}),
    "BASE_RESULT_PASS_STATE": (BASE_RESULT_PASS_STATE, HELLO, {"output": RESULT, "status": "SUCCEEDED"}, {
        "afterResultPath": RESULT, "afterResultSelector": RESULT, "input": HELLO, "result": RESULT}),
    "IO_PASS_STATE": (IO_PASS_STATE, NESTED, {"output": {**NESTED, "modifiedData": PARAMS}, "status": "SUCCEEDED"}, {
        "afterInputPath": NESTED["initialData"], "afterParameters": PARAMS,
        "afterResultPath": {**NESTED, "modifiedData": PARAMS}, "afterResultSelector": PARAMS, "input": NESTED}),
    "IO_RESULT_PASS_STATE": (IO_RESULT_PASS_STATE, NESTED, {"output": {**NESTED, "modifiedData": RESULT},
                                                            "status": "SUCCEEDED"}, {
        "afterResultPath": {**NESTED, "modifiedData": RESULT}, "afterResultSelector": RESULT, "input": NESTED,
        "result": RESULT}),
    "BASE_FAIL_STATE": (BASE_FAIL_STATE, HELLO, FAILED, {"afterInputPath": HELLO, "input": HELLO}),
    "BASE_SUCCEED_STATE": (BASE_SUCCEED_STATE, HELLO, {"output": HELLO, "status": "SUCCEEDED"},
                           {"afterInputPath": HELLO, "input": HELLO}),
    "BASE_CHOICE_STATE": (BASE_CHOICE_STATE, CHOICE_INPUT, {"nextState": "ValueInTwenties", "output": CHOICE_INPUT,
                                                            "status": "SUCCEEDED"},
                          {"afterInputPath": CHOICE_INPUT, "input": CHOICE_INPUT}),
}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"ts-recorded-{uuid.uuid4().hex[:8]}"
    arn = str(iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"])
    iam.put_role_policy(RoleName=name, PolicyName="invoke", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                "Resource": "*"}]}))
    return arn


@pytest.mark.parametrize("level", ["INFO", "DEBUG", "TRACE"])
@pytest.mark.parametrize("case", list(SCENARIOS))
def test_each_inspection_level(sfn: Any, role: str, case: str, level: str) -> None:
    state, data, info, inspection = SCENARIOS[case]
    expected = dict(info) if level == "INFO" else {**info, "inspectionData": inspection}
    assert parsed(call(sfn, state, data, roleArn=role, inspectionLevel=level)) == expected


def _function(aws: Callable[..., Any], role: str, source: str) -> str:
    lam = aws("lambda")
    name = f"lambda_func_{uuid.uuid4().hex[:8]}"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("fn.py", source)
    arn = str(lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="fn.handler",
                                  Code={"ZipFile": buf.getvalue()})["FunctionArn"])
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    return arn


@pytest.fixture(scope="module")
def bytes_function(aws: Callable[..., Any], role: str) -> str:
    # templates/services/lambdafunctions/return_bytes_str.py
    return _function(aws, role, "def handler(event, context):\n    return b'\"HelloWorld!\"'\n")


@pytest.fixture(scope="module")
def id_function(aws: Callable[..., Any], role: str) -> str:
    # templates/services/lambdafunctions/id_function.py
    return _function(aws, role, "def handler(event, context):\n    return event\n")


@pytest.mark.parametrize("level", ["INFO", "DEBUG", "TRACE"])
def test_a_lambda_task(sfn: Any, role: str, bytes_function: str, level: str) -> None:
    # test_test_state_scenarios::test_base_lambda_task_state[INFO|DEBUG|TRACE] (BASE_LAMBDA_TASK_STATE):
    # the output is the function's payload, the JSON string "HelloWorld!"
    state = {"Type": "Task", "Resource": bytes_function, "End": True}
    data = {"inputData": "HelloWorld"}
    out = call(sfn, state, data, roleArn=role, inspectionLevel=level)
    expected: dict[str, Any] = {"output": '"HelloWorld!"', "status": "SUCCEEDED"}
    if level != "INFO":
        expected["inspectionData"] = {"afterInputPath": json.dumps(data), "afterParameters": json.dumps(data),
                                      "afterResultPath": '"HelloWorld!"', "afterResultSelector": '"HelloWorld!"',
                                      "input": json.dumps(data), "result": '"HelloWorld!"'}
        expected["inspectionData"] = {k: json.loads(v) for k, v in expected["inspectionData"].items()}
        out["inspectionData"] = {k: json.loads(v) for k, v in out["inspectionData"].items()}
    assert {**out, "output": json.loads(out["output"])} == {**expected, "output": json.loads(expected["output"])}


def _without_sdk_metadata(value: Any) -> Any:
    # the recording's test skips $..SdkHttpMetadata and $..SdkResponseMetadata (headers, request ids)
    return {k: v for k, v in value.items() if k not in ("SdkHttpMetadata", "SdkResponseMetadata")}


@pytest.mark.parametrize("level", ["INFO", "DEBUG", "TRACE"])
def test_a_lambda_invoke_task(sfn: Any, role: str, id_function: str, level: str) -> None:
    # test_test_state_scenarios::test_base_lambda_service_task_state[INFO|DEBUG|TRACE]
    data = {"FunctionName": id_function.rsplit(":", 1)[-1], "Payload": None}
    out = parsed(call(sfn, BASE_LAMBDA_SERVICE_TASK_STATE, data, roleArn=role, inspectionLevel=level))
    result = {"ExecutedVersion": "$LATEST", "Payload": {}, "StatusCode": 200}
    assert out["status"] == "SUCCEEDED"
    assert _without_sdk_metadata(out["output"]) == result
    assert "SdkHttpMetadata" in out["output"] and "SdkResponseMetadata" in out["output"]
    if level == "INFO":
        assert set(out) == {"output", "status"}
        return
    data_out = out["inspectionData"]
    assert set(data_out) == {"afterInputPath", "afterParameters", "afterResultPath", "afterResultSelector",
                             "input", "result"}
    assert data_out["input"] == data_out["afterInputPath"] == data_out["afterParameters"] == data
    for key in ("afterResultPath", "afterResultSelector", "result"):
        assert _without_sdk_metadata(data_out[key]) == result, key


# ---------------------------------------------------------------- test_field_validation_mode(_none, _present)
BASE_AWS_SDK_S3_GET_OBJECT_TASK_STATE = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:getObject",
                                         "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}, "End": True}
BASE_AWS_SDK_KMS_ENCRYPT_TASK_STATE = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:kms:encrypt",
                                       "Parameters": {"KeyId.$": "$.KeyId", "Plaintext.$": "$.Plaintext"},
                                       "End": True}
BASE_AWS_SDK_LAMBDA_GET_FUNCTION = {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:lambda:getFunction",
                                    "Parameters": {"FunctionName.$": "$.FunctionName"}, "End": True}
ENTRIES = {"Entries": [{"Detail": "detail", "DetailType": "detail_type", "Source": "source"}]}
START_INPUT = {"stateMachineArn": "arn:aws:states:us-east-1:111111111111:stateMachine:TargetStateMachine",
               "targetInput": None, "name": "TestStartTarget"}
# (state, input) per template the field validation recordings use
TASKS = {
    "eventbridge": (BASE_EVENTS_PUT_EVENTS_TASK_STATE, ENTRIES),
    "sfn": (BASE_SFN_START_EXECUTION_TASK_STATE, START_INPUT),
    "lambda": (BASE_LAMBDA_SERVICE_TASK_STATE, {"FunctionName": "function_name", "Payload": None}),
    "dynamodb": (BASE_DYNAMODB_SERVICE_TASK_STATE, {"TableName": "table_name",
                                                    "Item": {"data": {"S": "HelloWorld"}, "id": {"S": "id1"}}}),
    "aws_sdk_s3": (BASE_AWS_SDK_S3_GET_OBJECT_TASK_STATE, {"Bucket": "bucket_name", "Key": "file_key"}),
    "aws_sdk_kms": (BASE_AWS_SDK_KMS_ENCRYPT_TASK_STATE, {"KeyId": "key_id", "Plaintext": "plain_text"}),
    "aws_sdk_lambda_get_function": (BASE_AWS_SDK_LAMBDA_GET_FUNCTION, {"FunctionName": "function_name"}),
}
# (task, mocked result, the refusal's words after "Mock result schema validation error: "): the
# entries test_strict_mode_<task>[<id>] of test_field_validation_mode and test_present_mode_<task>[<id>]
# of test_field_validation_mode_present, which recorded the same words in both modes
BOTH_MODES_REFUSE = {
    "wrong_type_top_level_field": ("eventbridge", {"Entries": "Entries value should have been a list of entry objects"},
                                   "Field 'Entries' must be an array"),
    "wrong_type_nested_field": ("eventbridge", {"Entries": [{"EventId": ["EventId value should have been a string"]}]},
                                "Field 'EventId' must be a string"),
    "wrong_type_2nd_array_element": ("eventbridge", {"Entries": [{"EventId": "First eventId has correct type: string"},
                                                                 {"EventId": ["Second eventId has incorrect type"]}]},
                                     "Field 'EventId' must be a string"),
    "lambda-wrong_integer_type_string": ("lambda", {"StatusCode": "200"}, "Field 'StatusCode' must be a number"),
    "wrong_float_type_string": ("dynamodb", {"ConsumedCapacity": {"CapacityUnits": "123.45"}},
                                "Field 'CapacityUnits' must be a number"),
    "wrong_long_type_string": ("aws_sdk_s3", {"ContentLength": "9000"}, "Field 'ContentLength' must be a number"),
    "non_existent_enum_value": ("aws_sdk_s3", {"StorageClass": "Papyrus"},
                                "Field 'StorageClass' is not an expected value"),
    "wrong_blob_type_number": ("aws_sdk_kms", {"CiphertextBlob": 123}, "Field 'CiphertextBlob' must be a string"),
    "wrong_blob_length_less_than_minimum": ("aws_sdk_kms", {"CiphertextBlob": ""},
                                            "Field 'CiphertextBlob' is smaller than the minimum length"),
    "integer_less_than_minimum_allowed": ("aws_sdk_lambda_get_function", {"Configuration": {"MemorySize": 127}},
                                          "Field 'MemorySize' is less than the minimum value"),
    # recorded with 10241 when Lambda's MemorySize went to 10240; botocore 1.44's model says 32768
    "integer_more_than_maximum_allowed": ("aws_sdk_lambda_get_function", {"Configuration": {"MemorySize": 32769}},
                                          "Field 'MemorySize' exceeds the maximum value"),
}


@pytest.mark.parametrize("mode", ["STRICT", "PRESENT"])
@pytest.mark.parametrize("case", list(BOTH_MODES_REFUSE))
def test_a_mocked_field_that_breaks_the_api_model(sfn: Any, case: str, mode: str) -> None:
    task, result, words = BOTH_MODES_REFUSE[case]
    state, data = TASKS[task]
    mock = {"result": json.dumps(result), "fieldValidationMode": mode}
    assert refusal(sfn, state, data, inspectionLevel="INFO", mock=mock) == (
        "ValidationException", f"Mock result schema validation error: {words}")


@pytest.mark.parametrize("mode", ["STRICT", "PRESENT"])
@pytest.mark.parametrize("result", [{"random": "json"}, {}], ids=["field_not_part_of_api_spec", "empty_json"])
def test_fields_the_api_does_not_define_pass(sfn: Any, result: dict[str, Any], mode: str) -> None:
    # test_field_validation_mode::test_strict_mode_mock_result_field_not_in_api_spec[<id>] and
    # test_field_validation_mode_present::test_present_mode_mock_result_field_not_in_api_spec[<id>]
    out = call(sfn, BASE_EVENTS_PUT_EVENTS_TASK_STATE, ENTRIES, inspectionLevel="INFO",
               mock={"result": json.dumps(result), "fieldValidationMode": mode})
    assert parsed(out) == {"output": result, "status": "SUCCEEDED"}


@pytest.mark.parametrize("result, words", [
    ({}, "Required field 'ExecutionArn' is missing"),
    ({"executionArn": "stringValueExecutionArn", "startDate": "stringValueStartDate"},
     "Required field 'ExecutionArn' is missing"),
    ({"ExecutionArn": "stringValueExecutionArn", "StartDate": True}, "Field 'StartDate' must be a string"),
    ({"ExecutionArn": "stringValueExecutionArn", "StartDate": 1764103483}, "Field 'StartDate' must be a string"),
], ids=["missing_required_fields", "field_name_not_in_sfn_case", "wrong_timestamp_type_bool",
        "wrong_timestamp_type_number"])
def test_strict_wants_the_required_fields_by_their_result_names(sfn: Any, result: dict[str, Any], words: str) -> None:
    # test_field_validation_mode::test_strict_mode_sfn_task[<id>]: StartExecution's output named as
    # Step Functions names it (ExecutionArn), the API's own camelCase name is another field
    assert refusal(sfn, BASE_SFN_START_EXECUTION_TASK_STATE, START_INPUT, inspectionLevel="INFO",
                   mock={"result": json.dumps(result)}) == (
        "ValidationException", f"Mock result schema validation error: {words}")


@pytest.mark.parametrize("mode, result", [
    ("PRESENT", {}),
    ("PRESENT", {"executionArn": "stringValueExecutionArn", "startDate": "stringValueStartDate"}),
    ("NONE", {}),
    ("NONE", {"ExecutionArn": "stringValueExecutionArn", "StartDate": True}),
], ids=["present-missing_required_fields", "present-field_name_not_in_sfn_case", "none-missing_required_fields",
        "none-wrong_timestamp_type_bool"])
def test_present_and_none_pass_what_strict_refuses(sfn: Any, mode: str, result: dict[str, Any]) -> None:
    # test_field_validation_mode_present::test_present_mode_sfn_task_validation_pass[<id>] and
    # test_field_validation_mode_none::test_none_mode_sfn_task[<id>]
    out = call(sfn, BASE_SFN_START_EXECUTION_TASK_STATE, START_INPUT, inspectionLevel="INFO",
               mock={"result": json.dumps(result), "fieldValidationMode": mode})
    assert parsed(out) == {"output": {"targetExecutionResult": result}, "status": "SUCCEEDED"}


@pytest.mark.parametrize("result, words", [
    ({"StartDate": True}, "Field 'StartDate' must be a string"),
    ({"ExecutionArn": 1764103483}, "Field 'ExecutionArn' must be a string"),
], ids=["wrong_timestamp_type_bool", "wrong_string_type_number"])
def test_present_checks_the_fields_given(sfn: Any, result: dict[str, Any], words: str) -> None:
    # test_field_validation_mode_present::test_present_mode_sfn_task_validation_fail[<id>]
    assert refusal(sfn, BASE_SFN_START_EXECUTION_TASK_STATE, START_INPUT, inspectionLevel="INFO",
                   mock={"result": json.dumps(result), "fieldValidationMode": "PRESENT"}) == (
        "ValidationException", f"Mock result schema validation error: {words}")


# ---------------------------------------------------------------- test_test_state_field_validation_mode
@pytest.mark.parametrize("result", [{"random": "json"}, {}], ids=["field_not_part_of_api_spec", "empty_json"])
def test_fields_the_api_does_not_define_pass_with_a_role(sfn: Any, role: str, result: dict[str, Any]) -> None:
    # test_test_state_field_validation_mode::test_strict_mode_mock_result_field_not_in_api_spec[<id>]
    out = call(sfn, BASE_EVENTS_PUT_EVENTS_TASK_STATE, ENTRIES, roleArn=role, inspectionLevel="INFO",
               mock={"result": json.dumps(result)})
    assert parsed(out) == {"output": result, "status": "SUCCEEDED"}


# ---------------------------------------------------------------- test_state_context_object
_CONTEXT_OBJECT_FULL: dict[str, Any] = {
    "Execution": {"Id": "arn:aws:states:::execution:MyStateMachine:execution-name-12345",
                  "Input": {"input-value": 0, "message": "test data", "values": ["charizard", "pikachu", "bulbasaur"]},
                  "Name": "execution-name-12345", "RoleArn": "arn:aws:iam:::role/StepFunctionsRole",
                  "StartTime": "2025-01-15T10:30:00.000Z"},
    "State": {"EnteredTime": "2025-01-15T10:30:01.500Z", "Name": "MyTaskState", "RetryCount": 0},
    "StateMachine": {"Id": "arn:aws:states:::stateMachine:MyStateMachine", "Name": "MyStateMachine"},
}
POKEMON = {"pokemon": ["charizard", "pikachu", "bulbasaur"]}
LAMBDA_INPUT = {"FunctionName": "lambda_function_name", "Payload": {"input-value": 0}}


def context_result_selector(literal: str) -> dict[str, Any]:
    # templates/context_object/statemachines/context_object_result_selector.json5, state TestState
    return {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName.$": "$.FunctionName", "Payload": {"Input.$": "$"}},
            "ResultSelector": {"LambdaOutput.$": "$", "ContextObjectValue.$": literal}, "End": True}


def _task_answer(context_value: Any, result: Any) -> dict[str, Any]:
    selected = {"ContextObjectValue": context_value, "LambdaOutput": result}
    return {"inspectionData": {
        "afterInputPath": LAMBDA_INPUT,
        "afterParameters": {"Payload": {"Input": LAMBDA_INPUT}, "FunctionName": "lambda_function_name"},
        "afterResultPath": selected, "afterResultSelector": selected, "input": LAMBDA_INPUT, "result": result},
        "output": selected, "status": "SUCCEEDED"}


@pytest.mark.parametrize("literal, value", [
    ("$$", _CONTEXT_OBJECT_FULL), ("$$.Execution.Input", _CONTEXT_OBJECT_FULL["Execution"]["Input"]),
    ("$$.Execution.Input.values", ["charizard", "pikachu", "bulbasaur"]),
], ids=["ALL", "EXECUTION_INPUT", "EXECUTION_INPUT_VALUES"])
def test_the_given_context_is_the_context_object(sfn: Any, literal: str, value: Any) -> None:
    # test_state_context_object::test_state_task_context_object[<id>]: $$ is the context given, as given
    out = call(sfn, context_result_selector(literal), LAMBDA_INPUT, inspectionLevel="TRACE",
               context=json.dumps(_CONTEXT_OBJECT_FULL), mock={"result": json.dumps(POKEMON)})
    assert parsed(out) == _task_answer(value, POKEMON)


@pytest.mark.parametrize("context, value", [
    ({"Execution": {}, "State": {}, "StateMachine": {}}, {"Execution": {}, "State": {}, "StateMachine": {}}),
    ({}, {}),
], ids=["EMPTY_OBJECTS", "EMPTY"])
def test_an_empty_context_adds_nothing(sfn: Any, context: dict[str, Any], value: Any) -> None:
    # test_state_context_object::test_state_context_object_edge_cases[<id>]
    out = call(sfn, context_result_selector("$$"), LAMBDA_INPUT, inspectionLevel="TRACE",
               context=json.dumps(context), mock={"result": json.dumps({"pokemon": "pikachu"})})
    assert parsed(out) == _task_answer(value, {"pokemon": "pikachu"})


def test_a_task_token_from_the_context(sfn: Any) -> None:
    # test_state_context_object::test_state_wait_task_context_object (IO_SQS_SERVICE_TASK_WAIT, no input)
    queue = "https://sqs.us-east-1.amazonaws.com/111111111111/test-queue"
    state = {"Comment": "IO_SQS_SERVICE_TASK_WAIT", "Type": "Task",
             "Resource": "arn:aws:states:::sqs:sendMessage.waitForTaskToken",
             "Parameters": {"QueueUrl": queue, "MessageBody": {"Message": "Hello from Step Functions!",
                                                               "TaskToken.$": "$$.Task.Token"}},
             "ResultPath": "$.SQS", "Next": "NEXT_STATE"}
    context = json.dumps({**_CONTEXT_OBJECT_FULL, "Task": {"Token": "abcd123"}})
    out = call(sfn, state, inspectionLevel="TRACE", context=context, mock={"result": json.dumps(POKEMON)})
    assert parsed(out) == {"inspectionData": {
        "afterInputPath": {},
        "afterParameters": {"QueueUrl": queue, "MessageBody": {"Message": "Hello from Step Functions!",
                                                               "TaskToken": "abcd123"}},
        "afterResultPath": {"SQS": POKEMON}, "afterResultSelector": POKEMON, "input": {}, "result": POKEMON},
        "nextState": "NEXT_STATE", "output": {"SQS": POKEMON}, "status": "SUCCEEDED"}


def context_items_path(literal: str) -> dict[str, Any]:
    # templates/context_object/statemachines/context_object_items_path.json5, state TestState
    return {"Type": "Map", "ItemsPath": literal, "MaxConcurrency": 1,
            "ItemProcessor": {"StartAt": "HandleItem", "States": {"HandleItem": {"Type": "Pass", "End": True}}},
            "End": True}


@pytest.mark.parametrize("literal, shown", [("$$", "$"), ("$$.Execution.Input", "$.Execution.Input")],
                         ids=["ALL", "EXECUTION_INPUT"])
def test_a_map_over_a_context_object_that_is_no_array(sfn: Any, literal: str, shown: str) -> None:
    # test_state_context_object::test_state_map_context_object[ALL|EXECUTION_INPUT]
    items = ["fire", "electricity", "grass"]
    out = call(sfn, context_items_path(literal), items, inspectionLevel="TRACE",
               context=json.dumps(_CONTEXT_OBJECT_FULL),
               mock={"result": json.dumps(["CHARIZARD", "PIKACHU", "BULBASAUR"])})
    assert parsed(out) == {"cause": f'Reference path "{shown}" must point to array.', "error": "States.Runtime",
                           "inspectionData": {"afterInputPath": items, "input": items}, "status": "FAILED"}


def test_a_map_over_a_context_array(sfn: Any) -> None:
    # test_state_context_object::test_state_map_context_object[EXECUTION_INPUT_VALUES] (the recording's
    # JSON strings are spaced, '["fire", ...]'; compared parsed here)
    items, mocked = ["fire", "electricity", "grass"], ["CHARIZARD", "PIKACHU", "BULBASAUR"]
    out = call(sfn, context_items_path("$$.Execution.Input.values"), items, inspectionLevel="TRACE",
               context=json.dumps(_CONTEXT_OBJECT_FULL), mock={"result": json.dumps(mocked)})
    assert parsed(out) == {"inspectionData": {
        "afterInputPath": items, "afterItemsPath": ["charizard", "pikachu", "bulbasaur"], "afterResultPath": mocked,
        "afterResultSelector": mocked, "input": items, "maxConcurrency": 1}, "output": mocked, "status": "SUCCEEDED"}


CONTEXT_REFUSED = "Invalid Context object provided: "


@pytest.mark.parametrize("state, context, words", [
    (context_result_selector("$$"), {**_CONTEXT_OBJECT_FULL, "Task": {"Token": "abcd123"}},
     CONTEXT_REFUSED + "Context object contains 'Task' when state is not a Task state with a '.sync' or "
     "'.waitForTaskToken' service integration pattern"),
    ({"Type": "Pass", "InputPath": "$$", "End": True}, _CONTEXT_OBJECT_FULL,
     "State type 'Pass' is not supported when a mock is specified"),
], ids=["TOKEN_TASK_NOT_SYNC", "INVALID_STATE_PASS"])
def test_a_context_the_state_cannot_take(sfn: Any, state: dict[str, Any], context: dict[str, Any],
                                         words: str) -> None:
    # test_state_context_object::test_state_context_object_invalid_states[<id>]
    assert refusal(sfn, state, ["fire", "electricity", "grass"], inspectionLevel="TRACE", context=json.dumps(context),
                   mock={"result": json.dumps({"pokemon": ["CHARIZARD", "PIKACHU", "BULBASAUR"]})}) == (
        "ValidationException", words)


@pytest.mark.parametrize("context, words", [
    ({"Execution": {"Id": 1}}, "Execution.Id must be a string"),
    ({"Map": {}}, "'Map' field is not supported when mocking a Context object"),
    ({"Execution": {"pokemon": "squirtle"}}, "Field 'pokemon' is not allowed"),
    ({"Pokedex": {}}, "Field 'Pokedex' is not allowed"),
], ids=["INVALID_EXECUTION_ID_TYPE", "INVALID_MAP", "INVALID_EXECUTION_FIELD", "INVALID_FIELD"])
def test_a_context_object_that_is_not_one(sfn: Any, context: dict[str, Any], words: str) -> None:
    # test_state_context_object::test_state_context_object_validation_failures[<id>]
    mock = {"result": json.dumps({"ExecutionArn": "exec_arn", "StartDate": "2025-12-03T18:51:50.000000"})}
    assert refusal(sfn, BASE_SFN_START_EXECUTION_TASK_STATE, {"stateMachineArn": "arn", "targetInput": None,
                                                               "name": "exec_name"},
                   inspectionLevel="TRACE", context=json.dumps(context), mock=mock) == (
        "ValidationException", CONTEXT_REFUSED + words)


# ---------------------------------------------------------------- test_state_configuration
_JSONATA_MAP = {"Type": "Map", "QueryLanguage": "JSONata", "Items": "{% $states.input.Values %}",
                "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "TestState", "States": {"TestState": {
                    "Type": "Task", "Resource": "arn:aws:lambda:your-region:your-account-id:function:"
                                                "yourHelloWorldFunction", "End": True}}}}
BASE_MAP_STATE_CATCH = {**_JSONATA_MAP, "Comment": "BASE_MAP_STATE_CATCH", "Catch": [
    {"ErrorEquals": ["MockException"], "Output": "{% $states %}", "Next": "HandleMockError"},
    {"ErrorEquals": ["States.ExceedToleratedFailureThreshold"], "Output": "{% $states %}", "Next": "HandleThreshold"},
], "ToleratedFailureCount": 1, "End": True}
BASE_MAP_STATE_RETRY = {**_JSONATA_MAP, "Comment": "BASE_MAP_STATE_RETRY", "Retry": [
    {"ErrorEquals": ["MockException"], "MaxAttempts": 3},
    {"ErrorEquals": ["States.ExceedToleratedFailureThreshold"], "MaxAttempts": 2},
], "ToleratedFailureCount": 1, "End": True}
BASE_TASK_STATE_RETRY = {"Comment": "BASE_TASK_STATE_RETRY", "QueryLanguage": "JSONata", "Type": "Task",
                         "Resource": "arn:aws:states:::lambda:invoke",
                         "Arguments": {"FunctionName": "foo", "Payload": "bar"},
                         "Retry": [{"ErrorEquals": ["MockException"], "IntervalSeconds": 1, "MaxAttempts": 5,
                                    "BackoffRate": 2.0}], "End": True}
BASE_MAP_STATE_MACHINE = {"Comment": "BASE_MAP_STATE_MACHINE", "StartAt": "State0", "States": {"State0": {
    "Type": "Map", "ItemsPath": "$.Values",
    "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "HandleItem",
                      "States": {"HandleItem": {"Type": "Pass", "End": True}}},
    "ToleratedFailureCount": 2, "End": True}}}
MAP_ITEM_READER_STATE_MACHINE = {"Comment": "MAP_ITEM_READER_STATE_MACHINE", "QueryLanguage": "JSONata",
                                 "StartAt": "State0", "States": {"State0": {
                                     "Type": "Map", "MaxConcurrency": 1,
                                     "ItemReader": {"ReaderConfig": {"InputType": "JSON"},
                                                    "Resource": "arn:aws:states:::s3:getObject",
                                                    "Arguments": {"Bucket": "{% $states.input.Bucket %}",
                                                                  "Key": "{% $states.input.Key %}"}},
                                     "ItemProcessor": {"ProcessorConfig": _DISTRIBUTED, "StartAt": "HandleItem",
                                                       "States": {"HandleItem": {"Type": "Pass", "End": True}}},
                                     "End": True}}}
VALUES = {"Values": ["first", "second", "third"]}
EXCEEDED = {"cause": "The specified tolerated failure threshold was exceeded",
            "error": "States.ExceedToleratedFailureThreshold"}
MOCK_ERROR = {"errorOutput": {"error": "MockException", "cause": "Mock the error cause."}}
MOCK_FAILED = {"cause": "Mock the error cause.", "error": "MockException", "status": "FAILED"}
LEVELS = ["INFO", "DEBUG", "TRACE"]


def _check_states(value: Any, role: str, result_or_error: dict[str, Any]) -> None:
    """JSONata's {% $states %} as Output: the input, the context TestState runs in (an express
    execution of a state machine with made-up names, the state named StateName) and the result."""
    assert set(value) == {"input", "context", *result_or_error}
    assert value["input"] == VALUES
    assert {k: value[k] for k in result_or_error} == result_or_error
    ctx = value["context"]
    assert set(ctx) == {"Execution", "StateMachine", "State"}
    execution, machine, state = ctx["Execution"], ctx["StateMachine"], ctx["State"]
    assert set(execution) == {"Id", "Input", "Name", "RoleArn", "StartTime"}
    m = re.fullmatch(r"arn:aws:states:us-east-1:\d{12}:express:([^:]+):([^:]+)", execution["Id"])
    assert m, execution["Id"]
    assert (execution["Name"], execution["Input"], execution["RoleArn"]) == (m.group(2), VALUES, role)
    assert machine == {"Id": execution["Id"].replace(":express:", ":stateMachine:").rsplit(":", 1)[0],
                       "Name": m.group(1)}
    assert set(state) == {"Name", "EnteredTime", "RetryCount"} and (state["Name"], state["RetryCount"]) == (
        "StateName", 0)


def _debug(level: str, answer: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    return answer if level == "INFO" else {**answer, "inspectionData": data}


@pytest.mark.parametrize("level", LEVELS)
def test_a_mocked_map_with_no_tolerance_ignores_failed_iterations(sfn: Any, role: str, level: str) -> None:
    # test_state_configuration::test_map_state_failure_count[<level>-BASE_MAP_STATE]: without
    # ToleratedFailure* fields the failure count takes no effect
    for failures, result in ((0, [1, 1, 1]), (2, [0, 0, 1])):
        out = parsed(call(sfn, BASE_MAP_STATE, VALUES, roleArn=role, inspectionLevel=level,
                          stateConfiguration={"mapIterationFailureCount": failures},
                          mock={"result": json.dumps(result)}))
        _check_states(out.pop("output"), role, {"result": result})
        assert out == _debug(level, {"status": "SUCCEEDED"}, {"input": VALUES, "maxConcurrency": 0})


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("state", ["BASE_MAP_STATE_CATCH", "BASE_MAP_STATE_RETRY", "MAP_TASK_STATE"])
def test_failed_iterations_against_the_tolerance(sfn: Any, role: str, level: str, state: str) -> None:
    # test_state_configuration::test_map_state_failure_count[<level>-<state>]: below (0 failures) the
    # mock is the result; beyond (2 > ToleratedFailureCount 1) the threshold error, caught or retried
    definition = {"BASE_MAP_STATE_CATCH": BASE_MAP_STATE_CATCH, "BASE_MAP_STATE_RETRY": BASE_MAP_STATE_RETRY,
                  "MAP_TASK_STATE": MAP_TASK_STATE}[state]
    data = {"input": VALUES, "maxConcurrency": 0, "toleratedFailureCount": 1}
    below = parsed(call(sfn, definition, VALUES, roleArn=role, inspectionLevel=level,
                        stateConfiguration={"mapIterationFailureCount": 0}, mock={"result": json.dumps([1, 1, 1])}))
    output: Any = ({"result": ["pass", "pass", "pass"], "successCount": 3, "failedCount": 0}
                   if state == "MAP_TASK_STATE" else [1, 1, 1])
    assert below == _debug(level, {"output": output, "status": "SUCCEEDED"}, data)
    beyond = parsed(call(sfn, definition, VALUES, roleArn=role, inspectionLevel=level,
                         stateConfiguration={"mapIterationFailureCount": 2}, mock={"result": json.dumps([0, 0, 1])}))
    if state == "BASE_MAP_STATE_CATCH":
        _check_states(beyond.pop("output"), role, {"errorOutput": {
            "Error": "States.ExceedToleratedFailureThreshold",
            "Cause": "The specified tolerated failure threshold was exceeded"}})
        assert beyond == _debug(level, {**EXCEEDED, "nextState": "HandleThreshold", "status": "CAUGHT_ERROR"},
                                {**data, "errorDetails": {"catchIndex": 1}})
    else:
        assert beyond == _debug(level, {**EXCEEDED, "status": "RETRIABLE"}, {
            **data, "errorDetails": {"retryBackoffIntervalSeconds": 1, "retryIndex": 1}})


@pytest.mark.parametrize("level", LEVELS)
def test_a_mocked_map_error(sfn: Any, role: str, level: str) -> None:
    # test_state_configuration::test_map_state_error_caused_by_state[<level>] and
    # ::test_state_configuration_map_iteration_failure_count_with_state_error[<level>]: the mocked
    # error fails the Map (no retrier or catcher: no errorDetails)
    out = parsed(call(sfn, BASE_MAP_STATE, {"Values": [1, 1, 1]}, roleArn=role, inspectionLevel=level,
                      stateConfiguration={"errorCausedByState": "TestState"},
                      mock={"errorOutput": {"error": "MockException", "cause": "Mock the cause of the error."}}))
    assert out == _debug(level, {"cause": "Mock the cause of the error.", "error": "MockException",
                                 "status": "FAILED"}, {"input": {"Values": [1, 1, 1]}, "maxConcurrency": 0})
    for failures in (0, 2):
        out = parsed(call(sfn, BASE_MAP_STATE, VALUES, roleArn=role, inspectionLevel=level, mock=MOCK_ERROR,
                          stateConfiguration={"mapIterationFailureCount": failures, "errorCausedByState": "TestState"}))
        assert out == _debug(level, MOCK_FAILED, {"input": VALUES, "maxConcurrency": 0})


@pytest.mark.parametrize("level", LEVELS)
def test_a_mocked_map_error_in_a_state_machine(sfn: Any, role: str, level: str) -> None:
    # test_state_configuration::test_state_machine_with_state_error[<level>] (stateName State0, JSONPath)
    for failures in (0, 2):
        config = {"mapIterationFailureCount": failures, "errorCausedByState": "HandleItem"}
        out = parsed(call(sfn, BASE_MAP_STATE_MACHINE, VALUES, stateName="State0", roleArn=role, inspectionLevel=level,
                          mock=MOCK_ERROR, stateConfiguration=config))
        assert out == _debug(level, MOCK_FAILED, {"afterInputPath": VALUES, "afterItemsPath": VALUES["Values"],
                                                  "input": VALUES, "maxConcurrency": 0, "toleratedFailureCount": 2})


@pytest.mark.parametrize("level", LEVELS)
def test_a_mocked_map_with_an_item_reader(sfn: Any, role: str, level: str) -> None:
    # test_state_configuration::test_state_machine_configuration_map_iteration_item_reader[<level>] and
    # ::test_state_machine_configuration_item_reader_with_error[<level>] (the recording's output
    # string is spaced, "[1, 4, 9]": compared parsed)
    data = {"Bucket": "test-bucket", "Key": "test-key"}
    out = parsed(call(sfn, MAP_ITEM_READER_STATE_MACHINE, data, stateName="State0", roleArn=role,
                      inspectionLevel=level, stateConfiguration={"mapItemReaderData": json.dumps([1, 2, 3])},
                      mock={"result": json.dumps([1, 4, 9])}))
    assert out == _debug(level, {"output": [1, 4, 9], "status": "SUCCEEDED"}, {"input": data, "maxConcurrency": 1})
    for failures in (0, 2):
        out = parsed(call(sfn, MAP_ITEM_READER_STATE_MACHINE, data, stateName="State0", roleArn=role,
                          inspectionLevel=level, mock=MOCK_ERROR, stateConfiguration={
                              "mapIterationFailureCount": failures, "errorCausedByState": "HandleItem",
                              "mapItemReaderData": json.dumps([1, 2, 3])}))
        assert out == _debug(level, MOCK_FAILED, {"input": data, "maxConcurrency": 1})


@pytest.mark.parametrize("level", ["DEBUG", "TRACE"])
def test_the_retry_count_picks_the_backoff(sfn: Any, role: str, level: str) -> None:
    # test_state_configuration::test_state_configuration_retrier_retry_count[<level>]: the 5th retry
    # of IntervalSeconds 1, BackoffRate 2 waits 16 s; past MaxAttempts 5 the error fails the state
    mock = {"errorOutput": {"error": "MockException", "cause": "Mock the cause of the error."}}
    error = {"cause": "Mock the cause of the error.", "error": "MockException"}
    data = {"afterArguments": {"FunctionName": "foo", "Payload": "bar"}, "input": VALUES}
    out = parsed(call(sfn, BASE_TASK_STATE_RETRY, VALUES, roleArn=role, inspectionLevel=level,
                      stateConfiguration={"retrierRetryCount": 4}, mock=mock))
    assert out == {**error, "status": "RETRIABLE", "inspectionData": {
        **data, "errorDetails": {"retryBackoffIntervalSeconds": 16, "retryIndex": 0}}}
    out = parsed(call(sfn, BASE_TASK_STATE_RETRY, VALUES, roleArn=role, inspectionLevel=level,
                      stateConfiguration={"retrierRetryCount": 5}, mock=mock))
    assert out == {**error, "status": "FAILED", "inspectionData": {**data, "errorDetails": {"retryIndex": 0}}}


# ---------------------------------------------------------------- test_test_state_machine_scenarios
BASE_PASS_STATE_MACHINE = {"Comment": "BASE_PASS_STATE_MACHINE", "StartAt": "State0",
                           "States": {"State0": {"Type": "Pass", "End": True}}}
BASE_FAIL_STATE_MACHINE = {"Comment": "BASE_FAIL_STATE_MACHINE", "QueryLanguage": "JSONata", "StartAt": "State0",
                           "States": {"State0": BASE_FAIL_STATE}}
BASE_MULTI_STATE_MACHINE = {"Comment": "BASE_MULTI_STATE_MACHINE", "QueryLanguage": "JSONata", "StartAt": "State0",
                            "States": {"State0": {"Type": "Pass", "Next": "State1"}, "State1": BASE_FAIL_STATE}}
HELLO_FAILED = {**FAILED}
PASS_DEBUG = {"afterInputPath": HELLO, "afterParameters": HELLO, "afterResultPath": HELLO,
              "afterResultSelector": HELLO, "input": HELLO}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("machine, name, answer, data", [
    (BASE_PASS_STATE_MACHINE, "State0", {"output": HELLO, "status": "SUCCEEDED"}, PASS_DEBUG),
    (BASE_FAIL_STATE_MACHINE, "State0", HELLO_FAILED, {"input": HELLO}),
    (BASE_MAP_STATE_MACHINE, "HandleItem", {"output": HELLO, "status": "SUCCEEDED"}, PASS_DEBUG),
    (BASE_MULTI_STATE_MACHINE, "State0", {"nextState": "State1", "output": HELLO, "status": "SUCCEEDED"},
     {"input": HELLO}),
    (BASE_MULTI_STATE_MACHINE, "State1", HELLO_FAILED, {"input": HELLO}),
], ids=["BASE_PASS_STATE_MACHINE", "BASE_FAIL_STATE_MACHINE", "BASE_MAP_STATE_MACHINE", "multi-State0",
        "multi-State1"])
def test_a_state_of_a_whole_definition(sfn: Any, machine: dict[str, Any], name: str, answer: dict[str, Any],
                                       data: dict[str, Any], level: str) -> None:
    # test_test_state_machine_scenarios::test_base_state_name[<level>-<machine>] (HandleItem is the
    # Map's inner state) and ::test_base_state_name_multi_state[<level>-<State>] (JSONata: the DEBUG
    # data of a Pass or Fail is its input alone)
    out = parsed(call(sfn, machine, HELLO, stateName=name, inspectionLevel=level))
    assert out == (answer if level == "INFO" else {**answer, "inspectionData": data})


@pytest.mark.parametrize("name", ["dne", '"invalid"'], ids=["dne", "invalid"])
def test_a_state_name_not_in_the_definition(sfn: Any, name: str) -> None:
    # test_test_state_machine_scenarios::test_base_state_name_validation_failures[dne|invalid]
    assert refusal(sfn, BASE_PASS_STATE_MACHINE, HELLO, stateName=name, inspectionLevel="INFO") == (
        "ValidationException", "State not found in definition")


def test_an_empty_state_name_is_refused_by_the_client(sfn: Any) -> None:
    # test_test_state_machine_scenarios::test_base_state_name_validation_failures[empty]: botocore's
    # own check (stateName's min length 1), before any request
    with pytest.raises(botocore.exceptions.ParamValidationError, match="valid min length: 1"):
        call(sfn, BASE_PASS_STATE_MACHINE, HELLO, stateName="", inspectionLevel="INFO")


def test_a_state_name_whose_state_has_no_valid_type(sfn: Any) -> None:
    # test_test_state_machine_scenarios::test_state_name_invalid_state_definition
    machine = {"Comment": "Base state machine with a state that is not a valid state definition.",
               "StartAt": "ExistingButInvalidState",
               "States": {"ExistingButInvalidState": {"Type": "TypeThatDoesNotExist", "End": True}}}
    assert refusal(sfn, machine, HELLO, stateName="ExistingButInvalidState", inspectionLevel="INFO") == (
        "InvalidDefinition", "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: The field 'Type' should "
        "have one of these values: [Task, Wait, Pass, Succeed, Fail, Choice, Parallel, Map] at "
        "/States/ExistingButInvalidState/Type'")
