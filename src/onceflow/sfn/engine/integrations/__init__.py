"""Task resources: which integration a Resource ARN names, and how its call is made.

Every call goes through `onceflow.internal.call` as the state machine's role (an assumed-role
session), so IAM decides exactly as it would for that role's own API calls.

A resource AWS accepts but onceflow does not run (SQS, SNS, EventBridge, `states:startExecution`,
activities, aws-sdk services onceflow does not serve, ...) resolves to an `unsupported`
integration: the definition is accepted, the server log says so once, and the task fails with
States.TaskFailed and a cause naming the resource (`UNSUPPORTED_ERROR`), which Catch and Retry
can match like any task failure.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from onceflow.context import Principal

if TYPE_CHECKING:
    from onceflow.sfn.engine.runner import Runtime

_LAMBDA_ARN = re.compile(r"^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:[A-Za-z0-9_-]+(:[A-Za-z0-9_$-]+)?$")
_SERVICE = re.compile(r"^arn:aws[a-z-]*:states:::([a-z0-9-]+):([A-Za-z0-9]+)(\.waitForTaskToken|\.sync(:2)?)?$")
_SDK = re.compile(r"^arn:aws[a-z-]*:states:::aws-sdk:([a-z0-9]+):([A-Za-z0-9]+)(\.waitForTaskToken)?$")

OPTIMIZED = {
    "lambda": {"invoke"},
    "dynamodb": {"putItem", "getItem", "updateItem", "deleteItem"},
    "sqs": {"sendMessage"},  # messaging.py
    "sns": {"publish"},
}
UNSUPPORTED_ERROR = "States.TaskFailed"
log = logging.getLogger("onceflow.sfn")


@dataclass(frozen=True)
class Integration:
    resource_type: str  # "lambda", "dynamodb", "aws-sdk:dynamodb" (empty for bare Lambda ARNs)
    resource: str  # "invoke", "putItem", the function ARN for bare Lambda
    kind: str  # lambda_invoke | bare_lambda | dynamodb | aws_sdk | unsupported
    action: str
    wait_for_token: bool = False
    arn: str = ""  # the Resource as the definition names it

    @property
    def bare_lambda(self) -> bool:
        return self.kind == "bare_lambda"

    @property
    def supported(self) -> bool:
        return self.kind != "unsupported"

    @property
    def unsupported_cause(self) -> str:
        from onceflow.sfn.engine.integrations.aws_sdk import SERVICES

        return (f"onceflow does not run the Task resource '{self.arn}'. It runs Lambda functions "
                "(function ARNs, lambda:invoke), dynamodb:getItem/putItem/updateItem/deleteItem and aws-sdk "
                f"calls to {', '.join(SERVICES)}.")

    def make_call(self, rt: Runtime, params: Any) -> Callable[[], Any]:
        from onceflow.sfn.engine.integrations import aws_sdk, dynamodb, lambda_invoke, messaging

        principal = role_principal(rt)
        stack, region = rt.engine.stack, rt.region
        if self.kind == "bare_lambda":
            return lambda: lambda_invoke.invoke_bare(stack, principal, region, self.resource, params)
        if self.kind == "lambda_invoke":
            return lambda: lambda_invoke.invoke_optimized(stack, principal, region, params)
        if self.kind == "dynamodb":
            return lambda: dynamodb.call(stack, principal, region, self.action, params)
        if self.kind in messaging.SERVICES:
            return lambda: messaging.call(stack, principal, region, self.kind, self.action, params)
        return lambda: aws_sdk.call(stack, principal, region, self.resource_type.split(":", 1)[1], self.action,
                                    params)


def resolve_integration(resource: str) -> Integration:
    from onceflow.sfn.engine.integrations.aws_sdk import SERVICES

    if _LAMBDA_ARN.match(resource):
        return Integration("", resource, "bare_lambda", "invoke", arn=resource)
    m = _SDK.match(resource)
    if m:
        suffix = m.group(3) or ""
        kind = "aws_sdk" if m.group(1) in SERVICES else "unsupported"
        return Integration(f"aws-sdk:{m.group(1)}", m.group(2) + suffix, kind, m.group(2), bool(suffix), resource)
    m = _SERVICE.match(resource)
    if m and m.group(2) in OPTIMIZED.get(m.group(1), ()):
        suffix = m.group(3) or ""
        kind = "lambda_invoke" if m.group(1) == "lambda" else m.group(1)
        return Integration(m.group(1), m.group(2) + suffix, kind, m.group(2), suffix == ".waitForTaskToken",
                           resource)
    return _unsupported(resource)


def _unsupported(resource: str) -> Integration:
    """How the events name a resource onceflow does not run (as AWS names it: service and action)."""
    from onceflow.sfn.asl.resources import parse_resource

    res = parse_resource(resource)
    if res is None or res.kind == "activity":
        return Integration("activity" if res else "", resource, "unsupported", "", arn=resource)
    service = f"aws-sdk:{res.service}" if res.kind == "sdk" else res.service
    return Integration(service, res.action + res.pattern, "unsupported", res.action, arn=resource)


def is_supported(resource: Any) -> bool:
    return isinstance(resource, str) and resolve_integration(resource).supported


_logged: set[str] = set()
_logged_lock = threading.Lock()


def log_unsupported(machine_arn: str, definition: Any) -> None:
    """Say once per resource, in the server log, that tasks naming it will fail."""
    for resource in sorted(set(_task_resources(definition))):
        if is_supported(resource):
            continue
        with _logged_lock:
            if resource in _logged:
                continue
            _logged.add(resource)
        log.warning("state machine %s names the Task resource %s, which onceflow does not run: "
                    "its tasks will fail with %s", machine_arn, resource, UNSUPPORTED_ERROR)


def _task_resources(node: Any) -> list[str]:
    """Every Task's Resource in a definition (an explicit stack: nesting depth is the user's)."""
    out: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("Type") == "Task" and isinstance(item.get("Resource"), str):
                out.append(item["Resource"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out


def role_principal(rt: Runtime) -> Principal:
    """The state machine's role as an assumed-role session named like AWS's (32 letters)."""
    role_arn: str = rt.row["role_arn"]
    account = role_arn.split(":")[4] if role_arn.count(":") >= 5 else rt.row["account"]
    role_name = role_arn.rsplit("/", 1)[-1]
    digest = hashlib.sha256(rt.arn.encode()).digest()
    session = "".join(chr(ord("a") + b % 26) if i % 2 else chr(ord("A") + b % 26) for i, b in enumerate(digest))[:32]
    return Principal(
        account=account or rt.row["account"], kind="assumed-role",
        arn=f"arn:aws:sts::{account}:assumed-role/{role_name}/{session}", name=session,
        role_arn=role_arn, session_name=session,
    )
