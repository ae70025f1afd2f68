"""Every operation of the six models, both directions, with botocore as the oracle.

Requests: botocore serializes example params (every member filled, valid against the model) and
our parser must give back exactly those params. Responses: our renderer writes an example output
and botocore's parser must read back exactly that output. Errors: every modeled error of every
operation parses into the right code, message and modeled members.

The operations are those of known_operations.py (every implemented one among them, see
test_every_implemented_operation_is_covered); one that a newer botocore adds is skipped by name, unless
onceflow serves it (known_operations.SERVED_NEWER).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import botocore
import pytest
from known_operations import BOTOCORE, SERVED_NEWER
from known_operations import KNOWN as MODELED
from wire_oracle import botocore_op, botocore_parse, botocore_request, parse_request, render, render_error, spec
from wire_shapegen import emptied, value_for

from onceflow.errors import ServiceError

SERVICES = ["dynamodb", "stepfunctions", "lambda", "iam", "sts", "logs"]
KNOWN = {service: ops | SERVED_NEWER.get(service, frozenset()) for service, ops in MODELED.items()}
# Characters that need escaping somewhere: form encoding, URL labels, JSON, XML, non-ASCII, astral.
TRICKY = "a b&c=d+é/%:?#\r\n\"<>'😀 ;"
WHEN_MS = dt.datetime(2026, 11, 29, 9, 30, 15, 123000, tzinfo=dt.UTC)


def _newer(service: str, name: str) -> tuple[Any, ...]:
    """A skip mark for an operation this suite does not know (modeled after botocore BOTOCORE)."""
    if name in KNOWN[service]:
        return ()
    reason = (f"{service}.{name}: modeled by botocore {botocore.__version__}, newer than the operations this suite "
              f"knows (botocore {BOTOCORE}, known_operations.py) and not implemented")
    return (pytest.mark.skip(reason=reason),)


def _ops(kind: str) -> list[Any]:
    out = []
    for service in SERVICES:
        for name, op in spec(service).operations.items():
            shape = op.input_shape if kind == "input" else op.output_shape
            if shape is None or (kind == "output" and botocore_op(service, op).has_event_stream_output):
                continue
            out.append(pytest.param(service, name, id=f"{service}.{name}", marks=_newer(service, name)))
    return out


def _drop_metadata(parsed: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in parsed.items() if k != "ResponseMetadata"}
    return {k: v.read() if hasattr(v, "read") else v for k, v in out.items()}


@pytest.mark.parametrize("seed", ["a", TRICKY], ids=["plain", "tricky"])
@pytest.mark.parametrize(("service", "operation"), _ops("input"))
def test_request_round_trip(service: str, operation: str, seed: str) -> None:
    op = spec(service).operations[operation]
    params = value_for(op.input_shape, seed=seed)
    found, parsed = parse_request(service, botocore_request(service, op, params))
    assert (found.spec.name, found.operation_name) == (service, operation)
    assert parsed == params


@pytest.mark.parametrize(("service", "operation"), _ops("input"))
def test_request_with_required_members_only(service: str, operation: str) -> None:
    op = spec(service).operations[operation]
    params = value_for(op.input_shape, required_only=True)
    _, parsed = parse_request(service, botocore_request(service, op, params))
    assert parsed == params


@pytest.mark.parametrize("seed", ["a", TRICKY], ids=["plain", "tricky"])
@pytest.mark.parametrize(("service", "operation"), _ops("output"))
def test_response_round_trip(service: str, operation: str, seed: str) -> None:
    op = spec(service).operations[operation]
    result = value_for(op.output_shape, seed=seed, when=WHEN_MS)
    response = render(service, op, result)
    assert response.status < 300
    assert _drop_metadata(botocore_parse(service, op, response)) == result


@pytest.mark.parametrize(("service", "operation"), _ops("output"))
def test_response_round_trip_of_empty_and_zero_values(service: str, operation: str) -> None:
    op = spec(service).operations[operation]
    result = emptied(op.output_shape, value_for(op.output_shape))
    assert _drop_metadata(botocore_parse(service, op, render(service, op, result))) == result


def _errors() -> list[Any]:
    seen, out = set(), []
    for service in SERVICES:
        # Known operations first: an error shape is skipped only if no known operation has it.
        for name, op in sorted(spec(service).operations.items(), key=lambda item: item[0] not in KNOWN[service]):
            for shape in op.error_shapes:
                if (service, shape.name) not in seen:
                    seen.add((service, shape.name))
                    out.append(pytest.param(service, name, shape.name, id=f"{service}.{shape.name}",
                                            marks=_newer(service, name)))
    return out


def test_every_implemented_operation_is_covered() -> None:
    """The skips above never reach an operation onceflow serves: each one is known and modeled."""
    from onceflow.config import Settings
    from onceflow.server import build_stack

    stack = build_stack(Settings(in_memory=True))
    try:
        implemented = {(s, op) for s in SERVICES for op in stack.registry.operations(s)}
    finally:
        for hook in stack.on_shutdown:
            hook()
        stack.db.close()
    assert len(implemented) > 100
    assert {(s, op) for s, op in implemented if op not in KNOWN[s]} == set()
    # Only an operation newer than the floor may be served without the installed model having it.
    unmodeled = {(s, op) for s, op in implemented if op not in spec(s).operations}
    assert {(s, op) for s, op in unmodeled if op not in SERVED_NEWER.get(s, ())} == set()


@pytest.mark.parametrize(("service", "operation", "shape_name"), _errors())
def test_modeled_error_round_trip(service: str, operation: str, shape_name: str) -> None:
    op = spec(service).operations[operation]
    shape = spec(service).model.shape_for(shape_name)
    code = shape.error_code or shape_name
    status = shape.metadata.get("error", {}).get("httpStatusCode", 400)
    extra = {k: v for k, v in value_for(shape).items() if k.lower() not in ("message", "type")}
    err = ServiceError(code, f"something about {code} <&>", status, extra=extra)
    response = render_error(service, err)
    parsed = botocore_parse(service, op, response)
    assert response.status == status
    assert parsed["Error"]["Code"] == code
    assert parsed["Error"]["Message"] == f"something about {code} <&>"
    for key, value in extra.items():
        assert parsed[key] == value, key
