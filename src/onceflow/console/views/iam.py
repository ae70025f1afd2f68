"""IAM: roles, and one role's trust policy, inline and attached policies, and who uses it."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, unquote

from onceflow.console.app import Response, View
from onceflow.console.aws import NotFound


def roles(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("iam", "ListRoles", {}, "Roles", token="Marker", out_token="Marker"), [])
    return v.page("roles.html", title="IAM roles", roles=found)


def policy_document(value: Any) -> Any:
    """A policy as IAM returns it: a dict, JSON text, or URL-encoded JSON text (the query protocol's form)."""
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str):
        return value
    for text in (value, unquote(value)):
        try:
            return json.loads(text)
        except ValueError:
            continue
    return value


def role(v: View) -> Response:
    name = v.match["name"]
    got = v.aws.call("iam", "GetRole", {"RoleName": name})["Role"]
    inline = []
    for policy in v.optional(lambda: v.aws.all("iam", "ListRolePolicies", {"RoleName": name}, "PolicyNames",
                                               token="Marker", out_token="Marker"), []):
        doc = v.optional(lambda p=policy: v.aws.call("iam", "GetRolePolicy", {"RoleName": name, "PolicyName": p}))
        inline.append({"name": policy, "document": policy_document((doc or {}).get("PolicyDocument"))})
    attached = [{"name": p.get("PolicyName"), "arn": p.get("PolicyArn"), "document": _managed(v, p.get("PolicyArn"))}
                for p in v.optional(lambda: v.aws.all("iam", "ListAttachedRolePolicies", {"RoleName": name},
                                                      "AttachedPolicies", token="Marker", out_token="Marker"), [])]
    return v.page("role.html", title=name, role=got, trust=policy_document(got.get("AssumeRolePolicyDocument")),
                  inline=inline, attached=attached, users=users_of(v, got["Arn"]))


def _managed(v: View, arn: str | None) -> Any:
    if not arn:
        return None
    try:
        policy = v.optional(lambda: v.aws.call("iam", "GetPolicy", {"PolicyArn": arn})["Policy"])
        if not policy:
            return None
        version = v.optional(lambda: v.aws.call("iam", "GetPolicyVersion", {
            "PolicyArn": arn, "VersionId": policy.get("DefaultVersionId", "v1")})["PolicyVersion"])
    except NotFound:
        return None
    return policy_document((version or {}).get("Document"))


def users_of(v: View, role_arn: str) -> list[dict[str, str]]:
    """The state machines and functions whose role is this one."""
    found = []
    machines = v.optional(lambda: v.aws.all("stepfunctions", "ListStateMachines", {}, "stateMachines"), [])
    for machine in machines:
        try:
            described = v.optional(lambda m=machine: v.aws.call("stepfunctions", "DescribeStateMachine",
                                                                {"stateMachineArn": m["stateMachineArn"]}))
        except NotFound:
            continue  # deleted meanwhile
        if described and described.get("roleArn") == role_arn:
            name = machine["name"]
            found.append({"kind": "State machine", "name": name, "path": f"/states/{quote(name, safe='')}"})
    functions = v.optional(lambda: v.aws.all("lambda", "ListFunctions", {}, "Functions", token="Marker",
                                             out_token="NextMarker"), [])
    for fn in functions:
        if fn.get("Role") == role_arn:
            name = fn["FunctionName"]
            found.append({"kind": "Lambda function", "name": name, "path": f"/lambda/{quote(name, safe='')}"})
    return found
