"""DeadLetterConfig: the SQS queue or SNS topic an Event invocation's event goes to once it has
failed every attempt (or grown too old), sent as-is with the attributes Lambda adds (docs: "Dead-letter
queue message attributes"): RequestID (String), ErrorCode (Number, the HTTP status code of the
invocation: 200 for a function error) and ErrorMessage (String, the first 1 KB of the error message).

A configured OnFailure destination does not replace it: Lambda sends to both ("destinations in
addition to or instead of a dead-letter queue"). Delivery is as the execution role: when the role no
longer allows the send, or the queue / topic is gone, the event is lost with a warning in the server's
log (on AWS: deleted, with the DeadLetterErrors metric).

The SQS and SNS services are called in-process through their service-level send functions
(`send_to_arn`, `publish`), one small function each below.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from onceflow.lambda_ import errors

if TYPE_CHECKING:
    from onceflow.context import Principal
    from onceflow.ports import Ports

log = logging.getLogger("onceflow.lambda")

MAX_ERROR_MESSAGE = 1024
# The target services, the action the execution role needs and the word AWS's refusal uses.
_TARGETS = {"sqs": ("sqs:SendMessage", "SendMessage", "SQS"), "sns": ("sns:Publish", "Publish", "SNS")}


def target_of(config: dict[str, Any] | None) -> str | None:
    """The configured TargetArn; an empty one (how a caller removes the queue) is none."""
    return ((config or {}).get("TargetArn") or None) if isinstance(config, dict) else None


def check(config: dict[str, Any] | None, account: str, role_arn: str, iam: Any) -> None:
    """What CreateFunction / UpdateFunctionConfiguration verify: an SQS queue or SNS topic the
    execution role may send to (AWS checks the role's policies, not that the target exists)."""
    arn = target_of(config)
    if arn is None:
        return
    parts = arn.split(":")
    target = _TARGETS.get(parts[2]) if len(parts) >= 6 and parts[0] == "arn" else None
    if target is None:  # UNCONFIRMED wording: AWS's message for another service's ARN
        raise errors.invalid(f"The target ARN {arn} is not an SQS queue or an SNS topic.")
    action, verb, service = target
    if iam is not None and not iam.role_allows(account, role_arn, action, arn):
        raise errors.invalid(f"The provided execution role does not have permissions to call {verb} on {service}")


def unchanged_by(member: str, value: Any) -> bool:
    """An update's `DeadLetterConfig: {}` (no TargetArn) leaves the queue as it was: AWS's answer
    still names it (recorded, test_lambda_destinations test_dead_letter_queue); `TargetArn: ""` removes it."""
    return member == "DeadLetterConfig" and isinstance(value, dict) and "TargetArn" not in value


def render(config: dict[str, Any] | None) -> dict[str, str] | None:
    arn = target_of(config)
    return {"TargetArn": arn} if arn else None


def attributes(request_id: str, error_message: str | None, status: int = 200) -> dict[str, dict[str, str]]:
    out = {
        "RequestID": {"DataType": "String", "StringValue": request_id},
        "ErrorCode": {"DataType": "Number", "StringValue": str(status)},
    }
    if error_message:  # an SQS / SNS attribute may not be empty
        out["ErrorMessage"] = {"DataType": "String", "StringValue": error_message[:MAX_ERROR_MESSAGE]}
    return out


def error_message(response: bytes | None) -> str | None:
    """The errorMessage of a function error's payload (the payload itself when it is not one)."""
    if not response:
        return None
    try:
        doc = json.loads(response)
    except (ValueError, UnicodeDecodeError):
        return response.decode("utf-8", "replace")
    if isinstance(doc, dict) and isinstance(doc.get("errorMessage"), str):
        return str(doc["errorMessage"])
    return json.dumps(doc, separators=(",", ":"))


def send(
    ports: Ports, iam: Any, role_arn: str, arn: str, payload: bytes, request_id: str,
    message: str | None, status: int = 200, principal: Principal | None = None,
) -> bool:  # fmt: skip
    """Send one failed event to the dead-letter target; False (and a warning) when it is lost.
    principal: the execution role's session Lambda sends as (a queue's message names it as its sender)."""
    parts = arn.split(":")
    target = _TARGETS.get(parts[2]) if len(parts) >= 6 else None
    body = payload.decode("utf-8", "replace") or "{}"
    attrs = attributes(request_id, message, status)
    try:
        if target is None:
            raise ValueError("not an SQS queue or SNS topic")
        if iam is not None and not iam.role_allows(parts[4], role_arn, target[0], arn):
            raise PermissionError(f"the execution role may not {target[0]} on it")
        if parts[2] == "sqs":
            _send_sqs(ports, arn, body, attrs, principal)
        else:
            _publish_sns(ports, arn, body, attrs)
        return True
    except Exception as exc:  # a lost event must not take the invoker down
        log.warning("could not send the event of %s to the dead-letter target %s: %s", request_id, arn, exc)
        return False


def _send_sqs(ports: Ports, arn: str, body: str, attrs: dict[str, Any], principal: Principal | None) -> None:
    sqs = ports.queues.get()
    if sqs is None:
        raise LookupError("SQS is not served")
    sqs.send_to_arn(arn, body, attributes=attrs, principal=principal)


def _publish_sns(ports: Ports, arn: str, body: str, attrs: dict[str, Any]) -> None:
    sns = ports.topics.get()
    if sns is None:
        raise LookupError("SNS is not served")
    sns.publish(arn, {"Message": body, "MessageAttributes": attrs})
