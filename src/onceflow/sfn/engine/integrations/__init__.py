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
from functools import lru_cache
from typing import Any, Protocol

from onceflow.context import Principal
from onceflow.sfn.asl.load import load_definition
from onceflow.sfn.asl.nodes import Program, State
from onceflow.sfn.asl.resources import Resource, parse_resource
from onceflow.sfn.engine.integrations import aws_sdk, dynamodb, events, http_task, lambda_invoke, messaging, states
from onceflow.sfn.engine.integrations.aws_sdk import SERVICES
from onceflow.stack import Stack

_ACTION = re.compile(r"[A-Za-z0-9]+")
_SDK_SERVICE = re.compile(r"[a-z0-9]+")

OPTIMIZED = {
    "lambda": {"invoke"},
    "dynamodb": {"putItem", "getItem", "updateItem", "deleteItem"},
    "events": {"putEvents"},
    "sqs": {"sendMessage"},  # messaging.py
    "sns": {"publish"},
    "http": {"invoke"},  # http_task.py
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
        return (f"onceflow does not run the Task resource '{self.arn}'. It runs Lambda functions "
                "(function ARNs, lambda:invoke), dynamodb:getItem/putItem/updateItem/deleteItem, sqs:sendMessage, "
                "sns:publish, events:putEvents, http:invoke, activities, states:startExecution and aws-sdk calls to "
                f"{', '.join(SERVICES)}.")

    def make_call(self, stack: Stack, principal: Principal, region: str, params: Any, execution_arn: str = "",
                  token: str | None = None) -> Callable[[], Any]:
        if self.kind == "states":  # a nested execution: the parent's ARN and (for the waiting variants) its token
            return lambda: states.start(stack, principal, region, execution_arn, self.resource, params, token)
        if self.kind == "bare_lambda":
            return lambda: lambda_invoke.invoke_bare(stack, principal, region, self.resource, params)
        if self.kind == "lambda_invoke":
            return lambda: lambda_invoke.invoke_optimized(stack, principal, region, params)
        if self.kind == "dynamodb":
            return lambda: dynamodb.call(stack, principal, region, self.action, params)
        if self.kind == "events":
            return lambda: events.call(stack, principal, region, params)
        if self.kind in messaging.SERVICES:
            return lambda: messaging.call(stack, principal, region, self.kind, self.action, params)
        if self.kind == "http":
            return lambda: http_task.call(stack, principal.account, region, params)
        return lambda: aws_sdk.call(stack, principal, region, self.resource_type.split(":", 1)[1], self.action,
                                    params)


def resolve_integration(resource: str) -> Integration:
    return integration(parse_resource(resource), resource)


@lru_cache(maxsize=1024)
def integration(res: Resource | None, arn: str) -> Integration:
    """Which integration runs a Task's resource, from the Resource the loader split up (the one
    parser of Resource ARNs is asl/resources.py); how the events name one onceflow does not run
    (as AWS names it: service and action)."""
    if res is None:
        return Integration("", arn, "unsupported", "", arn=arn)
    if res.kind == "activity":  # run by engine/integrations/activity.py: its own events and waits
        return Integration("activity", arn, "activity", "", arn=arn)
    if res.kind == "lambda_function":
        return Integration("", arn, "bare_lambda", "invoke", arn=arn)
    waits = res.pattern == ".waitForTaskToken"
    if res.kind == "sdk":
        named = _SDK_SERVICE.fullmatch(res.service) is not None and _ACTION.fullmatch(res.action) is not None
        kind = "aws_sdk" if named and res.service in SERVICES else "unsupported"
        return Integration(f"aws-sdk:{res.service}", res.action + res.pattern, kind, res.action, waits and named, arn)
    if res.service == "states" and res.action == "startExecution":
        # every variant but the plain one waits on a token (.sync: the child's end)
        return Integration("states", res.action + res.pattern, "states", res.action, bool(res.pattern), arn)
    if res.action in OPTIMIZED.get(res.service, ()):
        kind = "lambda_invoke" if res.service == "lambda" else res.service
        return Integration(res.service, res.action + res.pattern, kind, res.action, waits, arn)
    return Integration(res.service, res.action + res.pattern, "unsupported", res.action, arn=arn)


_logged: set[str] = set()
_logged_lock = threading.Lock()


def log_unsupported(machine_arn: str, definition: dict[str, Any]) -> None:
    """Say once per resource, in the server log, that tasks naming it will fail."""
    tasks = {state["Resource"]: state.resource for state in _tasks(load_definition(definition).program)}
    for resource in sorted(tasks):
        if integration(tasks[resource], resource).supported:
            continue
        with _logged_lock:
            if resource in _logged:
                continue
            _logged.add(resource)
        log.warning("state machine %s names the Task resource %s, which onceflow does not run: "
                    "its tasks will fail with %s", machine_arn, resource, UNSUPPORTED_ERROR)


def _tasks(program: Program) -> list[State]:
    """Every Task state of a program and the programs inside it (an explicit stack: nesting depth
    is the user's)."""
    out: list[State] = []
    todo = [program]
    while todo:
        for state in todo.pop().states.values():
            if state.type == "Task" and isinstance(state.get("Resource"), str):
                out.append(state)
            todo.extend(state.branches)
            if state.processor is not None:
                todo.append(state.processor)
    return out


class Execution(Protocol):
    """Where a task runs: the execution's ARN and its row (role_arn, account)."""

    @property
    def arn(self) -> str: ...

    @property
    def row(self) -> Any: ...


def role_principal(rt: Execution) -> Principal:
    """The state machine's role as an assumed-role session named like AWS's (32 letters)."""
    role_arn: str = rt.row["role_arn"]
    account = role_arn.split(":")[4] if role_arn.count(":") >= 5 else rt.row["account"]
    role_name = role_arn.rsplit("/", 1)[-1]
    digest = hashlib.sha256(rt.arn.encode()).digest()
    session = "".join(chr(ord("a") + b % 26) if i % 2 else chr(ord("A") + b % 26) for i, b in enumerate(digest))[:32]
    return Principal(
        account=account or rt.row["account"], kind="assumed-role",
        arn=f"arn:{role_arn.split(':')[1] or 'aws'}:sts::{account}:assumed-role/{role_name}/{session}", name=session,
        role_arn=role_arn, session_name=session,
    )
