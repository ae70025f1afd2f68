"""Name the (service, operation, protocol) of a request: X-Amz-Target, the REST path, or the
credential scope plus Action for the query protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from onceflow.wire import errors, query, rest_json
from onceflow.wire.request import Request
from onceflow.wire.sigv4 import Scope
from onceflow.wire.specs import ServiceSpec, Specs, first_segment
from onceflow.wire.unserved import SHARED_SIGNING_TARGETS, unserved

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel


@dataclass
class Route:
    spec: ServiceSpec
    operation: OperationModel | None  # None: the operation name is not in the model
    operation_name: str
    labels: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] | None = None  # query protocol: the parsed form fields


# What SNS lets anyone do by visiting a link it sent (SubscribeURL), unsigned: the token is the proof.
UNSIGNED_SNS = {"ConfirmSubscription"}


class NotAnAwsRequest(Exception):
    """The request is not addressed to an AWS API (the console or a stray path)."""


def route(specs: Specs, request: Request, scope: Scope | None) -> Route:
    """Raises ServiceError for a request AWS would refuse here (an UnservedService for a service
    onceflow does not serve), NotAnAwsRequest for one that is not AWS's at all."""
    if scope is not None and scope.service not in specs.by_signing_name:
        raise unserved(specs.loader, scope.service, request)
    target = request.headers.get("x-amz-target")
    if target:
        prefix, _, name = target.rpartition(".")
        spec = specs.by_target_prefix.get(prefix)
        if spec is None and prefix in SHARED_SIGNING_TARGETS:  # DynamoDB Streams signs as dynamodb
            raise unserved(specs.loader, SHARED_SIGNING_TARGETS[prefix], request)
        if spec is None:
            # Coral names no operation here (recorded from DynamoDB: `__type` only, no message).
            raise errors.unknown_operation()
        return Route(spec, spec.operations.get(name), name)
    rest = specs.rest_prefixes.get(first_segment(request.raw_path)) or specs.rest_prefixes.get("{")
    if rest:
        for spec in rest:
            found = rest_json.match(spec, request)
            if found is not None:
                op, labels = found
                return Route(spec, op, op.name, labels)
        service_id = rest[0].model.metadata.get("serviceId", rest[0].name)
        raise errors.unknown_operation(f"No {service_id} operation at {request.method} {request.path}", 404)
    content_type = request.headers.get("content-type", "")
    if "x-www-form-urlencoded" in content_type or "Action=" in request.query_string:
        form = query.form_fields(request)
        service = scope.service if scope else ("sts" if form.get("Version") == "2011-06-15" else "iam")
        if scope is None and form.get("Action") in UNSIGNED_SNS:  # an SNS SubscribeURL
            service = "sns"
        spec = specs.query_compatible.get(service) or specs.by_signing_name.get(service) or specs.services["iam"]
        if spec.name == "sqs" and "QueueUrl" not in form and request.path.count("/") >= 2:
            # Query clients post to the queue's URL instead of naming it in the form.
            form["QueueUrl"] = f"http://{request.headers.get('host', 'localhost')}{request.path}"
        if spec.protocol != "query":
            spec = specs.services["sts" if form.get("Version") == "2011-06-15" else "iam"]
        name = form.get("Action", "")
        if not name:
            raise errors.missing_action()
        return Route(spec, spec.operations.get(name), name, form=form)
    raise NotAnAwsRequest()


def known(route_: Route) -> bool:
    return route_.operation is not None


__all__: list[Any] = ["NotAnAwsRequest", "Route", "known", "route"]
