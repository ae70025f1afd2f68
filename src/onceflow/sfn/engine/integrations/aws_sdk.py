"""`arn:aws:states:::aws-sdk:<service>:<action>` for the services onceflow implements.

The parameters are the API's request members, the result its response members. Errors surface
as `<Service>.<Code>` (AWS SDK v2 style names) with the SDK's cause format.
"""

from __future__ import annotations

import uuid
from functools import lru_cache
from typing import Any

from onceflow.awsmodels import model as awsmodel
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations import lambda_invoke, s3_sdk
from onceflow.sfn.engine.integrations.calls import call_service, handed_over
from onceflow.stack import Stack

# aws-sdk service id -> (onceflow/boto3 service name, error prefix)
SERVICES = {
    "dynamodb": ("dynamodb", "DynamoDb"),
    "lambda": ("lambda", "Lambda"),
    "iam": ("iam", "Iam"),
    "sts": ("sts", "Sts"),
    "cloudwatchlogs": ("logs", "CloudWatchLogs"),
    "sfn": ("stepfunctions", "Sfn"),
    "eventbridge": ("events", "EventBridge"),
    "sqs": ("sqs", "Sqs"),
    "sns": ("sns", "Sns"),
    "s3": ("s3", "S3"),
}


@lru_cache(maxsize=16)
def _modeled_errors(service: str) -> frozenset[str]:
    return frozenset(shape.name for shape in awsmodel.load(service).error_shapes)


def call(stack: Stack, principal: Principal, region: str, service: str, action: str, params: Any) -> Any:
    if service not in SERVICES:
        raise StatesError("States.Runtime", f"The aws-sdk service '{service}' is not supported by onceflow")
    target, prefix = SERVICES[service]
    operation = action[0].upper() + action[1:]
    try:
        if target == "lambda" and operation == "Invoke" and lambda_invoke.synchronous(params):
            with lambda_invoke.watched_dispatch():  # handed over when a worker gets it
                return call_service(stack, principal, region, target, operation, params)
        handed_over()
        if target == "s3":  # bodies as text, errors as the Java SDK names them (integrations/s3_sdk.py)
            return s3_sdk.call(stack, principal, region, operation, params, _modeled_errors("s3"))
        return call_service(stack, principal, region, target, operation, params)
    except ServiceError as e:
        # Errors the service's model declares keep their name; others surface as the SDK's base
        # exception of the service (as Lambda's AccessDenied does for lambda:invoke).
        code = e.code if e.code in _modeled_errors(target) else f"{prefix}Exception"
        raise StatesError(
            f"{prefix}.{code}",
            f"{e.message} (Service: {prefix}, Status Code: {e.status}, Request ID: {uuid.uuid4()})",
        ) from None
