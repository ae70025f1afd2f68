"""Instance profile operations (query protocol)."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam.api import Out, _date, paged, role_out, tags_out
from onceflow.iam.profiles import InstanceProfiles
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.registry import operation


class InstanceProfilesApi:
    def __init__(self, profiles: InstanceProfiles, service: IamService) -> None:
        self.profiles = profiles
        self.service = service

    def _out(self, account: str, profile: Row, view: str = "create") -> Out:
        """view: 'create', 'get' or 'list'. AWS's recorded answers (LocalStack's
        test_iam_instance_profiles snapshot): GetInstanceProfile answers Tags, [] too, listings none;
        a profile's roles come without MaxSessionDuration, as CreateRole answers a role."""
        roles = [r for r in (self.service.store.role(account, name) for name in profile["roles"]) if r]
        out: Out = {
            "Path": profile["path"],
            "InstanceProfileName": profile["name"],
            "InstanceProfileId": profile["profile_id"],
            "Arn": profile["arn"],
            "CreateDate": _date(profile["created"]),
            "Roles": [role_out(r, "create") for r in roles],
        }
        if view == "get" or (view == "create" and profile["tags"]):
            out["Tags"] = profile["tags"]
        return out

    @operation("CreateInstanceProfile")
    def create_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        profile = self.profiles.create(ctx.account, params, partition(ctx.region))
        return {"InstanceProfile": self._out(ctx.account, profile)}

    @operation("GetInstanceProfile")
    def get_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        profile = self.profiles.profile(ctx.account, params["InstanceProfileName"])
        return {"InstanceProfile": self._out(ctx.account, profile, "get")}

    @operation("DeleteInstanceProfile")
    def delete_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.profiles.delete(ctx.account, params["InstanceProfileName"])

    @operation("ListInstanceProfiles")
    def list_instance_profiles(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        found, marker = self.profiles.listing(ctx.account, params)
        return paged("InstanceProfiles", [self._out(ctx.account, p, "list") for p in found], marker)

    @operation("ListInstanceProfilesForRole")
    def list_instance_profiles_for_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        self.service.role(ctx.account, params["RoleName"])
        found, marker = self.profiles.for_role(ctx.account, params["RoleName"], params)
        return paged("InstanceProfiles", [self._out(ctx.account, p, "list") for p in found], marker)

    @operation("AddRoleToInstanceProfile")
    def add_role_to_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        role = self.service.role(ctx.account, params["RoleName"])
        self.profiles.add_role(ctx.account, params["InstanceProfileName"], role)

    @operation("RemoveRoleFromInstanceProfile")
    def remove_role_from_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        role = self.service.role(ctx.account, params["RoleName"])
        self.profiles.remove_role(ctx.account, params["InstanceProfileName"], role)

    @operation("TagInstanceProfile")
    def tag_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.profiles.tag(ctx.account, params["InstanceProfileName"], params["Tags"], None)

    @operation("UntagInstanceProfile")
    def untag_instance_profile(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.profiles.tag(ctx.account, params["InstanceProfileName"], None, params["TagKeys"])

    @operation("ListInstanceProfileTags")
    def list_instance_profile_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.profiles.profile(ctx.account, params["InstanceProfileName"])["tags"], params)
