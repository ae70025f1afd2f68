"""One service call of an integration: parameters as they stand in the state's JSON data, result
as JSON data again."""

from __future__ import annotations

import base64
import contextvars
import datetime
from collections.abc import Callable
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.stack import Stack


def call_service(stack: Stack, principal: Principal, region: str, service: str, operation: str,
                 params: Any) -> dict[str, Any]:
    """Run `service.operation` as `principal`. The parameters get the conversion and checks of an
    HTTP request (base64 blobs, timestamps, the model's constraints) when the server composed
    `stack.call_from_json`; the result comes back with bytes as base64 and times as ISO 8601."""
    params = dict(params or {})
    if stack.call_from_json is not None:
        out = stack.call_from_json(principal, service, operation, params, region=region)
    else:  # a stack built without the wire layer (in-process tests): the parameters go as they are
        out = internal.call(stack, principal, service, operation, params, region=region)
    return jsonable(out or {})


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode()
    return value


# ---------------------------------------------------------------------- handing a call over
class NotDispatched(BaseException):  # BaseException: no layer may turn it into an error
    """Raised where a call would be handed over, when the engine withholds it (shutting down): the
    call never started, so after the restart its task starts again as if nothing happened."""


# The engine's callback for the task call running on this thread: called (with the service's
# request id when it has one) right before the call is handed to a Lambda worker or a service.
HANDED_OVER: contextvars.ContextVar[Callable[[str | None], None] | None] = contextvars.ContextVar(
    "sfn_handed_over", default=None)


def handed_over(request_id: str | None = None) -> None:
    callback = HANDED_OVER.get()
    if callback is not None:
        callback(request_id)


