"""Where an Event invocation's outcome goes (EventInvokeConfig's OnSuccess / OnFailure): the
invocation record Lambda sends, delivered to SQS, SNS, EventBridge or another function through
internal.call as the function's execution role (the services authorize it as on AWS).

A destination whose service onceflow does not serve, or that refuses, loses the record, with a
warning in the server's log: on AWS too a failed delivery is not retried forever.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from onceflow.context import Principal
from onceflow.lambda_.names import role_session_name

log = logging.getLogger("onceflow.lambda")

# (principal, service, operation, params, region) -> result: internal.call bound to the stack
Call = Callable[[Principal, str, str, dict[str, Any], str], dict[str, Any]]


def record(
    *, request_id: str, function_arn: str, condition: str, attempts: int, payload: bytes,
    executed_version: str | None, ok: bool, response: bytes | None,
) -> dict[str, Any]:  # fmt: skip
    """The invocation record (docs: "Capturing records of Lambda asynchronous invocations")."""
    now = datetime.now(UTC)
    out: dict[str, Any] = {
        "version": "1.0",
        "timestamp": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
        "requestContext": {
            "requestId": request_id,
            "functionArn": function_arn,
            "condition": condition,
            "approximateInvokeCount": attempts,
        },
        # An empty payload is the event {} (what the function ran with, and the dead-letter body);
        # recorded on AWS for an event throttled by zero reserved concurrency.
        "requestPayload": _json_or_text(payload or b"{}"),
    }
    if executed_version is not None:  # the function ran (not when the event expired unrun)
        context: dict[str, Any] = {"statusCode": 200, "executedVersion": executed_version}
        if not ok:
            context["functionError"] = "Unhandled"
        out["responseContext"] = context
        out["responsePayload"] = _json_or_text(response or b"")
    return out


def role_principal(role_arn: str, function_name: str) -> Principal:
    """The execution role's session Lambda delivers with (named after the function)."""
    account = role_arn.split(":")[4]
    session = role_session_name(function_name)
    return Principal(
        account=account, kind="assumed-role", name=session, role_arn=role_arn, session_name=session,
        arn=f"arn:{role_arn.split(':')[1]}:sts::{account}:assumed-role/{role_arn.rsplit('/', 1)[-1]}/{session}",
    )  # fmt: skip


def deliver(
    call: Call, principal: Principal, destination: str, doc: dict[str, Any], success: bool,
    queue_url: Callable[[str, str], str] | None = None,
) -> None:  # fmt: skip
    """queue_url: (account, name) -> the queue's URL, found without a GetQueueUrl call as the role
    (AWS asks the execution role for sqs:SendMessage only)."""
    parts = destination.split(":")
    service, region, account = parts[2], parts[3], parts[4]
    body = json.dumps(doc, separators=(",", ":"))
    try:
        if service == "lambda":
            params = {"FunctionName": destination, "InvocationType": "Event", "Payload": body.encode()}
            call(principal, "lambda", "Invoke", params, region)
        elif service == "sqs":
            name = parts[5]
            if queue_url is not None:
                url = queue_url(account, name)
            else:
                url = call(principal, "sqs", "GetQueueUrl", {"QueueName": name, "QueueOwnerAWSAccountId": account},
                           region)["QueueUrl"]  # fmt: skip
            # Lambda's message carries the invocation's X-Ray trace (recorded: test_reserved_concurrency's
            # record has an AWSTraceHeader attribute)
            trace = {"AWSTraceHeader": {"DataType": "String", "StringValue": trace_header()}}
            call(principal, "sqs", "SendMessage", {"QueueUrl": url, "MessageBody": body,
                                                   "MessageSystemAttributes": trace}, region)  # fmt: skip
        elif service == "sns":
            call(principal, "sns", "Publish", {"TopicArn": destination, "Message": body}, region)
        elif service == "events":
            kind = "Success" if success else "Failure"
            entry = {
                "Source": "lambda", "DetailType": f"Lambda Function Invocation Result - {kind}", "Detail": body,
                "EventBusName": destination, "Resources": [],
            }  # fmt: skip
            call(principal, "events", "PutEvents", {"Entries": [entry]}, region)
        else:
            log.warning("no destination service for %s", destination)
    except Exception as exc:  # a lost record must not take the invoker down
        digest = hashlib.sha256(body.encode()).hexdigest()[:12]
        log.warning("could not deliver the invocation record %s to %s: %s", digest, destination, exc)


def trace_header() -> str:
    """An X-Ray trace header, not sampled, as Lambda makes one for an invocation given none."""
    return f"Root=1-{int(time.time()):08x}-{os.urandom(12).hex()};Parent={os.urandom(8).hex()};Sampled=0"


def _json_or_text(data: bytes) -> Any:
    try:
        return json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError):
        return data.decode("utf-8", "replace")
