"""Task `Resource` values: which ARNs Step Functions recognizes, and how they split up.

Optimized integrations are `arn:aws:states:::<service>:<action>[.sync[:2]|.waitForTaskToken]`;
SDK integrations `arn:aws:states:::aws-sdk:<service>:<action>`; plus Lambda function ARNs and
activity ARNs. An optimized integration AWS does not offer (e.g. `dynamodb:query`, which exists
only through aws-sdk) is rejected at creation [AWS], and so is an aws-sdk service name that
botocore's models do not give (sfn/sdk_services.py; UNCONFIRMED for aws-sdk).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_PATTERN_SUFFIXES = (".waitForTaskToken", ".sync:2", ".sync")
# Optimized integrations with a fixed action list; services in _ANY_ACTION accept any action name.
_OPTIMIZED = {
    "lambda": {"invoke"},
    "dynamodb": {"getItem", "putItem", "updateItem", "deleteItem"},
    "sns": {"publish"},
    "sqs": {"sendMessage"},
    "states": {"startExecution"},
    "events": {"putEvents"},
    "ecs": {"runTask"},
    "batch": {"submitJob"},
    "glue": {"startJobRun"},
    "databrew": {"startJobRun"},
    "apigateway": {"invoke"},
    "http": {"invoke"},
    "mediaconvert": {"createJob"},
    "bedrock": {"invokeModel", "createModelCustomizationJob"},
    "athena": {"startQueryExecution", "stopQueryExecution", "getQueryExecution", "getQueryResults"},
}
_ANY_ACTION = {"sagemaker", "elasticmapreduce", "emr-containers", "emr-serverless", "eks", "codebuild"}
_LAMBDA_ARN = re.compile(r"arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9$_-]+)?")
_ACTIVITY_ARN = re.compile(r"arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:activity:[^:]+")
_SERVICE_ARN = re.compile(r"arn:aws[a-z-]*:states:::(?P<service>[A-Za-z0-9-]+):(?P<rest>.+)")


@dataclass(frozen=True)
class Resource:
    kind: str  # optimized | sdk | lambda_function | activity
    service: str = ""  # lambda, dynamodb, ... (for aws-sdk: the SDK service name)
    action: str = ""  # invoke, putItem, ...
    pattern: str = ""  # "" (request-response), ".sync", ".sync:2" or ".waitForTaskToken"
    arn: str = ""


def parse_resource(arn: object) -> Resource | None:
    """Split a Task Resource; None when Step Functions would not recognize it."""
    if not isinstance(arn, str):
        return None
    if _LAMBDA_ARN.fullmatch(arn):
        return Resource("lambda_function", "lambda", "invoke", "", arn)
    if _ACTIVITY_ARN.fullmatch(arn):
        return Resource("activity", arn=arn)
    m = _SERVICE_ARN.fullmatch(arn)
    if not m:
        return None
    rest, pattern = m.group("rest"), ""
    for suffix in _PATTERN_SUFFIXES:
        if rest.endswith(suffix):
            rest, pattern = rest[: -len(suffix)], suffix
            break
    if m.group("service") == "aws-sdk":
        service, _, action = rest.partition(":")
        if not service or not action or pattern.startswith(".sync"):
            return None
        return Resource("sdk", service, action, pattern, arn)
    service, action = m.group("service"), rest
    if service in _ANY_ACTION or action in _OPTIMIZED.get(service, ()):
        return Resource("optimized", service, action, pattern, arn)
    return None


def _any_service(service: str) -> bool:
    return True


# Which aws-sdk service names exist comes from botocore's models, which a pure core may not read: the
# service layer installs the check (sfn/sdk_services.py, from SfnService); until then every name passes.
_sdk_service_known: Callable[[str], bool] = _any_service


def check_sdk_services_with(known: Callable[[str], bool]) -> None:
    global _sdk_service_known
    _sdk_service_known = known


def resource_problem(arn: object, express: bool) -> str | None:
    """The schema message for a Resource AWS rejects at creation, or None."""
    res = parse_resource(arn) if isinstance(arn, str) else None
    if res is None or (res.kind == "sdk" and not _sdk_service_known(res.service)):
        return (f"The resource provided {arn} is not recognized. The value is not a valid resource ARN, "
                f"or the resource is not available in this region.")
    if express and res.kind == "activity":
        # [AWS] test_sfn_api_express.snapshot.json, test_illegal_activity_task
        return "Express state machine does not support Activity ARN"
    if express and res.pattern == ".waitForTaskToken":
        # [AWS] the message ends with a space, so the joined text reads "integration  at /States/..."
        return "Express state machine does not support '.waitForTaskToken' service integration "
    if express and res.pattern.startswith(".sync"):
        # [AWS] without the space: "integration at /States/..." (test_sfn_api_express.snapshot.json,
        # test_illegal_callbacks[SYNC]; '.sync:2' named '.sync' alike, UNCONFIRMED)
        return "Express state machine does not support '.sync' service integration"
    return None
