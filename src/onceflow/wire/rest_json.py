"""REST-JSON (Lambda): operations routed by method and path template, members bound to the URI,
query string, headers and body as the model's `location` says."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from onceflow.errors import JSON_NULL, ServiceError
from onceflow.wire import errors, json_body, unserved
from onceflow.wire.request import PAUSE_GC_PAST, Request, Response, collector_paused
from onceflow.wire.shapes import SerializationError, from_json, from_text, json_default, scalar_text
from onceflow.wire.specs import ServiceSpec
from onceflow.wire.validate import Problems, check_scalar, member_path, validation_failure

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel, Shape


def match(spec: ServiceSpec, request: Request) -> tuple[OperationModel, dict[str, str]] | None:
    query = request.query
    raw = request.raw_path.rstrip("/") or "/"
    for route in spec.routes:
        if route.method != request.method:
            continue
        m = route.regex.match(raw)
        if m is None:
            continue
        if any(query.get(k, [None])[0] != v for k, v in route.static_query.items()):
            continue
        return route.operation, {k: unquote(v) for k, v in m.groupdict().items()}
    return None


def parse(
    spec: ServiceSpec, op: OperationModel, request: Request, labels: dict[str, str], validation_code: str
) -> dict[str, Any]:
    if len(request.body) <= PAUSE_GC_PAST:  # the common case: no pause to set up
        return _parse(spec, op, request, labels, validation_code)
    with collector_paused():
        return _parse(spec, op, request, labels, validation_code)


def _parse(
    spec: ServiceSpec, op: OperationModel, request: Request, labels: dict[str, str], validation_code: str
) -> dict[str, Any]:
    shape = op.input_shape
    if shape is None:
        return {}
    problems = Problems()
    params: dict[str, Any] = {}
    payload_name = shape.serialization.get("payload")
    try:
        for name, mshape in shape.members.items():
            loc = mshape.serialization.get("location")
            wire_name = mshape.serialization.get("name", name)
            if loc == "uri":
                raw = labels.get(wire_name.rstrip("+"))
                if raw is not None:
                    params[name] = from_text(mshape, raw)
            elif loc == "querystring":
                values = request.query.get(wire_name)
                if values is not None:
                    if mshape.type_name == "list":
                        params[name] = [from_text(mshape.member, v) for v in values]
                    else:
                        params[name] = from_text(mshape, values[0])
            elif loc == "header":
                if wire_name.lower() in request.headers:
                    params[name] = from_text(mshape, request.headers[wire_name.lower()])
            if name in params:
                check_scalar(mshape, params[name], member_path("", name), problems)
        if payload_name:
            pshape = shape.members[payload_name]
            if pshape.type_name in ("blob", "string"):
                if request.body or payload_name in shape.required_members:
                    params[payload_name] = request.body if pshape.type_name == "blob" else request.body.decode()
            elif request.body.strip():
                data = _json(request.body)
                # botocore sends `{}` for an absent structure payload: read it back as absent.
                if data != {} or payload_name in shape.required_members:
                    params[payload_name] = from_json(pshape, data, member_path("", payload_name), problems)
        else:
            body = _json(request.body) if request.body.strip() else {}
            if not isinstance(body, dict):
                raise SerializationError("Start of list found where not expected")
            body_members = {
                k: v for k, v in body.items() if k in shape.members and "location" not in shape.members[k].serialization
            }
            params.update(from_json(_body_view(shape), body_members, "", problems))
    except SerializationError as exc:
        raise errors.unparseable_rest_json(str(exc)) from exc
    reported = {path for path, _, _ in problems.found}
    for name in shape.required_members:
        if params.get(name) is None and member_path("", name) not in reported:
            problems.add(None, member_path("", name), "Member must not be null")
    if problems.found and problems.outcome(spec.name) is not None:
        raise validation_failure(spec.name, validation_code, problems)
    return params


def _body_view(shape: Shape) -> Shape:
    """The input structure restricted to its body members (required checks are done by the caller),
    built once and kept on the shape (its converter is compiled once too)."""
    view: Shape | None = shape.__dict__.get("_onceflow_body_view")
    if view is None:
        view = shape.subset({k for k, v in shape.members.items() if "location" not in v.serialization})
        shape._onceflow_body_view = view  # type: ignore[attr-defined]  # the wire's cache on the shared shape
    return view


def _json(body: bytes) -> Any:
    return json_body.load(body)


def render(spec: ServiceSpec, op: OperationModel, result: dict[str, Any] | None, request_id: str) -> Response:
    result = result or {}
    status = int(op.http.get("responseCode", 200))
    headers = [("x-amzn-RequestId", request_id)]
    shape = op.output_shape
    if shape is None:
        return Response(status, b"", headers)
    body_members: dict[str, Any] = {}
    payload_name = shape.serialization.get("payload")
    body: bytes | None = None
    for name, mshape in shape.members.items():
        if name not in result or result[name] is None:
            continue
        loc = mshape.serialization.get("location")
        if loc == "statusCode":
            status = int(result[name])
        elif loc == "header":
            headers.append((mshape.serialization.get("name", name), scalar_text(mshape, result[name])))
        elif name == payload_name:
            value = result[name]
            if isinstance(value, (bytes, bytearray)):
                body = bytes(value)
            elif isinstance(value, str):
                body = value.encode()
            else:
                body = json.dumps(value, default=json_default, separators=(",", ":")).encode()
        elif loc is None:
            body_members[name] = result[name]
    if body is None:
        body = b"" if payload_name else json.dumps(body_members, default=json_default, separators=(",", ":")).encode()
    return Response(status, body, headers)


def render_error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
    if spec.protocol != "rest-json":  # a service onceflow does not serve (S3, EC2, CloudWatch)
        return unserved.render_error(spec, err, request_id)
    shape = spec.model.shape_for_error_code(err.code) if err.code else None
    body: dict[str, Any] = {}
    if shape is not None and "Type" in shape.members:
        body["Type"] = "User" if err.sender_fault else "Service"
    key = "Message" if shape is not None and "Message" in shape.members else "message"
    body[key] = err.message
    headers = [("x-amzn-RequestId", request_id), ("x-amzn-ErrorType", err.code)]
    members = shape.members if shape is not None else {}
    for name, value in err.extra.items():
        mshape = members.get(name)
        if value is None:  # a member the service leaves out of this answer (Lambda's few untyped errors)
            body.pop(name, None)
        elif value is JSON_NULL:
            body[name] = None
        elif mshape is not None and mshape.serialization.get("location") == "header":
            headers.append((mshape.serialization.get("name", name), scalar_text(mshape, value)))
        else:
            body[name] = value
    return Response(err.status, json.dumps(body, default=json_default).encode(), headers)
