"""EventBridge operations (JSON 1.1): parsed request members in, output members out."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.events.service import DEFAULT_BUS, EventsService, bus_arn, bus_name, rule_arn
from onceflow.registry import operation

Params = dict[str, Any]


def _key(ctx: RequestContext) -> tuple[str, str]:
    return ctx.account, ctx.region


class EventsApi:
    def __init__(self, service: EventsService) -> None:
        self.service = service

    # ------------------------------------------------------------------ buses
    @operation("CreateEventBus")
    def create_event_bus(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.buses.create_bus(_key(ctx), p)

    @operation("DescribeEventBus")
    def describe_event_bus(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.buses.describe_bus(_key(ctx), p.get("Name"))

    @operation("ListEventBuses")
    def list_event_buses(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.buses.list_buses(_key(ctx), p.get("NamePrefix"), p.get("Limit"), p.get("NextToken"))

    @operation("DeleteEventBus")
    def delete_event_bus(self, ctx: RequestContext, p: Params) -> None:
        self.service.buses.delete_bus(_key(ctx), p["Name"])

    @operation("UpdateEventBus")
    def update_event_bus(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.buses.update_bus(_key(ctx), p)

    @operation("PutPermission")
    def put_permission(self, ctx: RequestContext, p: Params) -> None:
        self.service.buses.put_permission(_key(ctx), p)

    @operation("RemovePermission")
    def remove_permission(self, ctx: RequestContext, p: Params) -> None:
        self.service.buses.remove_permission(_key(ctx), p)

    # ------------------------------------------------------------------ rules
    @operation("PutRule")
    def put_rule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.put_rule(_key(ctx), p)

    @operation("DescribeRule")
    def describe_rule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.describe_rule(_key(ctx), p["Name"], p.get("EventBusName"))

    @operation("EnableRule")
    def enable_rule(self, ctx: RequestContext, p: Params) -> None:
        self.service.rules.set_rule_state(_key(ctx), p["Name"], p.get("EventBusName"), True)

    @operation("DisableRule")
    def disable_rule(self, ctx: RequestContext, p: Params) -> None:
        self.service.rules.set_rule_state(_key(ctx), p["Name"], p.get("EventBusName"), False)

    @operation("DeleteRule")
    def delete_rule(self, ctx: RequestContext, p: Params) -> None:
        self.service.rules.delete_rule(_key(ctx), p["Name"], p.get("EventBusName"), bool(p.get("Force")))

    @operation("ListRules")
    def list_rules(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.list_rules(_key(ctx), p.get("NamePrefix"), p.get("EventBusName"), p.get("Limit"),
                                       p.get("NextToken"))

    @operation("ListRuleNamesByTarget")
    def list_rule_names_by_target(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.rule_names_by_target(_key(ctx), p["TargetArn"], p.get("EventBusName"), p.get("Limit"),
                                                 p.get("NextToken"))

    # ------------------------------------------------------------------ targets
    @operation("PutTargets")
    def put_targets(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.put_targets(_key(ctx), p["Rule"], p.get("EventBusName"), p["Targets"])

    @operation("RemoveTargets")
    def remove_targets(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.remove_targets(_key(ctx), p["Rule"], p.get("EventBusName"), p["Ids"],
                                           bool(p.get("Force")))

    @operation("ListTargetsByRule")
    def list_targets_by_rule(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.rules.list_targets(_key(ctx), p["Rule"], p.get("EventBusName"), p.get("Limit"),
                                         p.get("NextToken"))

    # ------------------------------------------------------------------ events
    @operation("PutEvents")
    def put_events(self, ctx: RequestContext, p: Params) -> Params:
        if p.get("EndpointId"):  # a global endpoint: its primary Region's bus (endpoints.py)
            key, bus = self.service.endpoints.route_of(ctx.account, p["EndpointId"])
            entries = [e if e.get("EventBusName") else {**e, "EventBusName": bus} for e in p["Entries"]]
            return self.service.put_events(key, entries)
        return self.service.put_events(_key(ctx), p["Entries"])

    @operation("TestEventPattern", inline=True)
    def test_event_pattern(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.test_event_pattern(p["EventPattern"], p["Event"])

    # ------------------------------------------------------------------ archives and replays
    @operation("CreateArchive")
    def create_archive(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.create(_key(ctx), p)

    @operation("DescribeArchive")
    def describe_archive(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.describe(_key(ctx), p["ArchiveName"])

    @operation("ListArchives")
    def list_archives(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.list(_key(ctx), p)

    @operation("UpdateArchive")
    def update_archive(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.update(_key(ctx), p)

    @operation("DeleteArchive")
    def delete_archive(self, ctx: RequestContext, p: Params) -> None:
        self.service.archives.delete(_key(ctx), p["ArchiveName"])

    @operation("StartReplay")
    def start_replay(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.start_replay(_key(ctx), p)

    @operation("DescribeReplay")
    def describe_replay(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.describe_replay(_key(ctx), p["ReplayName"])

    @operation("ListReplays")
    def list_replays(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.list_replays(_key(ctx), p)

    @operation("CancelReplay")
    def cancel_replay(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.archives.cancel_replay(_key(ctx), p["ReplayName"])

    # ------------------------------------------------------------------ connections and API destinations
    @operation("CreateConnection")
    def create_connection(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.create_connection(_key(ctx), p)

    @operation("DescribeConnection")
    def describe_connection(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.describe_connection(_key(ctx), p["Name"])

    @operation("ListConnections")
    def list_connections(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.list_connections(_key(ctx), p)

    @operation("UpdateConnection")
    def update_connection(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.update_connection(_key(ctx), p)

    @operation("DeauthorizeConnection")
    def deauthorize_connection(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.deauthorize_connection(_key(ctx), p["Name"])

    @operation("DeleteConnection")
    def delete_connection(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.delete_connection(_key(ctx), p["Name"])

    @operation("CreateApiDestination")
    def create_api_destination(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.create_destination(_key(ctx), p)

    @operation("DescribeApiDestination")
    def describe_api_destination(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.describe_destination(_key(ctx), p["Name"])

    @operation("ListApiDestinations")
    def list_api_destinations(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.list_destinations(_key(ctx), p)

    @operation("UpdateApiDestination")
    def update_api_destination(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.destinations.update_destination(_key(ctx), p)

    @operation("DeleteApiDestination")
    def delete_api_destination(self, ctx: RequestContext, p: Params) -> None:
        self.service.destinations.delete_destination(_key(ctx), p["Name"])

    # ------------------------------------------------------------------ tags
    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> None:
        self.service.tags.set_tags(_key(ctx), p["ResourceARN"], {t["Key"]: t["Value"] for t in p["Tags"]}, [])

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> None:
        self.service.tags.set_tags(_key(ctx), p["ResourceARN"], {}, p["TagKeys"])

    @operation("ListTagsForResource")
    def list_tags_for_resource(self, ctx: RequestContext, p: Params) -> Params:
        tags = self.service.tags.tags(_key(ctx), p["ResourceARN"])
        return {"Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}

    # ------------------------------------------------------------------ global endpoints (endpoints.py)
    @operation("CreateEndpoint")
    def create_endpoint(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.endpoints.create(_key(ctx), p)

    @operation("DescribeEndpoint")
    def describe_endpoint(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.endpoints.describe(_key(ctx), p["Name"], p.get("HomeRegion"))

    @operation("ListEndpoints")
    def list_endpoints(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.endpoints.list(_key(ctx), p)

    @operation("UpdateEndpoint")
    def update_endpoint(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.endpoints.update(_key(ctx), p)

    @operation("DeleteEndpoint")
    def delete_endpoint(self, ctx: RequestContext, p: Params) -> None:
        self.service.endpoints.delete(_key(ctx), p["Name"])

    # ------------------------------------------------------------------ partner event sources (partner.py)
    @operation("CreatePartnerEventSource")
    def create_partner_event_source(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.create(_key(ctx), p["Name"], p["Account"])

    @operation("DeletePartnerEventSource")
    def delete_partner_event_source(self, ctx: RequestContext, p: Params) -> None:
        self.service.partner.delete(_key(ctx), p["Name"], p["Account"])

    @operation("DescribePartnerEventSource")
    def describe_partner_event_source(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.describe_partner(_key(ctx), p["Name"])

    @operation("ListPartnerEventSources")
    def list_partner_event_sources(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.list_partner(_key(ctx), p)

    @operation("ListPartnerEventSourceAccounts")
    def list_partner_event_source_accounts(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.accounts(_key(ctx), p)

    @operation("PutPartnerEvents")
    def put_partner_events(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.put_events(_key(ctx), list(p["Entries"]))

    @operation("DescribeEventSource")
    def describe_event_source(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.describe(_key(ctx), p["Name"])

    @operation("ListEventSources")
    def list_event_sources(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.partner.list(_key(ctx), p)

    @operation("ActivateEventSource")
    def activate_event_source(self, ctx: RequestContext, p: Params) -> None:
        self.service.partner.activate(_key(ctx), p["Name"])

    @operation("DeactivateEventSource")
    def deactivate_event_source(self, ctx: RequestContext, p: Params) -> None:
        self.service.partner.deactivate(_key(ctx), p["Name"])


def resolve_resources(ctx: RequestContext, p: Params) -> list[str]:
    """The ARNs an EventBridge call acts on (for IAM)."""
    region, account = ctx.region, ctx.account
    op = ctx.operation
    if op in ("PutRule", "DescribeRule", "EnableRule", "DisableRule", "DeleteRule"):
        return [rule_arn(region, account, bus_name(p.get("EventBusName")), p.get("Name", ""))]
    if op in ("PutTargets", "RemoveTargets", "ListTargetsByRule"):
        return [rule_arn(region, account, bus_name(p.get("EventBusName")), p.get("Rule", ""))]
    if op in ("CreateEventBus", "DescribeEventBus", "DeleteEventBus", "UpdateEventBus"):
        return [bus_arn(region, account, bus_name(p.get("Name")))]
    if op in ("PutPermission", "RemovePermission", "ListRules", "ListRuleNamesByTarget"):
        return [bus_arn(region, account, bus_name(p.get("EventBusName")))]
    if op == "PutEvents":
        arns = {e["EventBusName"] if str(e.get("EventBusName", "")).startswith("arn:")
                else bus_arn(region, account, bus_name(e.get("EventBusName"))) for e in p.get("Entries") or []}
        return sorted(arns) or [bus_arn(region, account, DEFAULT_BUS)]
    if "Archive" in op and "ArchiveName" in p:
        return [f"arn:{partition(region)}:events:{region}:{account}:archive/{p['ArchiveName']}"]
    if "Replay" in op and "ReplayName" in p:
        return [f"arn:{partition(region)}:events:{region}:{account}:replay/{p['ReplayName']}"]
    if op in ("CreateEndpoint", "DescribeEndpoint", "UpdateEndpoint", "DeleteEndpoint"):
        home = p.get("HomeRegion") or region
        return [f"arn:{partition(home)}:events:{home}:{account}:endpoint/{p.get('Name', '')}"]
    if "EventSource" in op and p.get("Name", p.get("EventSourceName")):
        return [f"arn:{partition(region)}:events:{region}::event-source/{p.get('Name', p.get('EventSourceName'))}"]
    if op in ("TagResource", "UntagResource", "ListTagsForResource"):
        return [p.get("ResourceARN", "*")]
    return ["*"]
