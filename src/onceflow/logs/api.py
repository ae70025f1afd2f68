"""CloudWatch Logs operations: parsed request members in, output members out (JSON 1.1)."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.logs import resources
from onceflow.logs.service import LogsService, group_arn
from onceflow.registry import operation

Params = dict[str, Any]


class LogsApi:
    def __init__(self, service: LogsService) -> None:
        self.service = service

    def _group_of(self, ctx: RequestContext, p: Params) -> str:
        return self.service.resolve_group_name(
            ctx.account, ctx.region, p.get("logGroupName"), p.get("logGroupIdentifier")
        )

    # ------------------------------------------------------------------------------ groups
    @operation("CreateLogGroup")
    def create_log_group(self, ctx: RequestContext, p: Params) -> None:
        self.service.create_group(
            ctx.account, ctx.region, p["logGroupName"], tags=p.get("tags"), kms_key_id=p.get("kmsKeyId"),
            log_class=p.get("logGroupClass"), deletion_protection=bool(p.get("deletionProtectionEnabled")),
        )

    @operation("DeleteLogGroup")
    def delete_log_group(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_group(ctx.account, ctx.region, p["logGroupName"])

    # Not inline: a logGroupNamePattern scans every group of the account and region, work that grows
    # with what users created, and the event loop must not wait for it.
    @operation("DescribeLogGroups")
    def describe_log_groups(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.describe_groups(
            ctx.account, ctx.region, prefix=p.get("logGroupNamePrefix"), pattern=p.get("logGroupNamePattern"),
            log_class=p.get("logGroupClass"), limit=p.get("limit"), token=p.get("nextToken"),
            identifiers=p.get("logGroupIdentifiers"),
        )

    @operation("PutLogGroupDeletionProtection")
    def put_log_group_deletion_protection(self, ctx: RequestContext, p: Params) -> None:
        self.service.set_deletion_protection(ctx.account, ctx.region, p["logGroupIdentifier"],
                                             bool(p["deletionProtectionEnabled"]))

    @operation("AssociateKmsKey")
    def associate_kms_key(self, ctx: RequestContext, p: Params) -> None:
        self.service.set_kms_key(ctx.account, ctx.region, p.get("logGroupName"), p.get("resourceIdentifier"),
                                 p["kmsKeyId"])

    @operation("DisassociateKmsKey")
    def disassociate_kms_key(self, ctx: RequestContext, p: Params) -> None:
        self.service.set_kms_key(ctx.account, ctx.region, p.get("logGroupName"), p.get("resourceIdentifier"), None)

    @operation("ListLogGroups")
    def list_log_groups(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_groups(ctx.account, ctx.region, p)

    @operation("PutRetentionPolicy")
    def put_retention_policy(self, ctx: RequestContext, p: Params) -> None:
        self.service.put_retention(ctx.account, ctx.region, p["logGroupName"], p["retentionInDays"])

    @operation("DeleteRetentionPolicy")
    def delete_retention_policy(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_retention(ctx.account, ctx.region, p["logGroupName"])

    # ------------------------------------------------------------------------------ tags
    @operation("TagLogGroup")
    def tag_log_group(self, ctx: RequestContext, p: Params) -> None:
        self.service.tag_group(ctx.account, ctx.region, p["logGroupName"], p["tags"])

    @operation("UntagLogGroup")
    def untag_log_group(self, ctx: RequestContext, p: Params) -> None:
        self.service.untag_group(ctx.account, ctx.region, p["logGroupName"], p["tags"])

    @operation("ListTagsLogGroup")
    def list_tags_log_group(self, ctx: RequestContext, p: Params) -> Params:
        return {"tags": self.service.list_tags(ctx.account, ctx.region, p["logGroupName"])}

    # A log group's ARN, or a destination's or a delivery resource's (resources.py).
    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> None:
        if resources.parse_arn(p["resourceArn"]) is not None:
            return resources.set_tags(self.service.db, ctx.account, ctx.region, p["resourceArn"], add=p["tags"])
        name = self.service.group_name_from_arn(ctx.account, ctx.region, p["resourceArn"])
        self.service.tag_group(ctx.account, ctx.region, name, p["tags"])

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> None:
        if resources.parse_arn(p["resourceArn"]) is not None:
            return resources.set_tags(self.service.db, ctx.account, ctx.region, p["resourceArn"],
                                      remove=p["tagKeys"])
        name = self.service.group_name_from_arn(ctx.account, ctx.region, p["resourceArn"])
        self.service.untag_group(ctx.account, ctx.region, name, p["tagKeys"])

    @operation("ListTagsForResource")
    def list_tags_for_resource(self, ctx: RequestContext, p: Params) -> Params:
        if resources.parse_arn(p["resourceArn"]) is not None:
            return {"tags": resources.tags_of(self.service.db, ctx.account, ctx.region, p["resourceArn"])}
        name = self.service.group_name_from_arn(ctx.account, ctx.region, p["resourceArn"])
        return {"tags": self.service.list_tags(ctx.account, ctx.region, name)}

    # ------------------------------------------------------------------------------ streams
    @operation("CreateLogStream")
    def create_log_stream(self, ctx: RequestContext, p: Params) -> None:
        self.service.create_stream(ctx.account, ctx.region, p["logGroupName"], p["logStreamName"])

    @operation("DeleteLogStream")
    def delete_log_stream(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_stream(ctx.account, ctx.region, p["logGroupName"], p["logStreamName"])

    @operation("DescribeLogStreams")
    def describe_log_streams(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.describe_streams(
            ctx.account, ctx.region, self._group_of(ctx, p), prefix=p.get("logStreamNamePrefix"),
            order_by=p.get("orderBy"), descending=bool(p.get("descending")), limit=p.get("limit"),
            token=p.get("nextToken"),
        )

    # ------------------------------------------------------------------------------ events
    @operation("PutLogEvents")
    def put_log_events(self, ctx: RequestContext, p: Params) -> Params:
        # sequenceToken is accepted and ignored, as AWS has done since January 2023.
        return self.service.put_events(
            ctx.account, ctx.region, p["logGroupName"], p["logStreamName"], p["logEvents"]
        )

    @operation("GetLogEvents")
    def get_log_events(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.get_events(
            ctx.account, ctx.region, self._group_of(ctx, p), p["logStreamName"], start=p.get("startTime"),
            end=p.get("endTime"), token=p.get("nextToken"), limit=p.get("limit"),
            start_from_head=bool(p.get("startFromHead")),
        )

    @operation("FilterLogEvents")
    def filter_log_events(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.filter_events(
            ctx.account, ctx.region, self._group_of(ctx, p), stream_names=p.get("logStreamNames"),
            stream_prefix=p.get("logStreamNamePrefix"), start=p.get("startTime"), end=p.get("endTime"),
            pattern=p.get("filterPattern"), token=p.get("nextToken"), limit=p.get("limit"),
        )


# ---------------------------------------------------------------------------------- IAM resources
GROUP_LEVEL = {
    "CreateLogGroup", "DeleteLogGroup", "DescribeLogStreams", "PutRetentionPolicy", "DeleteRetentionPolicy",
    "FilterLogEvents", "TagLogGroup", "UntagLogGroup", "ListTagsLogGroup",
    "PutMetricFilter", "DescribeMetricFilters", "DeleteMetricFilter",
    "PutSubscriptionFilter", "DescribeSubscriptionFilters", "DeleteSubscriptionFilter",
    "PutDataProtectionPolicy", "GetDataProtectionPolicy", "DeleteDataProtectionPolicy",
    "PutLogGroupDeletionProtection", "AssociateKmsKey", "DisassociateKmsKey", "CreateExportTask", "GetLogGroupFields",
    "PutIndexPolicy", "DeleteIndexPolicy",
}
MANY_GROUPS = {"DescribeIndexPolicies", "DescribeFieldIndexes"}  # on each group of logGroupIdentifiers
# Operations on the resources of resources.py: (the ARN type they act on, the parameter naming it).
NAMED_LEVEL = {
    "PutDeliverySource": ("delivery-source", "name"), "GetDeliverySource": ("delivery-source", "name"),
    "DeleteDeliverySource": ("delivery-source", "name"),
    "PutDeliveryDestination": ("delivery-destination", "name"),
    "GetDeliveryDestination": ("delivery-destination", "name"),
    "DeleteDeliveryDestination": ("delivery-destination", "name"),
    "PutDeliveryDestinationPolicy": ("delivery-destination", "deliveryDestinationName"),
    "GetDeliveryDestinationPolicy": ("delivery-destination", "deliveryDestinationName"),
    "DeleteDeliveryDestinationPolicy": ("delivery-destination", "deliveryDestinationName"),
    "GetDelivery": ("delivery", "id"), "DeleteDelivery": ("delivery", "id"),
    "UpdateDeliveryConfiguration": ("delivery", "id"),
    "PutDestination": ("destination", "destinationName"), "PutDestinationPolicy": ("destination", "destinationName"),
    "DeleteDestination": ("destination", "destinationName"),
}
STREAM_LEVEL = {"CreateLogStream", "DeleteLogStream", "PutLogEvents", "GetLogEvents"}
ARN_LEVEL = {"TagResource", "UntagResource", "ListTagsForResource"}


def resolve_resources(service: LogsService) -> Any:
    """The ARNs IAM evaluates a Logs call against. AWS names group-level actions
    `...:log-group:<name>:log-stream:` and stream-level ones `...:log-stream:<stream>`, so a policy
    resource `...:log-group:<name>:*` covers both; tagging actions use the plain group ARN."""

    def resolve(ctx: RequestContext, p: Params) -> list[str]:
        op = ctx.operation
        if op in ARN_LEVEL:
            return [str(p.get("resourceArn", ""))]
        if op == "StartQuery":  # on every log group it reads (the log-group resource type's ARN)
            try:
                names = service.query_group_names(ctx.account, ctx.region, p)
            except ServiceError:
                return [f"arn:{partition(ctx.region)}:logs:{ctx.region}:{ctx.account}:log-group:*"]
            # A SOURCE command selects its groups from the query text: the account's groups (UNCONFIRMED).
            return [f"{group_arn(ctx.region, ctx.account, n)}:*" for n in names] or [
                f"arn:{partition(ctx.region)}:logs:{ctx.region}:{ctx.account}:log-group:*"]
        if op in MANY_GROUPS:
            try:
                names = [service.resolve_group_name(ctx.account, ctx.region, None, str(i))
                         for i in p.get("logGroupIdentifiers") or []]
            except ServiceError:
                names = []
            return [f"{group_arn(ctx.region, ctx.account, n)}:log-stream:" for n in names] or [
                f"arn:{partition(ctx.region)}:logs:{ctx.region}:{ctx.account}:log-group:*"]
        if op in NAMED_LEVEL:
            kind, member = NAMED_LEVEL[op]
            return [resources.arn(ctx.region, ctx.account, kind, str(p.get(member, "")))]
        if op == "CreateDelivery":  # the source it reads, the destination it writes to, the delivery it makes
            return [resources.arn(ctx.region, ctx.account, "delivery-source", str(p.get("deliverySourceName", ""))),
                    str(p.get("deliveryDestinationArn", "")), resources.arn(ctx.region, ctx.account, "delivery", "*")]
        if op == "DescribeLogGroups":
            return [f"arn:{partition(ctx.region)}:logs:{ctx.region}:{ctx.account}:log-group::log-stream:"]
        if op not in GROUP_LEVEL and op not in STREAM_LEVEL:
            return ["*"]
        try:
            name = service.resolve_group_name(
                ctx.account, ctx.region, p.get("logGroupName"), p.get("logGroupIdentifier")
            )
        except ServiceError:  # the handler reports the bad parameters; authorize against the account
            return [f"arn:{partition(ctx.region)}:logs:{ctx.region}:{ctx.account}:log-group:*"]
        stream = p.get("logStreamName", "") if op in STREAM_LEVEL else ""
        return [f"{group_arn(ctx.region, ctx.account, name)}:log-stream:{stream}"]

    return resolve


# Calls that may show masked content, and the member that asks them to (AWS: "To use this operation
# with this parameter, you must be signed into an account with the logs:Unmask permission").
UNMASK_MEMBERS = {"GetLogEvents": "unmask", "FilterLogEvents": "unmask", "GetLogRecord": "unmask"}


def unmask_requests(resolve: Any, query_unmasks: Any) -> Any:
    """The action resolver (stack.action_resolvers): a call that asks for unmasked content, or a
    query calling unmask(), needs logs:Unmask on its resources besides its own action; others take
    the operation's own action (None)."""

    def requests(ctx: RequestContext, p: Params) -> list[tuple[str, str, dict[str, list[str]]]] | None:
        member = UNMASK_MEMBERS.get(ctx.operation)
        asks = bool(p.get(member)) if member else ctx.operation == "StartQuery" and query_unmasks(
            str(p.get("queryString") or ""), p.get("queryLanguage"))
        if not asks:
            return None
        arns = resolve(ctx, p) or ["*"]
        return [(f"logs:{ctx.operation}", a, {}) for a in arns] + [("logs:Unmask", a, {}) for a in arns]

    return requests
