"""IAM group operations (query protocol): groups, membership, inline and attached group policies."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.iam.api import Out, _date, attached_out, encode, paged, user_out
from onceflow.iam.common import page, partition
from onceflow.iam.groups import IamGroups
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.registry import operation


def group_out(group: Row) -> Out:
    return {
        "Path": group["path"],
        "GroupName": group["name"],
        "GroupId": group["group_id"],
        "Arn": group["arn"],
        "CreateDate": _date(group["created"]),
    }


class GroupsApi:
    def __init__(self, groups: IamGroups, service: IamService) -> None:
        self.groups = groups
        self.service = service

    @operation("CreateGroup")
    def create_group(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"Group": group_out(self.groups.create_group(ctx.account, params, partition(ctx.region)))}

    @operation("GetGroup")
    def get_group(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        group, users, marker = self.groups.members(ctx.account, params["GroupName"], params)
        return {"Group": group_out(group), **paged("Users", [user_out(u, listing=True) for u in users], marker)}

    @operation("ListGroups")
    def list_groups(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        groups, marker = self.groups.list_groups(ctx.account, params)
        return paged("Groups", [group_out(g) for g in groups], marker)

    @operation("ListGroupsForUser")
    def list_groups_for_user(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        groups, marker = self.groups.groups_for_user(ctx.account, params["UserName"], params)
        return paged("Groups", [group_out(g) for g in groups], marker)

    @operation("UpdateGroup")
    def update_group(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.update_group(ctx.account, params)

    @operation("DeleteGroup")
    def delete_group(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.delete_group(ctx.account, params["GroupName"])

    @operation("AddUserToGroup")
    def add_user_to_group(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.add_user(ctx.account, params["GroupName"], params["UserName"])

    @operation("RemoveUserFromGroup")
    def remove_user_from_group(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.remove_user(ctx.account, params["GroupName"], params["UserName"])

    # ------------------------------------------------------------------ inline group policies
    @operation("PutGroupPolicy")
    def put_group_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.put_policy(ctx.account, params["GroupName"], params["PolicyName"], params["PolicyDocument"])

    @operation("GetGroupPolicy")
    def get_group_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        group, doc = self.groups.policy(ctx.account, params["GroupName"], params["PolicyName"])
        return {"GroupName": group["name"], "PolicyName": params["PolicyName"], "PolicyDocument": encode(doc)}

    @operation("DeleteGroupPolicy")
    def delete_group_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.groups.delete_policy(ctx.account, params["GroupName"], params["PolicyName"])

    @operation("ListGroupPolicies")
    def list_group_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        names = self.groups.policy_names(ctx.account, params["GroupName"])
        items, marker = page(names, params.get("Marker"), params.get("MaxItems"), lambda n: n)
        return paged("PolicyNames", items, marker)

    # ------------------------------------------------------------------ attached managed policies
    @operation("AttachGroupPolicy")
    def attach_group_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.attach(ctx.account, "group", params["GroupName"], params["PolicyArn"])

    @operation("DetachGroupPolicy")
    def detach_group_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.detach(ctx.account, "group", params["GroupName"], params["PolicyArn"])

    @operation("ListAttachedGroupPolicies")
    def list_attached_group_policies(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return attached_out(self.service, ctx.account, "group", params["GroupName"], params)
