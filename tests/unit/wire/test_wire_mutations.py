"""No client mistake reaches a 500: every operation's valid request, with each top-level member
replaced by values of the wrong type, shape or encoding, gets a 4xx (or the 501 of an operation this
bare pipeline has no handler for). The registry is empty, so only the wire layer is exercised."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from wire_oracle import botocore_request, spec, specs
from wire_shapegen import value_for

from onceflow.config import Settings
from onceflow.stack import Stack
from onceflow.store.db import Database
from onceflow.wire.app import AwsApp
from onceflow.wire.request import Request, Response

SERVICES = ["dynamodb", "stepfunctions", "lambda", "iam", "sts", "logs"]
JSON_VALUES: list[Any] = [5, -1, 1.5, 2**70, "x", "", "\x00\udfff"[:1], True, [], [None], {}, {"x": {}}, "A===",
                          "9" * 400, "2026-13-45T99:99:99Z"]
FORM_VALUES = ["x", "", "%", "\x00", "-1", "1e999", "true", "9" * 400, "2026-13-45T99:99:99Z", "A==="]


@pytest.fixture(scope="module")
def app() -> Iterator[AwsApp]:
    stack = Stack(Settings(in_memory=True), Database(":memory:"))
    application = AwsApp(stack, specs())
    yield application
    application.close()
    stack.db.close()


def answer(app: AwsApp, request: Request) -> Response:
    return asyncio.run(app.handle(request))


def _ops() -> list[Any]:
    return [pytest.param(s, n, id=f"{s}.{n}") for s in SERVICES for n, op in spec(s).operations.items()
            if op.input_shape is not None and op.input_shape.members]


def _variants(service: str, request: Request, members: list[str]) -> Iterator[Request]:
    protocol = spec(service).protocol
    body = request.body
    if protocol == "query":
        fields = dict(parse_qsl(body.decode(), keep_blank_values=True))
        for name in members:
            for value in FORM_VALUES:
                mutated = {**{k: v for k, v in fields.items() if not k.startswith(name)}, name: value,
                           f"{name}.member.1.x": value, f"{name}.entry.1.key": value}
                yield _replace(request, urlencode(mutated).encode())
        return
    try:
        data = json.loads(body) if body.strip() else {}
    except ValueError:
        data = None  # a raw payload (Lambda Invoke)
    if isinstance(data, dict):
        for name in members:
            for value in JSON_VALUES:
                yield _replace(request, json.dumps({**data, name: value}).encode())
        for path in _paths(data)[:40]:
            for value in JSON_VALUES[::2]:
                yield _replace(request, json.dumps(_set(data, path, value)).encode())
    for cut in (1, len(body) // 2, len(body) - 1):
        yield _replace(request, body[:cut])
    yield _replace(request, b"\xff\xfe" + body)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every nested position below the top level (dict keys and list indexes)."""
    out: list[tuple[Any, ...]] = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        if prefix:
            out.append((*prefix, key))
        out.extend(_paths(value, (*prefix, key)))
    return out


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[path[0]] = _set(data[path[0]], path[1:], value)
    return copy


def _replace(request: Request, body: bytes) -> Request:
    headers = {**request.headers, "content-length": str(len(body))}
    return Request(request.method, request.path, request.raw_path, request.query_string, headers, body,
                   request.client_host)


LOCATED_VALUES = ["", "%", "%zz", "a/b", "..", "\x00", "é😀", "x" * 300, "-1", "abc", "2026-13-45"]


def _located_variants(service: str, operation: str) -> Iterator[Request]:
    """REST members bound to the URI, query string and headers, given text of the wrong kind."""
    op = spec(service).operations[operation]
    params = value_for(op.input_shape)
    for name, shape in op.input_shape.members.items():
        if shape.serialization.get("location") not in ("uri", "querystring", "header"):
            continue
        for value in LOCATED_VALUES:
            try:
                yield botocore_request(service, op, {**params, name: value})
            except (TypeError, ValueError, AttributeError):
                continue  # botocore itself cannot put this value on the wire


@pytest.mark.parametrize(("service", "operation"), _ops())
def test_mutated_requests_never_get_a_500(app: AwsApp, service: str, operation: str) -> None:
    op = spec(service).operations[operation]
    request = botocore_request(service, op, value_for(op.input_shape))
    members = [name for name, shape in op.input_shape.members.items()
               if shape.serialization.get("location") is None]
    for variant in [*_variants(service, request, members), *_located_variants(service, operation)]:
        response = answer(app, variant)
        assert response.status < 500 or response.status == 501, (variant.body[:200], response.body[:300])
        assert b"Traceback" not in response.body
