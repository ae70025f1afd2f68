"""The botocore service models, loaded once at start: the specification of every shape we speak."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

import botocore.session
from botocore.model import OperationModel, ServiceModel

from onceflow.wire import query_compat

# boto3 service name -> the name the SigV4 credential scope carries.
SERVICES = {
    "dynamodb": "dynamodb",
    "dynamodbstreams": "dynamodb",  # signs as dynamodb; routed by its X-Amz-Target prefix
    "stepfunctions": "states",
    "lambda": "lambda",
    "iam": "iam",
    "sts": "sts",
    "logs": "logs",
    "events": "events",
    "scheduler": "scheduler",
    "sqs": "sqs",
    "sns": "sns",
    "s3": "s3",
    "cloudformation": "cloudformation",
}
# How a 501 for an unserved service lists what onceflow serves.
SERVED_NAMES = ("DynamoDB, DynamoDB Streams, Step Functions, Lambda, IAM, STS, CloudWatch Logs, S3, SQS, SNS, "
                "EventBridge, EventBridge Scheduler and CloudFormation")


@dataclass
class RestRoute:
    method: str
    regex: re.Pattern[str]
    static_query: dict[str, str]
    operation: OperationModel
    specificity: tuple[int, int]


@dataclass
class ServiceSpec:
    name: str  # boto3 name
    model: ServiceModel
    protocol: str
    target_prefix: str | None
    routes: list[RestRoute] = field(default_factory=list)

    @cached_property
    def operations(self) -> dict[str, OperationModel]:
        return {name: self.model.operation_model(name) for name in self.model.operation_names}

    @cached_property
    def json_content_type(self) -> str:
        return f"application/x-amz-json-{self.model.metadata.get('jsonVersion', '1.0')}"

    @cached_property
    def xml_namespace(self) -> str:
        return str(self.model.metadata.get("xmlNamespace", ""))

    @cached_property
    def error_namespace(self) -> str:
        """The prefix before '#' in JSON __type values (botocore ignores it; AWS sends one)."""
        return {
            "dynamodb": "com.amazonaws.dynamodb.v20120810",
            "stepfunctions": "com.amazonaws.swf.service.v2.model",
            "sqs": "com.amazonaws.sqs",
        }.get(self.name, "")


class Specs:
    """All service models, with lookups from X-Amz-Target prefixes and REST paths.

    `rest_prefixes` maps the first path segment of every modeled REST operation of a served service
    ('2015-03-31') to the services that use it, from each operation's `http.requestUri`: a new
    model's new path routes without a hand-kept table.
    """

    def __init__(self) -> None:
        session = botocore.session.get_session()
        loader = session.get_component("data_loader")
        self.loader = loader  # also reads the models of services onceflow does not serve (unserved.py)
        self.services: dict[str, ServiceSpec] = {}
        self.by_target_prefix: dict[str, ServiceSpec] = {}
        self.by_signing_name: dict[str, ServiceSpec] = {}
        self.rest_prefixes: dict[str, list[ServiceSpec]] = {}  # first path segment -> REST services
        self.query_compatible: dict[str, ServiceSpec] = {}  # signing name -> the query flavour of a JSON service
        for name, signing in SERVICES.items():
            model = ServiceModel(loader.load_service_model(name, "service-2"), service_name=name)
            spec = ServiceSpec(name, model, model.protocol, model.metadata.get("targetPrefix"))
            if spec.protocol == "rest-json":
                spec.routes = _rest_routes(spec)
                for segment in sorted({first_segment(op.http["requestUri"]) for op in spec.operations.values()}):
                    # A template that starts with a label ('/{Bucket}') may be any path: keyed "{".
                    self.rest_prefixes.setdefault("{" if "{" in segment else segment, []).append(spec)
            self.services[name] = spec
            if spec.target_prefix:
                self.by_target_prefix[spec.target_prefix] = spec
            self.by_signing_name.setdefault(signing, spec)  # a shared signing name stays the first service's
            self.by_signing_name[name] = spec
            if name in query_compat.NAMESPACES:  # older clients still speak its former query protocol
                data = query_compat.query_model(name, loader.load_service_model(name, "service-2"))
                self.query_compatible[signing] = ServiceSpec(name, ServiceModel(data, service_name=name), "query", None)
        # Operation models are built lazily by botocore; build them all now, off the hot path.
        for spec in [*self.services.values(), *self.query_compatible.values()]:
            _ = spec.operations, spec.json_content_type, spec.xml_namespace, spec.error_namespace


def first_segment(path: str) -> str:
    """The first segment of a path or URI template: '2015-03-31' for '/2015-03-31/functions/{F}'."""
    return path.split("?", 1)[0].split("/", 2)[1] if path.startswith("/") else ""


def _rest_routes(spec: ServiceSpec) -> list[RestRoute]:
    routes = []
    for op in spec.operations.values():
        uri = op.http["requestUri"]
        path, _, query = uri.partition("?")
        static_query = dict(p.split("=", 1) if "=" in p else (p, "") for p in query.split("&") if p)
        path = path.rstrip("/") or "/"
        pattern, labels = "", 0
        for part in re.split(r"(\{[^}]+\})", path):
            if part.startswith("{"):
                labels += 1
                label = part[1:-1]
                if label.endswith("+"):
                    pattern += f"(?P<{label[:-1]}>.+)"
                else:
                    pattern += f"(?P<{label}>[^/]+)"
            else:
                pattern += re.escape(part)
        routes.append(
            RestRoute(
                op.http.get("method", "POST"),
                re.compile(f"^{pattern}/?$"),
                static_query,
                op,
                (-len(static_query), labels),
            )
        )
    # Static query matches first, then fewer labels (more specific paths).
    routes.sort(key=lambda r: r.specificity)
    return routes
