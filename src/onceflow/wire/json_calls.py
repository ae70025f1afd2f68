"""Calls made with JSON-shaped parameters from inside onceflow (Step Functions' service
integrations): the parameters get exactly the conversion and checks an HTTP request gets -
base64 blobs to bytes, timestamps to datetimes, the model's constraints with the service's
validation error - before `internal.call` runs the operation as the given principal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.errors import NotImplementedOperation
from onceflow.stack import Stack
from onceflow.wire import errors, facts
from onceflow.wire.shapes import SerializationError, from_json
from onceflow.wire.specs import Specs
from onceflow.wire.validate import Problems, validation_failure

JsonCaller = Callable[..., dict[str, Any]]


def make_json_caller(stack: Stack, specs: Specs) -> JsonCaller:
    def call(principal: Principal, service: str, operation: str, params: Any, *, region: str) -> dict[str, Any]:
        spec = specs.services[service]
        op = spec.operations.get(operation)
        if op is None:
            raise NotImplementedOperation(service, operation)
        converted: dict[str, Any] = {}
        if op.input_shape is not None:
            problems = Problems()
            try:
                converted = from_json(op.input_shape, params if params is not None else {}, "", problems)
            except SerializationError as exc:
                raise errors.serialization_error(str(exc)) from exc
            if problems.found and problems.outcome(spec.name, operation) is not None:
                raise validation_failure(spec.name, facts.validation_code(service, op), problems,
                                         operation)
        return internal.call(stack, principal, service, operation, converted, region=region)

    return call

