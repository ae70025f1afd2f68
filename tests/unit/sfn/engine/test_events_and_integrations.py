"""Event shapes, the history fold, redrive bookkeeping and how Lambda answers become results/errors."""

from __future__ import annotations

import json

import pytest

from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.events import Event, entered, exited
from onceflow.sfn.engine.integrations import resolve_integration
from onceflow.sfn.engine.integrations.lambda_invoke import _function_error, _lambda_error, _shape
from onceflow.sfn.engine.state import History, fold, redrive_superseded


def test_to_api_keeps_the_model_member_order_and_drops_data_on_request() -> None:
    ev = Event(3, 2, "PassStateExited", 0.0, exited("P", {"a": [1, 2]}, {"x": "y"}), "r")
    api = ev.to_api()
    assert list(api) == ["timestamp", "type", "id", "previousEventId", "stateExitedEventDetails"]
    assert api["stateExitedEventDetails"] == {
        "name": "P", "output": '{"a":[1,2]}', "outputDetails": {"truncated": False},
        "assignedVariables": {"x": '"y"'}, "assignedVariablesDetails": {"truncated": False}}
    bare = Event(2, 0, "PassStateEntered", 0.0, entered("P", {"a": 1}), "r").to_api(include_data=False)
    assert bare["stateEnteredEventDetails"] == {"name": "P", "inputDetails": {"truncated": False}}


def test_fold_and_resume_pointer() -> None:
    events = [
        Event(1, 0, "ExecutionStarted", 0.0, {}, "r"),
        Event(2, 0, "MapStateEntered", 1.0, {}, "r"),
        Event(3, 2, "MapStateStarted", 1.0, {"length": 1}, "r"),
        Event(4, 3, "MapIterationStarted", 1.0, {"index": 0, "name": "M"}, "r"),
        Event(5, 4, "PassStateEntered", 1.0, {}, "r.1"),
        Event(6, 5, "PassStateExited", 1.0, {}, "r.1"),
        Event(7, 6, "MapIterationSucceeded", 1.0, {"index": 0, "name": "M"}, "r"),
    ]
    assert History(events).resume_pointer == 6  # the next iteration chains on the inner event
    assert fold(events).status == "RUNNING"
    done = [*events, Event(8, 7, "ExecutionFailed", 2.0, {"error": "E", "cause": "C"}, "r")]
    s = fold(done)
    assert (s.status, s.error, s.cause, s.stop, s.last_id) == ("FAILED", "E", "C", 2.0, 8)


def test_redrive_sets_aside_the_unfinished_state_and_its_children() -> None:
    events = [
        Event(1, 0, "ExecutionStarted", 0.0, {}, "r"),
        Event(2, 0, "PassStateEntered", 0.0, {"name": "A"}, "r"),
        Event(3, 2, "PassStateExited", 0.0, {"name": "A"}, "r"),
        Event(4, 3, "MapStateEntered", 0.0, {"name": "M"}, "r"),
        Event(5, 4, "MapStateStarted", 0.0, {"length": 1}, "r"),
        Event(6, 5, "MapIterationStarted", 0.0, {"index": 0, "name": "M"}, "r"),
        Event(7, 6, "FailStateEntered", 0.0, {"name": "F"}, "r.1"),
        Event(8, 7, "MapIterationFailed", 0.0, {"index": 0, "name": "M"}, "r"),
        Event(9, 7, "MapStateFailed", 0.0, None, "r"),
        Event(10, 9, "ExecutionFailed", 0.0, {"error": "E"}, "r"),
    ]
    # The Map goes on (its opening events replay); only its failed iteration runs again.
    assert redrive_superseded(events) == [7, 8, 9, 10]
    queues = History(events, set(redrive_superseded(events))).by_fiber
    assert [e.id for e in queues["r"]] == [1, 2, 3, 4, 5, 6] and "r.1" not in queues
    # A retried Map (two MapStateStarted) runs again whole.
    retried = [*events[:6], Event(11, 6, "MapStateStarted", 0.0, {"length": 1}, "r"),
               Event(12, 11, "ExecutionFailed", 0.0, {"error": "E"}, "r")]
    assert redrive_superseded(retried) == [4, 5, 6, 11, 12]


@pytest.mark.parametrize(("resource", "kind", "rtype", "res", "token"), [
    ("arn:aws:states:::lambda:invoke", "lambda_invoke", "lambda", "invoke", False),
    ("arn:aws:states:::lambda:invoke.waitForTaskToken", "lambda_invoke", "lambda", "invoke.waitForTaskToken", True),
    ("arn:aws:states:::dynamodb:putItem", "dynamodb", "dynamodb", "putItem", False),
    ("arn:aws:states:::aws-sdk:dynamodb:getItem", "aws_sdk", "aws-sdk:dynamodb", "getItem", False),
    ("arn:aws:lambda:us-east-1:000000000000:function:f", "bare_lambda", "",
     "arn:aws:lambda:us-east-1:000000000000:function:f", False),
])
def test_resources(resource: str, kind: str, rtype: str, res: str, token: bool) -> None:
    integ = resolve_integration(resource)
    assert (integ.kind, integ.resource_type, integ.resource, integ.wait_for_token) == (kind, rtype, res, token)


def test_lambda_function_errors() -> None:
    body = b'{"errorMessage": "boom", "errorType": "Transient", "requestId": "r", "stackTrace": []}'
    compact = _function_error(body, compact=True)
    assert (compact.error, compact.cause) == (
        "Transient", '{"errorMessage":"boom","errorType":"Transient","requestId":"r","stackTrace":[]}')
    assert _function_error(body, compact=False).cause == body.decode()  # bare ARN: as Lambda wrote it
    unknown = _function_error(b'"oops"', compact=True)
    assert (unknown.error, unknown.cause) == (
        "Lambda.Unknown", "The cause could not be determined because Lambda did not return an error type.")


def test_lambda_api_errors_use_the_java_sdk_names() -> None:
    denied = _lambda_error(ServiceError("AccessDeniedException", "User: x is not authorized", 403))
    assert denied.error == "Lambda.AWSLambdaException"
    assert denied.cause.startswith("User: x is not authorized (Service: AWSLambda; Status Code: 403; Error Code: "
                                   "AccessDeniedException; Request ID: ")
    assert denied.cause.endswith("; Proxy: null)")
    missing = _lambda_error(ServiceError("ResourceNotFoundException", "Function not found: f", 404))
    assert isinstance(missing, StatesError) and missing.error == "Lambda.ResourceNotFoundException"


def test_invoke_result_shape() -> None:
    out = _shape({"StatusCode": 200, "ExecutedVersion": "$LATEST"}, {"ok": True}, 11, "rid-1")
    assert list(out) == ["ExecutedVersion", "Payload", "SdkHttpMetadata", "SdkResponseMetadata", "StatusCode"]
    headers = out["SdkHttpMetadata"]["HttpHeaders"]
    assert list(headers) == sorted(headers, key=str.lower)
    assert out["SdkHttpMetadata"]["AllHttpHeaders"]["Content-Length"] == ["11"]
    assert out["SdkResponseMetadata"]["RequestId"] == headers["x-amzn-RequestId"] == "rid-1"  # the invocation's
    json.dumps(out)
