"""JSON 1.0 / 1.1 protocols (DynamoDB, Step Functions, CloudWatch Logs): POST / with X-Amz-Target."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.raw_json import RawJson, RawJsonList
from onceflow.wire import errors, json_body
from onceflow.wire.json_body import NotJson
from onceflow.wire.request import PAUSE_GC_PAST, Request, Response, collector_paused
from onceflow.wire.shapes import SerializationError, from_json, json_default
from onceflow.wire.specs import ServiceSpec
from onceflow.wire.validate import Problems, validation_failure

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel


def parse(spec: ServiceSpec, op: OperationModel, request: Request, validation_code: str) -> dict[str, Any]:
    if len(request.body) <= PAUSE_GC_PAST:  # the common case: no pause to set up
        return _parse(spec, op, request, validation_code)
    with collector_paused():
        return _parse(spec, op, request, validation_code)


def _parse(spec: ServiceSpec, op: OperationModel, request: Request, validation_code: str) -> dict[str, Any]:
    body = request.body
    if not body:
        raise errors.serialization_error("")  # coral answers an empty body before looking at the operation
    try:
        data = json_body.load(body)
    except NotJson as exc:
        raise errors.serialization_error("") from exc  # real AWS sends no message for unparseable JSON
    except SerializationError as exc:
        raise errors.serialization_error(str(exc)) from exc
    if op.input_shape is None:
        return {}
    problems = Problems()
    try:
        params: dict[str, Any] = from_json(op.input_shape, data, "", problems)
    except SerializationError as exc:
        raise errors.serialization_error(str(exc)) from exc
    if problems.found and problems.outcome(spec.name, op.name) is not None:
        raise validation_failure(spec.name, validation_code, problems, op.name)
    return params


def content_type(spec: ServiceSpec) -> str:
    return spec.json_content_type


def render(spec: ServiceSpec, result: dict[str, Any] | None, request_id: str) -> Response:
    body = _encode(result).encode() if result else b"{}"
    return Response(200, body, [("x-amzn-RequestId", request_id)], spec.json_content_type)


# What json.dumps(value, default=json_default, separators=(",", ":")) builds on every call (~10 us a
# response); its state lives in each encode() call, so one instance serves every thread.
_ENCODER = json.JSONEncoder(default=json_default, separators=(",", ":"))


def _encode(result: dict[str, Any]) -> str:
    """The result as JSON; top-level RawJson members are spliced in as the text they already are."""
    if not any(v.__class__ is RawJson or v.__class__ is RawJsonList for v in result.values()):
        return _ENCODER.encode(result)
    members = []
    for key, value in result.items():
        text: str
        if value.__class__ is RawJson:
            text = value
        elif value.__class__ is RawJsonList:
            text = "[" + ",".join(value) + "]"
        else:
            text = _ENCODER.encode(value)
        members.append(f"{json.dumps(key)}:{text}")
    return "{" + ",".join(members) + "}"


def message_key(spec: ServiceSpec, code: str) -> str:
    """Error shapes name their message member 'message' or 'Message'; use the model's spelling."""
    shape = spec.model.shape_for_error_code(code) if code else None
    if shape is not None and "Message" in shape.members and "message" not in shape.members:
        return "Message"
    return "message"


def render_error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
    namespace = err.namespace if err.namespace is not None else spec.error_namespace
    body: dict[str, Any] = {"__type": f"{namespace}#{err.code}" if namespace else err.code}
    if err.message and "Message" not in err.extra and "message" not in err.extra:
        body[message_key(spec, err.code)] = err.message
    body.update(err.extra)  # may spell the message member itself (DynamoDB's ALL_OLD condition failures)
    # A JSON service that was a query one (SQS, the errors with a query_code) names the error's
    # shape with its namespace in x-amzn-ErrorType too, as AWS answers.
    error_type = f"{namespace}#{err.code}" if err.query_code and namespace else err.code
    headers = [("x-amzn-RequestId", request_id), ("x-amzn-ErrorType", error_type)]
    if err.query_code:
        headers.append(("x-amzn-query-error", f"{err.query_code};{'Sender' if err.sender_fault else 'Receiver'}"))
    data = _ENCODER.encode(body).encode()
    return Response(err.status, data, headers, spec.json_content_type)
