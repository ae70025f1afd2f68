"""Which IAM resources a call acts on (for authorization): role, user, group, policy and MFA device ARNs."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam.store import IamStore
from onceflow.stack import ResourceResolver


def iam_resolver(store: IamStore) -> ResourceResolver:
    def resolve(ctx: RequestContext, params: dict[str, Any]) -> list[str]:
        acct, arn = ctx.account, f"arn:{partition(ctx.region)}"
        if "PolicyArn" in params:
            return [params["PolicyArn"]]
        if ctx.operation == "CreatePolicy":
            return [f"{arn}:iam::{acct}:policy{params.get('Path', '/')}{params['PolicyName']}"]
        for arn_param in ("OpenIDConnectProviderArn", "SAMLProviderArn"):
            if arn_param in params:
                return [params[arn_param]]
        if "InstanceProfileName" in params:  # before RoleName: Add/RemoveRoleFromInstanceProfile act on it
            profile = store.obj(acct, "instance-profile", params["InstanceProfileName"].lower())
            path = params.get("Path", "/") if profile is None else profile["path"]
            return [f"{arn}:iam::{acct}:instance-profile{path}{params['InstanceProfileName']}"]
        if "GroupName" in params:  # before UserName: AddUserToGroup and RemoveUserFromGroup act on the group
            group = store.group(acct, params["GroupName"])
            path = params.get("Path", "/") if group is None else group["path"]
            return [f"{arn}:iam::{acct}:group{path}{params['GroupName']}"]
        if "RoleName" in params:
            role = store.role(acct, params["RoleName"])
            path = params.get("Path", "/") if role is None else role["path"]
            return [f"{arn}:iam::{acct}:role{path}{params['RoleName']}"]
        if "UserName" in params:
            user = store.user(acct, params["UserName"])
            path = params.get("Path", "/") if user is None else user["path"]
            return [f"{arn}:iam::{acct}:user{path}{params['UserName']}"]
        if str(params.get("SerialNumber", "")).startswith("arn:"):  # a virtual MFA device's own calls
            return [params["SerialNumber"]]
        if ctx.operation in ("GetUser", "CreateAccessKey", "ListAccessKeys", "DeleteAccessKey", "ChangePassword"):
            return [ctx.principal.arn]  # the caller's own user
        return ["*"]

    return resolve

