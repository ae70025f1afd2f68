"""What a fault may claim, from the AWS models botocore ships (onceflow.awsmodels): the services
onceflow serves (by boto3 name or signing name), their operations, and the errors each operation
can return - the ones its model lists plus the generic ones AWS returns for every operation of a
service - with the HTTP status and the message AWS uses for each."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from onceflow.awsmodels import model as awsmodel
from onceflow.awsmodels.model import ServiceModel, Shape

SERVED = ("dynamodb", "lambda", "stepfunctions", "logs", "iam", "sts", "sqs", "sns", "s3")

# (status, message) AWS answers for codes every operation of any service may return.
_COMMON: dict[str, tuple[int, str]] = {
    "InternalFailure": (500, "The request processing has failed because of an unknown error, exception or failure."),
    "ServiceUnavailable": (503, "Service Unavailable"),
    "ThrottlingException": (400, "Rate exceeded"),
}
# Each service's own names for the same failures (throttled, internal error, unavailable).
_GENERIC: dict[str, dict[str, tuple[int, str]]] = {
    "dynamodb": {
        "ProvisionedThroughputExceededException": (
            400, "The level of configured provisioned throughput for the table was exceeded. Consider increasing "
                 "your provisioning level with the UpdateTable API."),
        "ThrottlingException": (400, "Rate of requests exceeds the allowed throughput."),
        "RequestLimitExceeded": (
            400, "Throughput exceeds the current throughput limit for your account. Please contact AWS Support at "
                 "https://aws.amazon.com/support request a limit increase"),
        "InternalServerError": (500, "Internal server error"),
    },
    "lambda": {
        "ServiceException": (500, "The Lambda service encountered an internal error."),
        "TooManyRequestsException": (429, "Rate Exceeded."),
    },
    "stepfunctions": {},
    "logs": {
        "ServiceUnavailableException": (500, "The service cannot complete the request."),
        "ThrottlingException": (400, "Rate exceeded"),
    },
    "iam": {"ServiceFailure": (500, "The request processing has failed because of an unknown error, exception "
                                    "or failure."), "Throttling": (400, "Rate exceeded")},
    "sts": {"Throttling": (400, "Rate exceeded")},
    "sqs": {"RequestThrottled": (400, "Request is throttled.")},
    "sns": {"InternalError": (500, "Internal Error"), "Throttled": (429, "Rate exceeded")},
    "s3": {"InternalError": (500, "We encountered an internal error. Please try again."),
           "SlowDown": (503, "Please reduce your request rate."),
           "ServiceUnavailable": (503, "Please reduce your request rate.")},
}
# Messages AWS sends for modeled errors a fault is likely to name (others: the model's summary).
_MESSAGES: dict[tuple[str, str], str] = {
    ("dynamodb", "ConditionalCheckFailedException"): "The conditional request failed",
    ("dynamodb", "TransactionConflictException"): "Transaction is ongoing for the item",
    ("lambda", "ResourceNotFoundException"): "Function not found",
}
# Lambda error members: these shapes spell their message member `Message`, the others `message`.
_LAMBDA_CAPITAL = {"ResourceNotFoundException", "ServiceException"}


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    code: str  # the wire code (query protocol: the shape's `error.code`)
    status: int
    message: str


@cache
def _model(service: str) -> ServiceModel:
    return awsmodel.load(service)


@lru_cache(maxsize=1)
def _aliases() -> dict[str, str]:
    names = {name: name for name in SERVED}
    for name in SERVED:
        names[_model(name).signing_name] = name  # states -> stepfunctions
    return names


def service_name(name: str) -> str | None:
    """The boto3 name for a boto3 or signing name onceflow serves, else None."""
    return _aliases().get(name)


def operations(service: str) -> frozenset[str]:
    return frozenset(_model(service).operation_names)


def _summary(shape: Shape) -> str:
    text = re.sub(r"<[^>]+>", "", shape.documentation or "").strip()
    first = re.split(r"(?<=\.)\s", text, maxsplit=1)[0] if text else ""
    return first or shape.name


@cache
def errors(service: str, operation: str | None) -> dict[str, ErrorSpec]:
    """Every error `operation` (None: any operation) can return, by wire code and shape name."""
    out: dict[str, ErrorSpec] = {}
    for code, (status, message) in {**_COMMON, **_GENERIC[service]}.items():
        out[code] = ErrorSpec(code, status, message)
    model = _model(service)
    names = [operation] if operation else model.operation_names
    for name in names:
        for shape in model.operation_model(name).error_shapes:
            meta = shape.metadata.get("error") or {}
            code = meta.get("code", shape.name)
            if code in out or shape.name in out:
                continue
            status = int(meta.get("httpStatusCode", 400))
            spec = ErrorSpec(code, status, _MESSAGES.get((service, code)) or _summary(shape))
            out[code] = out[shape.name] = spec
    return out


def message_extra(service: str, code: str, message: str) -> dict[str, Any]:
    """Members beside the message that AWS puts in the body (Lambda's `Type`, its `Reason`)."""
    if service != "lambda":
        return {}
    extra: dict[str, Any] = {"Type": "Service" if code == "ServiceException" else "User",
                             "Message" if code in _LAMBDA_CAPITAL else "message": message}
    if code == "TooManyRequestsException":
        extra["Reason"] = "CallerRateLimitExceeded"
    return extra
