"""Metric filter and subscription filter operations (JSON protocol)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.logs import tokens
from onceflow.logs.filter_pattern import compile_pattern
from onceflow.logs.filters import METRIC, SUBSCRIPTION, LogFilters, _matcher
from onceflow.registry import operation

Params = dict[str, Any]


def _page(items: list[Params], p: Params, key: str) -> Params:
    """Describe* paging: `limit` items (default 50) and a token (tokens.py) naming the last one returned;
    one Logs never issued is its "The specified nextToken is invalid." rather than a page after it."""
    token = p.get("nextToken")
    if token:
        after = tokens.decode(key, token, 1)[0]
        items = [i for i in items if i["filterName"] > after]
    limit = p.get("limit") or 50
    out: Params = {key: items[:limit]}
    if len(items) > limit:
        out["nextToken"] = tokens.encode(key, [items[limit - 1]["filterName"]])
    return out


class FiltersApi:
    def __init__(self, filters: LogFilters) -> None:
        self.filters = filters

    @operation("PutMetricFilter")
    def put_metric_filter(self, ctx: RequestContext, p: Params) -> None:
        self.filters.put_metric_filter(ctx.account, ctx.region, p)

    @operation("DescribeMetricFilters")
    def describe_metric_filters(self, ctx: RequestContext, p: Params) -> Params:
        return _page(self.filters.describe_metric_filters(ctx.account, ctx.region, p), p, "metricFilters")

    @operation("DeleteMetricFilter")
    def delete_metric_filter(self, ctx: RequestContext, p: Params) -> None:
        self.filters.delete(ctx.account, ctx.region, p["logGroupName"], METRIC, p["filterName"])

    @operation("TestMetricFilter")
    def test_metric_filter(self, ctx: RequestContext, p: Params) -> Params:
        _matcher(p["filterPattern"])
        matches = compile_pattern(p["filterPattern"])
        return {"matches": [
            {"eventNumber": n, "eventMessage": message, "extractedValues": {}}
            for n, message in enumerate(p["logEventMessages"], start=1) if matches(message)
        ]}

    @operation("PutSubscriptionFilter")
    def put_subscription_filter(self, ctx: RequestContext, p: Params) -> None:
        self.filters.put_subscription_filter(ctx.account, ctx.region, p)

    @operation("DescribeSubscriptionFilters")
    def describe_subscription_filters(self, ctx: RequestContext, p: Params) -> Params:
        found = self.filters.describe_subscription_filters(ctx.account, ctx.region, p)
        return _page(found, p, "subscriptionFilters")

    @operation("DeleteSubscriptionFilter")
    def delete_subscription_filter(self, ctx: RequestContext, p: Params) -> None:
        self.filters.delete(ctx.account, ctx.region, p["logGroupName"], SUBSCRIPTION, p["filterName"])
