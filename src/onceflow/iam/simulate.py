"""SimulateCustomPolicy and SimulatePrincipalPolicy: the policy evaluator, reachable from the CLI;
GetContextKeysForCustomPolicy and GetContextKeysForPrincipalPolicy: the keys a simulation needs.

Evaluation is the authorizer's (identity policies grant, a permissions boundary caps). Statement
positions (MatchedStatements) are not reported.
"""

from __future__ import annotations

from typing import Any

from onceflow.context import Principal, RequestContext
from onceflow.iam import errors
from onceflow.iam.common import entity_of, page
from onceflow.iam.policy import Decision, MalformedPolicy, Policy, Request, evaluate, parse, stored
from onceflow.iam.policy.context_keys import context_keys
from onceflow.iam.service import IamService
from onceflow.registry import operation

DECISIONS = {Decision.ALLOW: "allowed", Decision.EXPLICIT_DENY: "explicitDeny", Decision.IMPLICIT_DENY: "implicitDeny"}


def _policies(documents: list[str]) -> list[Policy]:
    try:
        return [parse(d) for d in documents]
    except MalformedPolicy as exc:
        raise errors.invalid_input(exc.message) from None  # UNCONFIRMED: AWS's code for this case


def _context(entries: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {e["ContextKeyName"].lower(): [str(v) for v in e.get("ContextKeyValues", [])] for e in entries}


def simulate(params: dict[str, Any], identity: list[Policy], boundary: list[Policy] | None) -> dict[str, Any]:
    context = _context(params.get("ContextEntries", []))
    results = []
    for action in params["ActionNames"]:
        for resource in params.get("ResourceArns") or ["*"]:
            request = Request(action, resource, context)
            decision = evaluate(identity, request)
            if decision.allowed and boundary is not None:
                decision = evaluate(boundary, request)
            results.append(
                {
                    "EvalActionName": action,
                    "EvalResourceName": resource,
                    "EvalDecision": DECISIONS[decision],
                    "MatchedStatements": [],
                    "MissingContextValues": [],
                }
            )
    items, marker = page(results, params.get("Marker"), params.get("MaxItems"), lambda r: r["EvalActionName"])
    out: dict[str, Any] = {"EvaluationResults": items, "IsTruncated": marker is not None}
    if marker is not None:
        out["Marker"] = marker
    return out


class SimulateApi:
    def __init__(self, service: IamService) -> None:
        self.service = service

    @operation("SimulateCustomPolicy")
    def simulate_custom_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        boundary = params.get("PermissionsBoundaryPolicyInputList")
        return simulate(params, _policies(params["PolicyInputList"]), _policies(boundary) if boundary else None)

    @operation("SimulatePrincipalPolicy")
    def simulate_principal_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        principal = self._principal(ctx.account, params["PolicySourceArn"])
        identity = self.service.policies_for(principal) + _policies(params.get("PolicyInputList", []))
        extra = params.get("PermissionsBoundaryPolicyInputList")
        boundary = _policies(extra) if extra else self.service.boundary_for(principal)
        return simulate(params, identity, boundary)

    @operation("GetContextKeysForCustomPolicy")
    def get_context_keys_for_custom_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return {"ContextKeyNames": context_keys(_policies(params["PolicyInputList"]))}

    @operation("GetContextKeysForPrincipalPolicy")
    def get_context_keys_for_principal_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """The keys of the identity policies of a user (its groups' too), a group or a role, then of
        PolicyInputList's (AWS's reference: API_GetContextKeysForPrincipalPolicy)."""
        arn = params["PolicySourceArn"]
        kind, name = entity_of(arn, ("user", "group", "role"), ctx.account)
        if kind == "group":
            held = [stored(d) for d in self._group_documents(ctx.account, arn, name)]
        else:
            held = self.service.policies_for(self._principal(ctx.account, arn))
        return {"ContextKeyNames": context_keys(held + _policies(params.get("PolicyInputList", [])))}

    def _group_documents(self, account: str, arn: str, name: str) -> list[str]:
        store = self.service.store
        group = store.group(account, name)
        if group is None or group["arn"] != arn:
            raise errors.group_not_found(name)
        return self.service.group_documents(account, name)

    def _principal(self, account: str, arn: str) -> Principal:
        kind, name = entity_of(arn, ("user", "role"), account)
        if kind == "role":
            role = self.service.role(account, name)
            return Principal(account, "assumed-role", role_arn=role["arn"])
        if self.service.store.user(account, name) is None:
            raise errors.user_not_found(name)
        return Principal(account, "user", arn, name)
