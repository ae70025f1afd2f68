"""CloudWatch Contributor Insights for a table and its global secondary indexes: its setting is kept
and answered (Describe/Update/ListContributorInsights); no CloudWatch rules are run.

An ENABLE or DISABLE answers ENABLING or DISABLING, as DynamoDB's does, and the setting is in force
at once, so a later Describe says ENABLED or DISABLED (AWS takes a moment to get there)."""

from __future__ import annotations

import copy
import time
from typing import Any

from onceflow import pages
from onceflow.ddb import errors
from onceflow.ddb.schema import Table
from onceflow.ddb.service import DynamoDB
from onceflow.errors import ServiceError, validation_error

DEFAULT_MODE = "ACCESSED_AND_THROTTLED_KEYS"
LIST_LIMIT = 100  # the model's most ContributorInsightsSummaries per page


def _bad_token() -> ServiceError:
    return validation_error("Invalid NextToken")  # UNCONFIRMED: AWS's wording


class ContributorInsights:
    def __init__(self, svc: DynamoDB) -> None:
        self.svc = svc

    def _target(self, account: str, region: str, table: str, index: str | None) -> Table:
        t = self.svc.table(account, region, table, describe=True)
        if index is not None and (index not in t.indexes or t.indexes[index].kind != "GSI"):
            raise errors.index_not_found(index)  # UNCONFIRMED: an LSI is refused as an unknown index
        return t

    def describe(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        t = self._target(account, region, p["TableName"], p.get("IndexName"))
        out = _named(t, p.get("IndexName"))
        setting = t.insights.get(p.get("IndexName") or "")
        if setting is None:
            return {**out, "ContributorInsightsStatus": "DISABLED"}
        out.update(ContributorInsightsStatus=setting["status"], LastUpdateDateTime=setting["updated"])
        if setting["status"] == "ENABLED":
            out["ContributorInsightsRuleList"] = _rules(t, p.get("IndexName"), setting["updated"])
            out["ContributorInsightsMode"] = setting["mode"]
        return out

    def update(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        index = p.get("IndexName")
        t = copy.deepcopy(self._target(account, region, p["TableName"], index))
        enable = p["ContributorInsightsAction"] == "ENABLE"
        old = t.insights.get(index or "", {})
        mode = p.get("ContributorInsightsMode") or old.get("mode") or DEFAULT_MODE
        t.insights[index or ""] = {"status": "ENABLED" if enable else "DISABLED", "mode": mode,
                                   "updated": time.time()}
        self.svc.save(t)
        return {**_named(t, index), "ContributorInsightsStatus": "ENABLING" if enable else "DISABLING",
                "ContributorInsightsMode": mode}

    def list(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        limit = p.get("MaxResults") or LIST_LIMIT
        if p.get("TableName"):
            t = self.svc.table(account, region, p["TableName"], describe=True)
            # A table's listing names the table and each of its global secondary indexes.
            rows = [_summary(t, None)] + [_summary(t, n) for n, ix in t.indexes.items() if ix.kind == "GSI"]
        else:
            rows = [_summary(t, k or None) for t in self.svc.all_tables(account, region)
                    for k, s in sorted(t.insights.items()) if s["status"] != "DISABLED"]
        start = pages.offset_of(p.get("NextToken"), _bad_token)
        out: dict[str, Any] = {"ContributorInsightsSummaries": rows[start:start + limit]}
        if start + limit < len(rows):
            out["NextToken"] = pages.offset_token(start + limit)
        return out


def _named(t: Table, index: str | None) -> dict[str, Any]:
    return {"TableName": t.name, **({"IndexName": index} if index else {})}


def _summary(t: Table, index: str | None) -> dict[str, Any]:
    setting = t.insights.get(index or "")
    out = {**_named(t, index), "ContributorInsightsStatus": setting["status"] if setting else "DISABLED"}
    if setting and setting["status"] == "ENABLED":
        out["ContributorInsightsMode"] = setting["mode"]
    return out


def _rules(t: Table, index: str | None, updated: float) -> list[str]:
    """The CloudWatch rules DynamoDB names for the keys it watches: most accessed (C) and most throttled
    (T) partition keys, and sort keys where there is one (UNCONFIRMED: the names' exact form)."""
    has_range = bool(t.indexes[index].range_keys) if index else t.range is not None
    target = f"{t.name}-{index}" if index else t.name
    kinds = ["PKC", "PKT"] + (["SKC", "SKT"] if has_range else [])
    return [f"DynamoDBContributorInsights-{k}-{target}-{int(updated * 1000)}" for k in kinds]
