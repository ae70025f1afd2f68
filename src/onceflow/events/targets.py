"""Targets: which service a target ARN names, what PutTargets checks, and how one delivery is made.

A delivery is an in-process call (`internal.call` / `stack.call_from_json`), so IAM decides as it
would for the same call over HTTP:
- Lambda, SQS, SNS and CloudWatch Logs are reached through their resource policies, as the service
  principal (events.amazonaws.com / scheduler.amazonaws.com).
- Step Functions, another event bus and Scheduler's universal (aws-sdk) targets are called as the
  target's RoleArn: the role must trust the service principal (AWS assumes it), and its policies
  are evaluated for the call, as for any role session.
SQS and SNS are reached through whatever serves "sqs" / "sns" on this server; a target of a
service that is not served fails its delivery (retried, then dead-lettered) with a clear message.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.stack import Stack

_ARN = re.compile(r"^arn:aws[a-z-]*:([a-z0-9-]+):([a-z0-9-]*):(\d{12})?:(.+)$")
# Scheduler's universal targets: arn:aws:scheduler:::aws-sdk:<service>:<apiAction>
_UNIVERSAL = re.compile(r"^arn:aws[a-z-]*:scheduler:::aws-sdk:([a-z0-9]+):([A-Za-z0-9]+)$")
# aws-sdk service ids -> the boto3 names onceflow registers them under.
SDK_SERVICES = {"sfn": "stepfunctions", "eventbridge": "events", "cloudwatchlogs": "logs"}
# Targets that act as the target's role (the rest are reached through resource policies).
ROLE_KINDS = frozenset({"states", "events", "universal", "api-destination"})


class DeliveryFailure(Exception):
    """A delivery that did not happen: `code` is what the target (or onceflow) answered, kept in the
    console's last result; `dead_letter_code` is AWS's ERROR_CODE for the DLQ message."""

    def __init__(self, code: str, message: str, retriable: bool, dead_letter_code: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.retriable = code, message, retriable
        self.dead_letter_code = dead_letter_code or dead_letter_code_of(code, retriable)


# AWS's ERROR_CODE values for a DLQ message (its "using dead-letter queues" page lists them), for
# the error codes targets answer. A code not here is a target's own error (ERROR_FROM_TARGET) when
# the target answered it, an INTERNAL_ERROR when it is worth retrying, else UNKNOWN.
_DEAD_LETTER_CODES = {
    "AccessDenied": "NO_PERMISSIONS", "AccessDeniedException": "NO_PERMISSIONS",
    "AuthorizationError": "NO_PERMISSIONS", "ConnectionNotAuthorized": "NO_PERMISSIONS",
    "ResourceNotFoundException": "NO_RESOURCE", "NotFound": "NO_RESOURCE", "NotFoundException": "NO_RESOURCE",
    "AWS.SimpleQueueService.NonExistentQueue": "NO_RESOURCE", "QueueDoesNotExist": "NO_RESOURCE",
    "StateMachineDoesNotExist": "NO_RESOURCE", "ServiceNotServed": "NO_RESOURCE",
    "ExecutionAlreadyExists": "RESOURCE_ALREADY_EXISTS",
    "NoRole": "FAILED_TO_ASSUME_ROLE",
    "InvalidInput": "INVALID_JSON", "InvalidArn": "INVALID_PARAMETER", "InvalidParameter": "INVALID_PARAMETER",
    "InvalidParameterValue": "INVALID_PARAMETER", "ValidationException": "INVALID_PARAMETER",
    "InvalidParameterValueException": "INVALID_PARAMETER", "InvalidRequestContentException": "INVALID_PARAMETER",
    "RequestEntityTooLargeException": "INVALID_PARAMETER", "UnsupportedTarget": "INVALID_PARAMETER",
    "EndpointNotAllowed": "INVALID_PARAMETER", "UnsupportedAuthorization": "INVALID_PARAMETER",
    "TooManyRequestsException": "THROTTLING", "ThrottlingException": "THROTTLING", "Throttling": "THROTTLING",
    "ThrottledException": "THROTTLING", "HTTP429": "THROTTLING",
    "ConnectionFailed": "CONNECTION_FAILURE", "Timeout": "TIMEOUT",
    "InternalException": "INTERNAL_ERROR", "ServiceException": "INTERNAL_ERROR",
}


def dead_letter_code_of(code: str, retriable: bool) -> str:
    if code in _DEAD_LETTER_CODES:
        return _DEAD_LETTER_CODES[code]
    if code.startswith("HTTP"):  # an API destination's endpoint answered an error status
        return "ERROR_FROM_TARGET"
    if "Throttl" in code or code.endswith("LimitExceeded") or code.endswith("LimitExceededException"):
        return "THROTTLING" if "Throttl" in code else "RESOURCE_LIMIT_EXCEEDED"
    return "INTERNAL_ERROR" if retriable else "UNKNOWN"


@dataclass(frozen=True)
class TargetArn:
    kind: str  # lambda | states | sqs | sns | events | logs | universal | other
    service: str
    region: str
    account: str
    resource: str


def parse_target_arn(arn: str) -> TargetArn | None:
    if m := _UNIVERSAL.match(arn):
        return TargetArn("universal", SDK_SERVICES.get(m.group(1), m.group(1)), "", "", m.group(2))
    m = _ARN.match(arn)
    if m is None:
        return None
    service, region, account, resource = m.groups()
    kind = {
        "lambda": "lambda" if resource.startswith("function:") else "other",
        "states": "states" if resource.startswith("stateMachine:") else "other",
        "sqs": "sqs", "sns": "sns",
        "events": "events" if resource.startswith("event-bus/") else
        "api-destination" if resource.startswith("api-destination/") else "other",
        "logs": "logs" if resource.startswith("log-group:") else "other",
    }.get(service, "other")
    return TargetArn(kind, service, region, account or "", resource)


def service_principal(account: str, service: str) -> Principal:
    return Principal(account, "service", service, service)


def role_principal(role_arn: str, session: str) -> Principal:
    account = role_arn.split(":")[4] if role_arn.count(":") >= 5 else ""
    name = role_arn.rsplit("/", 1)[-1]
    parts = role_arn.split(":")
    # the session is in the role's partition
    arn = f"arn:{parts[1] if len(parts) > 1 else 'aws'}:sts::{account}:assumed-role/{name}/{session}"
    return Principal(account, "assumed-role", arn, session, role_arn=role_arn, session_name=session)


def _assume(stack: Stack, account: str, role_arn: str | None, service: str) -> Principal:
    if not role_arn:
        raise DeliveryFailure("NoRole", "the target needs a RoleArn", False)
    iam = stack.ports.roles.get()
    if iam is not None and not iam.role_trusts(account, role_arn, ("Service", service)):
        raise DeliveryFailure("AccessDenied", f"{service} is not authorized to assume the role {role_arn}", False,
                              "FAILED_TO_ASSUME_ROLE")
    return role_principal(role_arn, uuid.uuid4().hex[:32])


def _served(stack: Stack, service: str, operation: str) -> None:
    if stack.registry.get(service, operation) is None:
        raise DeliveryFailure("ServiceNotServed", f"onceflow does not serve {service} on this server, "
                              f"so the target's {operation} cannot be made", True)


def _call(stack: Stack, principal: Principal, service: str, operation: str, params: dict[str, Any],
          region: str) -> dict[str, Any]:
    _served(stack, service, operation)
    try:
        return internal.call(stack, principal, service, operation, params, region=region)
    except ServiceError as e:
        # Throttling and the service's own faults are worth retrying; a client error (no such
        # function, access denied) will not heal by itself, and AWS gives up on it at once.
        retriable = e.status >= 500 or e.status == 429 or "Throttl" in e.code or e.code == "TooManyRequestsException"
        raise DeliveryFailure(e.code, e.message, retriable) from None


def deliver(stack: Stack, job: dict[str, Any]) -> dict[str, Any]:
    """Make one delivery; returns what the target answered; raises DeliveryFailure."""
    target = job["target"]
    arn = target["Arn"]
    parsed = parse_target_arn(arn)
    if parsed is None:
        raise DeliveryFailure("InvalidArn", f"{arn} is not a target ARN", False)
    account, region = job["account"], parsed.region or job["region"]
    principal_name = job.get("principal_service", "events.amazonaws.com")
    body: str = job["input"]
    # A rule reaches Lambda, SQS and SNS through their resource policies; a schedule always acts as its role.
    if job.get("origin") == "schedule":
        direct = _assume(stack, account, target.get("RoleArn"), principal_name)
    else:
        direct = service_principal(account, principal_name)
    if parsed.kind == "lambda":
        if direct.kind == "service":
            _function_policy_lets(stack, direct, arn, job.get("rule_arn"))
        return _call(stack, direct, "lambda", "Invoke",
                     {"FunctionName": arn, "InvocationType": "Event", "Payload": body.encode()}, region)
    if parsed.kind == "states":
        principal = _assume(stack, account, target.get("RoleArn"), principal_name)
        return _call(stack, principal, "stepfunctions", "StartExecution",
                     {"stateMachineArn": arn, "input": body}, region)
    if parsed.kind == "sqs":
        # No deduplication id is sent: a FIFO queue target must have content-based deduplication
        # (Target's SqsParameters, EventBridge's API reference); one without it refuses the message.
        return send_to_queue(stack, direct, arn, body,
                             (target.get("SqsParameters") or {}).get("MessageGroupId"),
                             source_arn=job.get("rule_arn"))
    if parsed.kind == "sns":
        if direct.kind == "service" and job.get("rule_arn"):
            _policy_lets(stack.ports.topics().service_may_publish, direct, arn, job["rule_arn"])
        return _call(stack, direct, "sns", "Publish",
                     {"TopicArn": arn, "Message": body}, region)
    if parsed.kind == "events":
        if target.get("RoleArn"):
            _assume(stack, account, target["RoleArn"], principal_name)
        bus = parsed.resource.split("/", 1)[1]
        events = stack.services["events"]
        event = job["event"] if job.get("origin") == "rule" else _bus_event(job, target, body)
        return events.forward(parsed.account or account, region, bus, event, job.get("hops", 0),
                              source_account=account)
    if parsed.kind == "api-destination":
        return _http(stack, job, target, arn, body, principal_name)
    if parsed.kind == "logs":
        group = parsed.resource.split(":", 1)[1].removesuffix(":*")
        stack.ports.logs().append(parsed.account or account, region, group, job["event"].get("id", "events"),
                                  [(int(job["first"] * 1000), body)])
        return {}
    if parsed.kind == "universal":
        principal = _assume(stack, account, target.get("RoleArn"), principal_name)
        operation = parsed.resource[0].upper() + parsed.resource[1:]
        _served(stack, parsed.service, operation)
        try:
            params = json.loads(body) if body.strip() else {}
        except ValueError:
            raise DeliveryFailure("InvalidInput", "the target's Input is not JSON", False) from None
        caller = stack.call_from_json
        try:
            if caller is not None:
                return caller(principal, parsed.service, operation, params, region=job["region"])
            return internal.call(stack, principal, parsed.service, operation, params, region=job["region"])
        except ServiceError as e:
            raise DeliveryFailure(e.code, e.message, e.status >= 500) from None
    raise DeliveryFailure("UnsupportedTarget", f"onceflow does not deliver to {arn}", False)


def _http(stack: Stack, job: dict[str, Any], target: dict[str, Any], arn: str, body: str,
          principal_name: str) -> dict[str, Any]:
    from onceflow.events.destinations import HttpFailure, send

    account = job["account"]
    role = target.get("RoleArn")
    _assume(stack, account, role, principal_name)
    iam = stack.ports.roles.get()
    if iam is not None and role and not iam.role_allows(account, role, "events:InvokeApiDestination", arn):
        raise DeliveryFailure("AccessDeniedException", f"the role {role} is not authorized to perform: "
                              f"events:InvokeApiDestination on resource: {arn}", False)
    try:
        dest, connection = stack.services["events"].destinations.resolve((account, job["region"]), arn)
        return send(dest, connection, target, body)
    except HttpFailure as e:
        raise DeliveryFailure(e.code, e.message, e.retriable) from None


def _bus_event(job: dict[str, Any], target: dict[str, Any], body: str) -> dict[str, Any]:
    """An event a schedule puts on a bus (Scheduler's EventBridgeParameters)."""
    params = target.get("EventBridgeParameters") or {}
    try:
        detail = json.loads(body) if body.strip() else {}
    except ValueError:
        detail = {}
    return {**job["event"], "detail-type": params.get("DetailType", "Scheduled Event"),
            "source": params.get("Source", "aws.scheduler"), "detail": detail if isinstance(detail, dict) else {}}


def _policy_lets(check: Callable[[str, str, str | None, str | None], bool | None], principal: Principal, arn: str,
                 source_arn: str) -> None:
    """A rule reaches a queue or topic as events.amazonaws.com: only when the resource's policy lets
    it (for events from this rule); AWS counts a refused delivery as failed (retries, then the DLQ)."""
    allowed = check(arn, principal.arn, source_arn, principal.account)
    if allowed is False:
        raise DeliveryFailure("AccessDenied", f"the resource policy of {arn} does not allow {principal.arn} to "
                              f"deliver events from {source_arn}", False)


def _function_policy_lets(stack: Stack, principal: Principal, arn: str, source_arn: str | None) -> None:
    """A rule invokes a function as events.amazonaws.com: only when the function's resource policy
    (AddPermission) lets it, for events from this rule. A refusal is not retried (AWS sends it
    straight to the target's DLQ); a function that does not exist is left to Invoke to answer."""
    functions = stack.ports.functions.get()
    if functions is not None and functions.may_invoke(principal.account, arn, principal.arn,
                                                      source_arn=source_arn) is False:
        raise DeliveryFailure("AccessDeniedException", f"the resource policy of {arn} does not allow "
                              f"{principal.arn} to invoke it for events from {source_arn}", False)


def send_to_queue(stack: Stack, principal: Principal, queue_arn: str, body: str, group_id: str | None = None,
                  attributes: dict[str, Any] | None = None, dedup_id: str | None = None,
                  source_arn: str | None = None) -> dict[str, Any]:
    """Send as `principal`; a service principal sending for `source_arn` (a rule) needs the queue policy."""
    parsed = parse_target_arn(queue_arn)
    if parsed is None or parsed.kind != "sqs":
        raise DeliveryFailure("InvalidArn", f"{queue_arn} is not a queue ARN", False)
    _served(stack, "sqs", "SendMessage")
    if principal.kind == "service" and source_arn:
        _policy_lets(stack.ports.queues().service_may_send, principal, queue_arn, source_arn)
    url = _call(stack, principal, "sqs", "GetQueueUrl",
                {"QueueName": parsed.resource, "QueueOwnerAWSAccountId": parsed.account}, parsed.region)["QueueUrl"]
    params: dict[str, Any] = {"QueueUrl": url, "MessageBody": body}
    if group_id:
        params["MessageGroupId"] = group_id
    if dedup_id:
        params["MessageDeduplicationId"] = dedup_id
    if attributes:
        params["MessageAttributes"] = attributes
    return _call(stack, principal, "sqs", "SendMessage", params, parsed.region)
