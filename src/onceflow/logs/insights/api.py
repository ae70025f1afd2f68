"""Logs Insights operations (JSON 1.1): queries and saved query definitions."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.logs.insights.fields import log_group_fields
from onceflow.logs.insights.service import Insights
from onceflow.registry import operation

Params = dict[str, Any]


class InsightsApi:
    def __init__(self, insights: Insights) -> None:
        self.insights = insights

    @operation("StartQuery")
    def start_query(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.start(ctx.account, ctx.region, p)

    @operation("GetQueryResults")
    def get_query_results(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.results(ctx.account, ctx.region, p["queryId"])

    @operation("StopQuery")
    def stop_query(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.stop(ctx.account, ctx.region, p["queryId"])

    @operation("DescribeQueries")
    def describe_queries(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.describe(ctx.account, ctx.region, p)

    @operation("GetLogGroupFields")
    def get_log_group_fields(self, ctx: RequestContext, p: Params) -> Params:
        return log_group_fields(self.insights.logs, ctx.account, ctx.region, p)

    @operation("GetLogRecord")
    def get_log_record(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.log_record(ctx.account, ctx.region, p["logRecordPointer"])

    @operation("PutQueryDefinition")
    def put_query_definition(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.put_definition(ctx.account, ctx.region, p)

    @operation("DescribeQueryDefinitions")
    def describe_query_definitions(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.describe_definitions(ctx.account, ctx.region, p)

    @operation("DeleteQueryDefinition")
    def delete_query_definition(self, ctx: RequestContext, p: Params) -> Params:
        return self.insights.delete_definition(ctx.account, ctx.region, p["queryDefinitionId"])
