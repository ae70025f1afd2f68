"""Name the (service, operation, protocol) of a request: X-Amz-Target, the REST path, or the
credential scope plus Action for the query protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from botocore.model import OperationModel

from onceflow.errors import ServiceError
from onceflow.wire import query, rest_json
from onceflow.wire.request import Request
from onceflow.wire.sigv4 import Scope
from onceflow.wire.specs import ServiceSpec, Specs

REST_PREFIXES = ("/2015-03-31/", "/2017-03-31/", "/2014-11-13/", "/2016-08-19/", "/2017-10-31/",
                 "/2018-10-31/", "/2019-09-25/", "/2019-09-30/", "/2020-04-22/", "/2020-06-30/",
                 "/2021-07-20/", "/2021-10-31/", "/2021-11-15/", "/2024-08-31/", "/2025-11-30/",
                 "/2025-12-01/")  # fmt: skip


@dataclass
class Route:
    spec: ServiceSpec
    operation: OperationModel | None  # None: the operation name is not in the model
    operation_name: str
    labels: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] | None = None  # query protocol: the parsed form fields


class NotAnAwsRequest(Exception):
    """The request is not addressed to an AWS API (the console or a stray path)."""


def route(specs: Specs, request: Request, scope: Scope | None) -> Route:
    target = request.headers.get("x-amz-target")
    if target:
        prefix, _, name = target.rpartition(".")
        spec = specs.by_target_prefix.get(prefix)
        if spec is None:
            # Coral names no operation here (recorded from DynamoDB: `__type` only, no message).
            raise ServiceError("UnknownOperationException", "", 400, namespace="com.amazon.coral.service")
        return Route(spec, spec.operations.get(name), name)
    if request.raw_path.startswith(REST_PREFIXES):
        spec = specs.services["lambda"]
        found = rest_json.match(spec, request)
        if found is None:
            raise ServiceError("UnknownOperationException", f"No Lambda operation at {request.method} "
                               f"{request.path}", 404)
        op, labels = found
        return Route(spec, op, op.name, labels)
    content_type = request.headers.get("content-type", "")
    if "x-www-form-urlencoded" in content_type or "Action=" in request.query_string:
        form = query.form_fields(request)
        service = scope.service if scope else ("sts" if form.get("Version") == "2011-06-15" else "iam")
        spec = specs.by_signing_name.get(service) or specs.services["iam"]
        if spec.protocol != "query":
            spec = specs.services["sts" if form.get("Version") == "2011-06-15" else "iam"]
        name = form.get("Action", "")
        if not name:
            raise ServiceError("MissingAction", "Missing Action", 400)
        return Route(spec, spec.operations.get(name), name, form=form)
    raise NotAnAwsRequest()


def known(route_: Route) -> bool:
    return route_.operation is not None


__all__: list[Any] = ["NotAnAwsRequest", "Route", "known", "route"]
