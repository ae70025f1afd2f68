"""IAM operations (query protocol): turn parsed requests into service calls and rows into the
model's output shapes. Policy documents go out URL-encoded, as IAM returns them (botocore and the
CLI decode them back into JSON)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from onceflow.context import RequestContext
from onceflow.iam import errors
from onceflow.iam.common import page, partition
from onceflow.iam.last_used import KEY, ROLE, LastUsed
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.iam.users import IamUsers
from onceflow.registry import operation

Out = dict[str, Any]


def encode(document: str) -> str:
    return quote(document, safe="")


def _date(iso: str) -> datetime:
    return datetime.fromisoformat(iso)


def role_out(role: Row, view: str) -> Out:
    """view: 'create' (CreateRole), 'described' (UpdateRoleDescription), 'get' (GetRole) or 'list'
    (ListRoles). AWS's recorded answers: CreateRole leaves out the Description it was given, and
    neither it nor UpdateRoleDescription answers MaxSessionDuration or RoleLastUsed."""
    out: Out = {
        "Path": role["path"],
        "RoleName": role["name"],
        "RoleId": role["role_id"],
        "Arn": role["arn"],
        "CreateDate": _date(role["created"]),
        "AssumeRolePolicyDocument": encode(role["trust"]),
    }
    if role.get("description") is not None and view != "create":
        out["Description"] = role["description"]
    if view not in ("create", "described"):
        out["MaxSessionDuration"] = role["max_session"]
    if view != "list" and role.get("boundary"):
        out["PermissionsBoundary"] = {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": role["boundary"]}
    if view != "list" and role["tags"]:
        out["Tags"] = role["tags"]
    if view == "get":
        out["RoleLastUsed"] = {}
    return out


def policy_out(policy: Row, attachments: int, view: str, boundaries: int = 0) -> Out:
    out: Out = {
        "PolicyName": policy["name"],
        "PolicyId": policy["policy_id"],
        "Arn": policy["arn"],
        "Path": policy["path"],
        "DefaultVersionId": policy["default_version"],
        "AttachmentCount": attachments,
        "PermissionsBoundaryUsageCount": boundaries,
        "IsAttachable": True,
        "CreateDate": _date(policy["created"]),
        "UpdateDate": _date(policy["updated"]),
    }
    if view == "get" and policy.get("description"):
        out["Description"] = policy["description"]
    if view == "get":  # GetPolicy lists the tags even when there are none
        out["Tags"] = policy.get("tags", [])
    elif view != "list" and policy.get("tags"):
        out["Tags"] = policy["tags"]
    return out


def user_out(user: Row, listing: bool = False) -> Out:
    """listing: a user in a list (ListUsers, GetGroup), which never carries its tags or boundary."""
    out: Out = {
        "Path": user["path"],
        "UserName": user["name"],
        "UserId": user["user_id"],
        "Arn": user["arn"],
        "CreateDate": _date(user["created"]),
    }
    if listing:
        return out
    if user["tags"]:
        out["Tags"] = user["tags"]
    if user.get("boundary"):
        out["PermissionsBoundary"] = {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": user["boundary"]}
    return out


def paged(name: str, items: list[Any], marker: str | None) -> Out:
    out: Out = {name: items, "IsTruncated": marker is not None}
    if marker is not None:
        out["Marker"] = marker
    return out


def tags_out(tags: list[dict[str, str]], params: dict[str, Any]) -> Out:
    """A List*Tags answer: a page of the resource's tags (MaxItems, Marker)."""
    items, marker = page(tags, params.get("Marker"), params.get("MaxItems"), lambda t: t["Key"].lower())
    return paged("Tags", items, marker)


def attached_out(service: IamService, account: str, kind: str, owner: str, params: dict[str, Any]) -> Out:
    """A ListAttached{Role,User,Group}Policies answer."""
    prefix = params.get("PathPrefix", "/")
    found = [a for a in service.attached(account, kind, owner) if a.pop("path").startswith(prefix)]
    items, marker = page(found, params.get("Marker"), params.get("MaxItems"), lambda a: a["PolicyArn"])
    return paged("AttachedPolicies", items, marker)


class IamApi:
    def __init__(self, service: IamService, users: IamUsers, last_used: LastUsed | None = None) -> None:
        self.service = service
        self.users = users
        self.last_used = last_used or LastUsed(service.store)

    # ------------------------------------------------------------------ roles
    @operation("CreateRole")
    def create_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"Role": role_out(self.service.create_role(ctx.account, params, partition(ctx.region)), "create")}

    @operation("GetRole")
    def get_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        role = self.service.role(ctx.account, params["RoleName"])
        out = role_out(role, "get")
        used = self.last_used.since(ROLE, role["arn"], ctx.account, role["created"])
        if used is not None:
            out["RoleLastUsed"] = {"LastUsedDate": used["date"], "Region": used["region"]}
        return {"Role": out}

    @operation("ListRoles")
    def list_roles(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        roles, marker = self.service.list_roles(ctx.account, params)
        return paged("Roles", [role_out(r, "list") for r in roles], marker)

    @operation("UpdateRole")
    def update_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        self.service.update_role(ctx.account, params)
        return {}

    @operation("UpdateRoleDescription")
    def update_role_description(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        self.service.update_role(ctx.account, params)
        # No MaxSessionDuration, no RoleLastUsed (recorded: LocalStack's test_iam_roles snapshot,
        # "update-role-description-response").
        return {"Role": role_out(self.service.role(ctx.account, params["RoleName"]), "described")}

    @operation("DeleteRole")
    def delete_role(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        role = self.service.role(ctx.account, params["RoleName"])
        if role["path"].startswith("/aws-service-role/"):  # DeleteServiceLinkedRole deletes those
            raise errors.unmodifiable_role(role["name"])
        self.service.delete_role(ctx.account, params["RoleName"])
        self.last_used.drop(ROLE, role["arn"], ctx.account)  # a new role of this name starts unused

    @operation("UpdateAssumeRolePolicy")
    def update_assume_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.update_trust(ctx.account, params["RoleName"], params["PolicyDocument"])

    @operation("TagRole")
    def tag_role(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.tag_role(ctx.account, params["RoleName"], params["Tags"])

    @operation("UntagRole")
    def untag_role(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.untag_role(ctx.account, params["RoleName"], params["TagKeys"])

    @operation("ListRoleTags")
    def list_role_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.service.role(ctx.account, params["RoleName"])["tags"], params)

    @operation("PutRolePermissionsBoundary")
    def put_role_permissions_boundary(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.set_boundary(ctx.account, "role", params["RoleName"], params["PermissionsBoundary"])

    @operation("DeleteRolePermissionsBoundary")
    def delete_role_permissions_boundary(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.set_boundary(ctx.account, "role", params["RoleName"], None)

    @operation("PutUserPermissionsBoundary")
    def put_user_permissions_boundary(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.set_boundary(ctx.account, "user", params["UserName"], params["PermissionsBoundary"])

    @operation("DeleteUserPermissionsBoundary")
    def delete_user_permissions_boundary(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.set_boundary(ctx.account, "user", params["UserName"], None)

    # ------------------------------------------------------------------ inline role policies
    @operation("PutRolePolicy")
    def put_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.put_role_policy(ctx.account, params["RoleName"], params["PolicyName"], params["PolicyDocument"])

    @operation("GetRolePolicy")
    def get_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        role, doc = self.service.role_policy(ctx.account, params["RoleName"], params["PolicyName"])
        return {"RoleName": role["name"], "PolicyName": params["PolicyName"], "PolicyDocument": encode(doc)}

    @operation("DeleteRolePolicy")
    def delete_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.delete_role_policy(ctx.account, params["RoleName"], params["PolicyName"])

    @operation("ListRolePolicies")
    def list_role_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        names = self.service.role_policy_names(ctx.account, params["RoleName"])
        items, marker = page(names, params.get("Marker"), params.get("MaxItems"), lambda n: n)
        return paged("PolicyNames", items, marker)

    # ------------------------------------------------------------------ managed policies
    @operation("CreatePolicy")
    def create_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        policy = self.service.create_policy(ctx.account, params, partition(ctx.region))
        return {"Policy": policy_out(policy, 0, "create")}

    @operation("GetPolicy")
    def get_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        policy = self.service.policy(ctx.account, params["PolicyArn"])
        count = self.service.attachment_count(ctx.account, policy["arn"])
        boundaries = self.service.boundary_usage(ctx.account, policy["arn"])
        return {"Policy": policy_out(policy, count, "get", boundaries)}

    @operation("GetPolicyVersion")
    def get_policy_version(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        version = params["VersionId"]
        policy, doc, created = self.service.policy_document(ctx.account, params["PolicyArn"], version)
        return {
            "PolicyVersion": {
                "Document": encode(doc),
                "VersionId": version,
                "IsDefaultVersion": version == policy["default_version"],
                "CreateDate": _date(created),
            }
        }

    @operation("CreatePolicyVersion")
    def create_policy_version(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        arn = params["PolicyArn"]
        default = bool(params.get("SetAsDefault"))
        version, created = self.service.create_policy_version(ctx.account, arn, params["PolicyDocument"], default)
        return {"PolicyVersion": {"VersionId": version, "IsDefaultVersion": default, "CreateDate": _date(created)}}

    @operation("ListPolicyVersions")
    def list_policy_versions(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        policy, versions = self.service.policy_versions(ctx.account, params["PolicyArn"])
        # No Document: AWS lists versions without them (recorded: LocalStack's test_iam_policies
        # snapshot, "list-versions"); GetPolicyVersion has it.
        items = [
            {
                "VersionId": v["version_id"],
                "IsDefaultVersion": v["version_id"] == policy["default_version"],
                "CreateDate": _date(v["created"]),
            }
            for v in versions
        ]
        page_items, marker = page(items, params.get("Marker"), params.get("MaxItems"), lambda v: v["VersionId"])
        return paged("Versions", page_items, marker)

    @operation("SetDefaultPolicyVersion")
    def set_default_policy_version(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.set_default_policy_version(ctx.account, params["PolicyArn"], params["VersionId"])

    @operation("DeletePolicyVersion")
    def delete_policy_version(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.delete_policy_version(ctx.account, params["PolicyArn"], params["VersionId"])

    @operation("ListPolicies")
    def list_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        items, marker = self.service.list_policies(ctx.account, params, partition(ctx.region))
        out = [policy_out(p, self.service.attachment_count(ctx.account, p["arn"]), "list") for p in items]
        return paged("Policies", out, marker)

    @operation("ListEntitiesForPolicy")
    def list_entities_for_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        found = self.service.entities_for_policy(ctx.account, params["PolicyArn"], params)
        # one listing of groups, users then roles, paged by MaxItems/Marker like the other List* (a Marker it
        # did not issue is refused; it used to be ignored, and every entity listed at once)
        entities = [(kind, e) for kind in ("group", "user", "role") for e in found[kind]]
        shown, marker = page(entities, params.get("Marker"), params.get("MaxItems"),
                             lambda ke: f"{ke[0]}/{ke[1]['name'].lower()}")
        out = paged("PolicyGroups", [{"GroupName": e["name"], "GroupId": e["group_id"]}
                                     for k, e in shown if k == "group"], marker)
        out["PolicyUsers"] = [{"UserName": e["name"], "UserId": e["user_id"]} for k, e in shown if k == "user"]
        out["PolicyRoles"] = [{"RoleName": e["name"], "RoleId": e["role_id"]} for k, e in shown if k == "role"]
        return out

    @operation("DeletePolicy")
    def delete_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.delete_policy(ctx.account, params["PolicyArn"])

    @operation("TagPolicy")
    def tag_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.tag_policy(ctx.account, params["PolicyArn"], params["Tags"], None)

    @operation("UntagPolicy")
    def untag_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.tag_policy(ctx.account, params["PolicyArn"], None, params["TagKeys"])

    @operation("ListPolicyTags")
    def list_policy_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        # Listed by key (AWS's recorded answer lists "A" before "a" that were given as a, A).
        tags = sorted(self.service.policy(ctx.account, params["PolicyArn"]).get("tags", []), key=lambda t: t["Key"])
        return tags_out(tags, params)

    @operation("AttachRolePolicy")
    def attach_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.attach(ctx.account, "role", params["RoleName"], params["PolicyArn"])

    @operation("DetachRolePolicy")
    def detach_role_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.detach(ctx.account, "role", params["RoleName"], params["PolicyArn"])

    @operation("ListAttachedRolePolicies")
    def list_attached_role_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return self._attached(ctx, "role", params["RoleName"], params)

    @operation("AttachUserPolicy")
    def attach_user_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.attach(ctx.account, "user", params["UserName"], params["PolicyArn"])

    @operation("DetachUserPolicy")
    def detach_user_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.detach(ctx.account, "user", params["UserName"], params["PolicyArn"])

    @operation("ListAttachedUserPolicies")
    def list_attached_user_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return self._attached(ctx, "user", params["UserName"], params)

    def _attached(self, ctx: RequestContext, kind: str, owner: str, params: dict[str, Any]) -> Out:
        return attached_out(self.service, ctx.account, kind, owner, params)

    # ------------------------------------------------------------------ users and access keys
    @operation("CreateUser")
    def create_user(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"User": user_out(self.users.create_user(ctx.account, params, partition(ctx.region)))}

    @operation("GetUser")
    def get_user(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        name = params.get("UserName")
        if name is None and ctx.principal.kind == "root":
            return {
                "User": {
                    "UserId": ctx.account,
                    "Arn": ctx.principal.arn,
                    "CreateDate": _date("2020-01-01T00:00:00+00:00"),
                }
            }
        return {"User": user_out(self.users.user(ctx.account, name or self._caller_user(ctx)))}

    @operation("ListUsers")
    def list_users(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        users, marker = self.users.list_users(ctx.account, params)
        return paged("Users", [user_out(u, listing=True) for u in users], marker)

    @operation("UpdateUser")
    def update_user(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.update_user(ctx.account, params["UserName"], params.get("NewUserName"), params.get("NewPath"))

    @operation("GetAccessKeyLastUsed")
    def get_access_key_last_used(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        p = ctx.principal
        caller = f"arn:{partition(ctx.region)}:iam::{p.account}:root" if p.kind == "root" else p.arn
        owner = self.users.last_used(ctx.account, params["AccessKeyId"], caller)
        used = self.last_used.get(KEY, params["AccessKeyId"], ctx.account)
        if used is None:  # as AWS answers for a key never used
            return {**owner, "AccessKeyLastUsed": {"ServiceName": "N/A", "Region": "N/A"}}
        return {**owner, "AccessKeyLastUsed": {"LastUsedDate": used["date"], "ServiceName": used["service"],
                                               "Region": used["region"]}}

    @operation("TagUser")
    def tag_user(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.tag_user(ctx.account, params["UserName"], params["Tags"])

    @operation("UntagUser")
    def untag_user(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.untag_user(ctx.account, params["UserName"], params["TagKeys"])

    @operation("ListUserTags")
    def list_user_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.users.user(ctx.account, params["UserName"])["tags"], params)

    @operation("DeleteUser")
    def delete_user(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.delete_user(ctx.account, params["UserName"])

    @operation("CreateAccessKey")
    def create_access_key(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        key = self.users.create_access_key(ctx.account, params.get("UserName") or self._caller_user(ctx))
        return {
            "AccessKey": {
                "UserName": key["user_name"],
                "AccessKeyId": key["access_key_id"],
                "Status": key["status"],
                "SecretAccessKey": key["secret"],
                "CreateDate": _date(key["created"]),
            }
        }

    @operation("ListAccessKeys")
    def list_access_keys(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        keys, marker = self.users.access_keys(ctx.account, params.get("UserName") or self._caller_user(ctx), params)
        meta = [
            {
                "UserName": k["user_name"],
                "AccessKeyId": k["access_key_id"],
                "Status": k["status"],
                "CreateDate": _date(k["created"]),
            }
            for k in keys
        ]
        return paged("AccessKeyMetadata", meta, marker)

    @operation("UpdateAccessKey")
    def update_access_key(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        name = params.get("UserName") or (ctx.principal.name if ctx.principal.kind == "user" else None)
        self.users.update_access_key(ctx.account, name, params["AccessKeyId"], params["Status"])

    @operation("DeleteAccessKey")
    def delete_access_key(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        name = params.get("UserName") or (ctx.principal.name if ctx.principal.kind == "user" else None)
        self.users.delete_access_key(ctx.account, name, params["AccessKeyId"])

    def _caller_user(self, ctx: RequestContext) -> str:
        if ctx.principal.kind != "user":
            raise errors.user_name_needed()
        return ctx.principal.name

    # ------------------------------------------------------------------ inline user policies
    @operation("PutUserPolicy")
    def put_user_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.put_policy(ctx.account, params["UserName"], params["PolicyName"], params["PolicyDocument"])

    @operation("GetUserPolicy")
    def get_user_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        user, doc = self.users.policy(ctx.account, params["UserName"], params["PolicyName"])
        return {"UserName": user["name"], "PolicyName": params["PolicyName"], "PolicyDocument": encode(doc)}

    @operation("DeleteUserPolicy")
    def delete_user_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.users.delete_policy(ctx.account, params["UserName"], params["PolicyName"])

    @operation("ListUserPolicies")
    def list_user_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        names = self.users.policy_names(ctx.account, params["UserName"])
        items, marker = page(names, params.get("Marker"), params.get("MaxItems"), lambda n: n)
        return paged("PolicyNames", items, marker)
