"""A function's resource-based policy: the statements AddPermission writes, and whether one lets a
principal invoke. Pure: no store, no I/O.

A policy is the JSON document GetPolicy returns: {"Version", "Id": "default", "Statement": [...]}.
Each statement is built as Lambda builds it from AddPermission's parameters: the principal as
`"*"`, {"AWS": <arn>} or {"Service": <name>}, the function (or version/alias) ARN as Resource, and
the source conditions (SourceAccount, SourceArn, PrincipalOrgID, FunctionUrlAuthType, ...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from onceflow.iam.policy import MalformedPolicy, Request, evaluate, stored
from onceflow.lambda_ import errors

_ACCOUNT = re.compile(r"\d{12}")
_IAM_ARN = re.compile(r"arn:aws[a-zA-Z-]*:(iam|sts)::\d{12}:\S+")
_SERVICE = re.compile(r"[a-z0-9][a-z0-9.-]*\.amazonaws\.com(\.cn)?")


def empty() -> dict[str, Any]:
    return {"Version": "2012-10-17", "Id": "default", "Statement": []}


def principal_element(principal: str, partition: str = "aws") -> str | dict[str, str]:
    if principal == "*":
        return "*"
    if _ACCOUNT.fullmatch(principal):
        return {"AWS": f"arn:{partition}:iam::{principal}:root"}  # the function's partition
    if _IAM_ARN.fullmatch(principal):
        return {"AWS": principal}
    if _SERVICE.fullmatch(principal):
        return {"Service": principal}
    raise errors.invalid("The provided principal was invalid. Please check the principal and try again.")


def statement(params: Mapping[str, Any], resource: str) -> dict[str, Any]:
    """The statement AddPermission adds, in the member order Lambda writes."""
    action = params["Action"]  # the model's pattern (lambda:X, lambda:*, *) was checked by the wire
    out: dict[str, Any] = {
        "Sid": params["StatementId"],
        "Effect": "Allow",
        "Principal": principal_element(params["Principal"], resource.split(":")[1]),
        "Action": action,
        "Resource": resource,
    }
    string_equals: dict[str, str] = {}
    if params.get("SourceAccount"):
        string_equals["AWS:SourceAccount"] = params["SourceAccount"]
    if params.get("FunctionUrlAuthType"):  # before the org id, as AWS writes them (recorded)
        string_equals["lambda:FunctionUrlAuthType"] = params["FunctionUrlAuthType"]
    if params.get("PrincipalOrgID"):
        string_equals["aws:PrincipalOrgID"] = params["PrincipalOrgID"]
    if params.get("EventSourceToken"):
        string_equals["lambda:EventSourceToken"] = params["EventSourceToken"]
    condition: dict[str, Any] = {}
    if string_equals:
        condition["StringEquals"] = string_equals
    if params.get("SourceArn"):
        condition["ArnLike"] = {"AWS:SourceArn": params["SourceArn"]}
    if params.get("InvokedViaFunctionUrl"):
        condition["Bool"] = {"lambda:InvokedViaFunctionUrl": "true"}
    if condition:
        out["Condition"] = condition
    return out


def add(policy: dict[str, Any], stmt: dict[str, Any]) -> dict[str, Any]:
    if any(s.get("Sid") == stmt["Sid"] for s in policy["Statement"]):
        raise errors.conflict(
            f"The statement id ({stmt['Sid']}) provided already exists. Please provide a new statement id, or "
            "remove the existing statement."
        )
    return {**policy, "Statement": [*policy["Statement"], stmt]}


def remove(policy: dict[str, Any] | None, sid: str) -> dict[str, Any]:
    if policy is None or not policy["Statement"]:
        raise errors.not_found("No policy is associated with the given resource.")
    kept = [s for s in policy["Statement"] if s.get("Sid") != sid]
    if len(kept) == len(policy["Statement"]):
        raise errors.not_found(f"Statement {sid} is not found in resource policy.")
    return {**policy, "Statement": kept}


def allows(
    policy: dict[str, Any] | None, action: str, principal: tuple[str, str], context: Mapping[str, str],
    resource: str | None = None,
) -> bool:
    """Whether the policy grants `action` to `principal` (("Service", "sns.amazonaws.com") or
    ("AWS", <arn or account>)) on `resource` with its conditions holding on `context` (keys as in
    the policy, compared case-insensitively). IAM's own evaluator decides (one rule for every
    resource policy): an explicit deny wins, an operator IAM does not define never grants.
    `resource` defaults to the policy's own: AddPermission names the function (or the version or
    alias) the policy belongs to in every statement."""
    if not policy or not policy.get("Statement"):
        return False
    try:
        compiled = stored(json.dumps(policy, sort_keys=True), "resource")
    except MalformedPolicy:
        return False
    if resource is None:
        first = policy["Statement"][0].get("Resource")
        resource = first if isinstance(first, str) else "*"
    keys = {k.lower(): [v] for k, v in context.items()}
    return evaluate([compiled], Request(action, resource, keys, principal=principal)).allowed
