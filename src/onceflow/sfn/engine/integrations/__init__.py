"""Task resources: which integration a Resource ARN names, and how its call is made.

Every call goes through `onceflow.internal.call` as the state machine's role (an assumed-role
session), so IAM decides exactly as it would for that role's own API calls.
"""

from __future__ import annotations

import hashlib
import re
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
}


@dataclass(frozen=True)
class Integration:
    resource_type: str  # "lambda", "dynamodb", "aws-sdk:dynamodb" (empty for bare Lambda ARNs)
    resource: str  # "invoke", "putItem", the function ARN for bare Lambda
    kind: str  # lambda_invoke | bare_lambda | dynamodb | aws_sdk
    action: str
    wait_for_token: bool = False

    @property
    def bare_lambda(self) -> bool:
        return self.kind == "bare_lambda"

    def make_call(self, rt: Runtime, params: Any) -> Callable[[], Any]:
        from onceflow.sfn.engine.integrations import aws_sdk, dynamodb, lambda_invoke

        principal = role_principal(rt)
        stack, region = rt.engine.stack, rt.region
        if self.kind == "bare_lambda":
            return lambda: lambda_invoke.invoke_bare(stack, principal, region, self.resource, params)
        if self.kind == "lambda_invoke":
            return lambda: lambda_invoke.invoke_optimized(stack, principal, region, params)
        if self.kind == "dynamodb":
            return lambda: dynamodb.call(stack, principal, region, self.action, params)
        return lambda: aws_sdk.call(stack, principal, region, self.resource_type.split(":", 1)[1], self.action,
                                    params)


def resolve_integration(resource: str) -> Integration:
    if _LAMBDA_ARN.match(resource):
        return Integration("", resource, "bare_lambda", "invoke")
    m = _SDK.match(resource)
    if m:
        suffix = m.group(3) or ""
        return Integration(f"aws-sdk:{m.group(1)}", m.group(2) + suffix, "aws_sdk", m.group(2), bool(suffix))
    m = _SERVICE.match(resource)
    if m and m.group(2) in OPTIMIZED.get(m.group(1), ()):
        suffix = m.group(3) or ""
        kind = "lambda_invoke" if m.group(1) == "lambda" else m.group(1)
        return Integration(m.group(1), m.group(2) + suffix, kind, m.group(2), suffix == ".waitForTaskToken")
    raise ValueError(f"unsupported resource {resource}")


def is_supported(resource: Any) -> bool:
    if not isinstance(resource, str):
        return False
    try:
        resolve_integration(resource)
    except ValueError:
        return False
    return True


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
