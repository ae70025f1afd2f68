"""The AWS service models (botocore's JSON, read by onceflow.awsmodels), each loaded when its
service's first request needs it.

Routing needs a few facts about every served service at once (protocol, X-Amz-Target prefix, the
first path segments of its REST operations); reading and building every model for them costs most
of a second, so they come from a small index cached per botocore version (wire/spec_index.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from onceflow.awsmodels import files
from onceflow.awsmodels.model import OperationModel, ServiceModel
from onceflow.wire import query_compat, spec_index

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


class ServiceSpec:
    """One service's model and the facts derived from it. `model` may be a function that loads it:
    then it is loaded on first use, and the routing facts given here are trusted until then."""

    def __init__(self, name: str, model: ServiceModel | Callable[[], ServiceModel], protocol: str,
                 target_prefix: str | None) -> None:
        self.name = name  # boto3 name
        self.protocol = protocol
        self.target_prefix = target_prefix
        if callable(model):
            self._load = model
        else:
            self.__dict__["model"] = model

    @cached_property
    def model(self) -> ServiceModel:
        return self._load()

    @cached_property
    def routes(self) -> list[RestRoute]:
        return _rest_routes(self) if self.protocol == "rest-json" else []

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
        self.services: dict[str, ServiceSpec] = {}
        self.by_target_prefix: dict[str, ServiceSpec] = {}
        self.by_signing_name: dict[str, ServiceSpec] = {}
        self.rest_prefixes: dict[str, list[ServiceSpec]] = {}  # first path segment -> REST services
        self.query_compatible: dict[str, ServiceSpec] = {}  # signing name -> the query flavour of a JSON service
        index = spec_index.load(lambda: self.loader, list(SERVICES), first_segment)
        for name, signing in SERVICES.items():
            facts = index[name]
            spec = ServiceSpec(name, self._model_loader(name), facts["protocol"], facts["target_prefix"])
            for segment in facts["segments"]:
                # A template that starts with a label ('/{Bucket}') may be any path: keyed "{".
                self.rest_prefixes.setdefault("{" if "{" in segment else segment, []).append(spec)
            self.services[name] = spec
            if spec.target_prefix:
                self.by_target_prefix[spec.target_prefix] = spec
            self.by_signing_name.setdefault(signing, spec)  # a shared signing name stays the first service's
            self.by_signing_name[name] = spec
            if name in query_compat.NAMESPACES:  # older clients still speak its former query protocol
                self.query_compatible[signing] = ServiceSpec(name, self._query_model_loader(name), "query", None)

    @cached_property
    def loader(self) -> files.ModelFiles:
        """The model files (AWS_DATA_PATH's folders first, as botocore's loader has them); they also hold
        the models of services onceflow does not serve (unserved.py). No botocore import: that was a
        fifth of the server's start-up."""
        return files.default()

    def _model_loader(self, name: str) -> Callable[[], ServiceModel]:
        def load() -> ServiceModel:
            return ServiceModel(self.loader.load_service_model(name), service_name=name)
        return load

    def _query_model_loader(self, name: str) -> Callable[[], ServiceModel]:
        def load() -> ServiceModel:
            return ServiceModel(query_compat.query_model(name, self.loader.load_service_model(name)), service_name=name)
        return load


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
