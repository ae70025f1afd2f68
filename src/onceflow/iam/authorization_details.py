"""GetAccountAuthorizationDetails: every user, group, role and managed policy of the account with
their relationships, in one paged answer.

AWS's reference (API_GetAccountAuthorizationDetails): Filter keeps only the entity types it names
(User, Role, Group, LocalManagedPolicy for customer managed policies, AWSManagedPolicy); MaxItems
and Marker page over all of them together, in the answer's order (users, groups, roles, policies);
every policy document is URL-encoded. AWS managed policies appear only where the account uses them,
attached or as a permissions boundary (UNCONFIRMED for the boundary case); customer managed
policies all appear, with every version, newest first.

The shapes are AWS's recorded answers (LocalStack's test_iam_account_authorization_details
snapshot, 2026-02): a user without inline policies has no UserPolicyList while a role or group has
an empty one; users and roles always carry Tags, roles RoleLastUsed ({} when unused); a profile's
roles come as CreateRole answers a role, less their Tags; no policy carries its Description; an
unattached AWS managed policy is not listed.
"""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.iam import profiles
from onceflow.iam.api import Out, _date, encode, role_out
from onceflow.iam.common import page, partition
from onceflow.iam.groups_api import group_out
from onceflow.iam.last_used import ROLE, LastUsed
from onceflow.iam.managed import aws_policies
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.registry import operation

# Each entity type, its place in the answer (for the page key) and the list it goes in.
ORDER = {"User": 0, "Group": 1, "Role": 2, "LocalManagedPolicy": 3, "AWSManagedPolicy": 3}
LISTS = ("UserDetailList", "GroupDetailList", "RoleDetailList", "Policies")
_TABLES = {"user": "iam_user_policies", "group": "iam_group_policies", "role": "iam_role_policies"}


def _boundary(entity: Row) -> Out:
    if not entity.get("boundary"):
        return {}
    return {"PermissionsBoundary": {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": entity["boundary"]}}


def _untagged(role: Out) -> Out:
    return {k: v for k, v in role.items() if k != "Tags"}


class AuthorizationDetails:
    def __init__(self, service: IamService, last_used: LastUsed) -> None:
        self.service = service
        self.store = service.store
        self.last_used = last_used

    def entries(self, account: str, wanted: set[str], part: str) -> list[tuple[str, str, Row]]:
        """(entity type, page key, row) of every entity the filter keeps, in the answer's order."""
        out: list[tuple[str, str, Row]] = []
        if "User" in wanted:
            out += [("User", f"0/{u['name'].lower()}", u) for u in self.store.users(account)]
        if "Group" in wanted:
            out += [("Group", f"1/{g['name'].lower()}", g) for g in self.store.groups(account)]
        if "Role" in wanted:
            out += [("Role", f"2/{r['name'].lower()}", r) for r in self._roles(account)]
        policies: list[Row] = []
        if "AWSManagedPolicy" in wanted:
            policies += [p for p in aws_policies(part) if self._in_use(account, p["arn"])]
        if "LocalManagedPolicy" in wanted:
            policies += self.store.policies(account)
        out += [("Policy", f"3/{p['arn']}", p) for p in sorted(policies, key=lambda p: p["arn"])]
        return out

    def _roles(self, account: str) -> list[Row]:
        return self.store.roles(account, "/", "", 1 << 31)

    def _in_use(self, account: str, arn: str) -> bool:
        return bool(self.store.attachment_count(account, arn) or self.store.boundary_count(account, arn))

    def page(self, account: str, params: dict[str, Any], part: str) -> tuple[Out, str | None]:
        wanted = set(params.get("Filter") or ORDER)
        items, marker = page(self.entries(account, wanted, part), params.get("Marker"), params.get("MaxItems"),
                             lambda e: e[1])
        out: Out = {name: [] for name in LISTS}
        for kind, _, row in items:
            if kind == "User":
                out["UserDetailList"].append(self.user(account, row))
            elif kind == "Group":
                out["GroupDetailList"].append(self.group(account, row))
            elif kind == "Role":
                out["RoleDetailList"].append(self.role(account, row))
            else:
                out["Policies"].append(self.policy(account, row))
        return out, marker

    # ------------------------------------------------------------------ one entity each
    def _inline(self, kind: str, account: str, owner: str) -> list[Out]:
        docs = self.store.inline_all(_TABLES[kind], account, owner)
        return [{"PolicyName": name, "PolicyDocument": encode(doc)} for name, doc in docs]

    def _attached(self, kind: str, account: str, owner: str) -> list[Out]:
        return [{"PolicyName": a["PolicyName"], "PolicyArn": a["PolicyArn"]}
                for a in self.service.attached(account, kind, owner)]

    def user(self, account: str, user: Row) -> Out:
        name = user["name"]
        out: Out = {
            "Path": user["path"], "UserName": name, "UserId": user["user_id"], "Arn": user["arn"],
            "CreateDate": _date(user["created"]),
            "GroupList": [g["name"] for g in self.store.groups_of(account, name)],
            "AttachedManagedPolicies": self._attached("user", account, name),
            **_boundary(user),
            "Tags": user["tags"],
        }
        if inline := self._inline("user", account, name):
            out["UserPolicyList"] = inline
        return out

    def group(self, account: str, group: Row) -> Out:
        name = group["name"]
        return {**group_out(group), "GroupPolicyList": self._inline("group", account, name),
                "AttachedManagedPolicies": self._attached("group", account, name)}

    def role(self, account: str, role: Row) -> Out:
        name = role["name"]
        out: Out = {
            "Path": role["path"], "RoleName": name, "RoleId": role["role_id"], "Arn": role["arn"],
            "CreateDate": _date(role["created"]), "AssumeRolePolicyDocument": encode(role["trust"]),
            "InstanceProfileList": [self._profile(account, p) for p in profiles.InstanceProfiles(self.store)
                                    .holding(account, name)],
            "RolePolicyList": self._inline("role", account, name),
            "AttachedManagedPolicies": self._attached("role", account, name),
            **_boundary(role),
            "Tags": role["tags"],
            "RoleLastUsed": {},
        }
        used = self.last_used.since(ROLE, role["arn"], account, role["created"])
        if used is not None:
            out["RoleLastUsed"] = {"LastUsedDate": used["date"], "Region": used["region"]}
        return out

    def _profile(self, account: str, profile: Row) -> Out:
        # The profile's roles as CreateRole answers a role, without their tags: AWS recorded a role
        # tagged with TagRole carrying its Tags in RoleDetailList but none in its profile's Roles.
        roles = [r for r in (self.store.role(account, n) for n in profile["roles"]) if r]
        return {"Path": profile["path"], "InstanceProfileName": profile["name"],
                "InstanceProfileId": profile["profile_id"], "Arn": profile["arn"],
                "CreateDate": _date(profile["created"]), "Roles": [_untagged(role_out(r, "create")) for r in roles]}

    def policy(self, account: str, policy: Row) -> Out:
        arn = policy["arn"]
        _, versions = self.service.policy_versions(account, arn)
        return {
            "PolicyName": policy["name"], "PolicyId": policy["policy_id"], "Arn": arn, "Path": policy["path"],
            "DefaultVersionId": policy["default_version"],
            "AttachmentCount": self.store.attachment_count(account, arn),
            "PermissionsBoundaryUsageCount": self.store.boundary_count(account, arn),
            "IsAttachable": True,
            "CreateDate": _date(policy["created"]), "UpdateDate": _date(policy["updated"]),
            "PolicyVersionList": [
                {"Document": encode(v["document"]), "VersionId": v["version_id"],
                 "IsDefaultVersion": v["version_id"] == policy["default_version"], "CreateDate": _date(v["created"])}
                for v in versions
            ],
        }


class AuthorizationDetailsApi:
    def __init__(self, details: AuthorizationDetails) -> None:
        self.details = details

    @operation("GetAccountAuthorizationDetails")
    def get_account_authorization_details(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        out, marker = self.details.page(ctx.account, params, partition(ctx.region))
        out["IsTruncated"] = marker is not None
        if marker is not None:
            out["Marker"] = marker
        return out
