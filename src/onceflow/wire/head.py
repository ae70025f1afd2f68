"""Answers given from a request's head alone, its body not read (or not all of it): which service
it is for, the size its body may have, and the refusals (a foreign Host, a body too large, no room
in the budget, a client that stopped sending) in that service's protocol."""

from __future__ import annotations

import json

from onceflow.errors import ServiceError
from onceflow.wire import errors, facts, protocols, sigv4
from onceflow.wire.intake import Busy, TimedOut, TooLarge
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import NotAnAwsRequest, route
from onceflow.wire.specs import ServiceSpec, Specs, first_segment

FALLBACK = "dynamodb"  # the service whose protocol answers a request that names none


def spec_of_head(specs: Specs, request: Request) -> ServiceSpec | None:
    """The service a request is for, from its headers and path alone (its body not read yet)."""
    if request.path.startswith("/_onceflow/"):
        return None
    target = request.headers.get("x-amz-target")
    if target:
        return specs.by_target_prefix.get(target.rpartition(".")[0])
    rest = specs.rest_prefixes.get(first_segment(request.raw_path)) or specs.rest_prefixes.get("{")
    if rest:
        return rest[0]
    if "x-www-form-urlencoded" in request.headers.get("content-type", "") or "Action=" in request.query_string:
        scope = sigv4.credential_scope(request.headers, request.query_string)
        spec = specs.by_signing_name.get(scope.service) if scope else None
        return spec if spec is not None and spec.protocol == "query" else specs.services["iam"]
    return None


def body_limit(specs: Specs, request: Request, default: int) -> int:
    # Only Lambda has a limit of its own, and its requests are REST ones: the path is enough.
    rest = specs.rest_prefixes.get(first_segment(request.raw_path))
    return max(facts.body_limit(spec.name, default) for spec in rest) if rest else default


def refuse(specs: Specs, request: Request, message: str, request_id: str) -> Response:
    """The front door's 403 (Host, Origin) in the protocol of the service addressed, if any."""
    spec = spec_of_head(specs, request)
    if spec is None:
        return Response(403, json.dumps({"message": message}).encode())
    return protocols.error(spec, errors.access_denied(spec.protocol, message), request_id)


def refuse_body(specs: Specs, request: Request, refused: TooLarge | Busy | TimedOut, limit: int,
                request_id: str) -> Response:
    """The answer to a body that intake.take would not read."""
    spec = spec_of_head(specs, request) or specs.services[FALLBACK]
    err: ServiceError
    if isinstance(refused, Busy):
        err = errors.busy(spec.protocol)
    elif isinstance(refused, TimedOut):
        err = errors.request_timeout()
    else:
        err = errors.too_large(limit, _operation_name(specs, request, spec))
    return protocols.error(spec, err, request_id)


def _operation_name(specs: Specs, request: Request, spec: ServiceSpec) -> str:
    if spec.protocol == "query":  # its Action is in the body, not read
        return ""
    try:
        return route(specs, request, None).operation_name
    except (ServiceError, NotAnAwsRequest):
        return ""
