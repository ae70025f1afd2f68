"""In-process calls between services (Step Functions -> Lambda, DynamoDB; Lambda -> Logs ...).

They go through the same registry and the same authorization as HTTP calls, without serialization:
params and results are the same Python shapes the wire layer hands to handlers.
"""

from __future__ import annotations

from typing import Any

from onceflow.context import Principal, RequestContext
from onceflow.errors import NotImplementedOperation
from onceflow.stack import Stack


def call(
    stack: Stack,
    principal: Principal,
    service: str,
    operation: str,
    params: dict[str, Any],
    *,
    region: str,
) -> dict[str, Any]:
    """Call `service.operation` as `principal`; raises the ServiceError the operation would return."""
    ctx = RequestContext(service, operation, principal.account, region, principal, internal=True)
    handler = stack.registry.get(service, operation)
    if handler is None:
        raise NotImplementedOperation(service, operation)
    faults = stack.ports.faults.get()
    if faults is not None and faults.watches(service, operation):  # fault injection (onceflow.faults)
        fire = faults.decide(ctx, params)
        if fire is not None:
            return fire.run_sync(lambda: _run(stack, handler, ctx, params), stack.settings.time_scale) or {}
    return _run(stack, handler, ctx, params)


def _run(stack: Stack, handler: Any, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
    stack.authorize(ctx, params)
    return handler(ctx, params) or {}
