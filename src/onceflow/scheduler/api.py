"""EventBridge Scheduler operations (REST-JSON): path, query and body members in, output out."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.scheduler.service import DEFAULT_GROUP, SchedulerService, group_arn, schedule_arn

Params = dict[str, Any]


def _key(ctx: RequestContext) -> tuple[str, str]:
    return ctx.account, ctx.region


class SchedulerApi:
    def __init__(self, service: SchedulerService) -> None:
        self.service = service

    @operation("CreateSchedule")
    def create_schedule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.put_schedule(_key(ctx), p, create=True)

    @operation("UpdateSchedule")
    def update_schedule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.put_schedule(_key(ctx), p, create=False)

    @operation("GetSchedule")
    def get_schedule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.get_schedule(_key(ctx), p["Name"], p.get("GroupName"))

    @operation("DeleteSchedule")
    def delete_schedule(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_schedule(_key(ctx), p["Name"], p.get("GroupName"))

    @operation("ListSchedules")
    def list_schedules(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_schedules(_key(ctx), p)

    @operation("CreateScheduleGroup")
    def create_schedule_group(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.create_group(_key(ctx), p["Name"], p.get("Tags"))

    @operation("GetScheduleGroup")
    def get_schedule_group(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.get_group(_key(ctx), p["Name"])

    @operation("DeleteScheduleGroup")
    def delete_schedule_group(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_group(_key(ctx), p["Name"])

    @operation("ListScheduleGroups")
    def list_schedule_groups(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_groups(_key(ctx), p.get("NamePrefix"), p.get("MaxResults"), p.get("NextToken"))

    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> None:
        self.service.set_tags(_key(ctx), p["ResourceArn"], {t["Key"]: t["Value"] for t in p["Tags"]}, [])

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> None:
        self.service.set_tags(_key(ctx), p["ResourceArn"], {}, p["TagKeys"])

    @operation("ListTagsForResource")
    def list_tags_for_resource(self, ctx: RequestContext, p: Params) -> Params:
        return {"Tags": self.service.tags(_key(ctx), p["ResourceArn"])}


def resolve_resources(ctx: RequestContext, p: Params) -> list[str]:
    key = _key(ctx)
    if "Schedule" in ctx.operation and "Group" not in ctx.operation and "Name" in p:
        return [schedule_arn(key, p.get("GroupName") or DEFAULT_GROUP, p["Name"])]
    if "ScheduleGroup" in ctx.operation and "Name" in p:
        return [group_arn(key, p["Name"])]
    if "ResourceArn" in p:
        return [p["ResourceArn"]]
    return ["*"]
