"""One protocol object per service spec: how a request is parsed and an answer or an error is
rendered in that protocol's shape (JSON 1.0/1.1, query with XML answers, REST-JSON). The stages
of the pipeline ask `of(spec)` once instead of each branching on the protocol's name. S3's
REST-XML streams its bodies and keeps its own path (s3_path.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onceflow.errors import ServiceError
from onceflow.wire import json_rpc, query, rest_json
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import Route
from onceflow.wire.specs import ServiceSpec

Params = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Protocol:
    name: str
    parse: Callable[[Route, Request, str], Params]  # (route, request, validation code) -> parameters
    render: Callable[[Route, Any, str], Response]  # (route, result, request id) -> the answer
    render_error: Callable[[ServiceSpec, ServiceError, str], Response]  # (spec, error, request id)


def _parse_json(found: Route, request: Request, code: str) -> Params:
    assert found.operation is not None
    return json_rpc.parse(found.spec, found.operation, request, code)


def _parse_query(found: Route, request: Request, code: str) -> Params:
    assert found.operation is not None
    return query.parse(found.spec, found.operation, found.form or {}, code)


def _parse_rest_json(found: Route, request: Request, code: str) -> Params:
    assert found.operation is not None
    return rest_json.parse(found.spec, found.operation, request, found.labels, code)


def _render_json(found: Route, result: Any, request_id: str) -> Response:
    return json_rpc.render(found.spec, result, request_id)


def _render_query(found: Route, result: Any, request_id: str) -> Response:
    assert found.operation is not None
    return query.render(found.spec, found.operation, result, request_id)


def _render_rest_json(found: Route, result: Any, request_id: str) -> Response:
    assert found.operation is not None
    return rest_json.render(found.spec, found.operation, result, request_id)


JSON = Protocol("json", _parse_json, _render_json, json_rpc.render_error)
QUERY = Protocol("query", _parse_query, _render_query, query.render_error)
REST_JSON = Protocol("rest-json", _parse_rest_json, _render_rest_json, rest_json.render_error)
PROTOCOLS = {p.name: p for p in (JSON, QUERY, REST_JSON)}


def of(spec: ServiceSpec) -> Protocol:
    # Any other protocol (rest-xml outside S3's own path) is answered as REST-JSON was before.
    return PROTOCOLS.get(spec.protocol, REST_JSON)


def error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
    """`err` in the shape of `spec`'s protocol."""
    return of(spec).render_error(spec, err, request_id)
