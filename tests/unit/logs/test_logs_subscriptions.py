"""Subscription delivery on a real in-memory store: a group's filters and the account's subscription
filter policy (minus the groups its selectionCriteria leaves out), each batch encoded as AWS sends it."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from typing import Any

import pytest

from onceflow.errors import ServiceError
from onceflow.logs import resources
from onceflow.logs.filters import LogFilters, excluded_groups
from onceflow.logs.service import LogsService
from onceflow.logs.store import MIGRATIONS
from onceflow.store.db import Database

ACCT, REGION, NOW = "000000000000", "us-east-1", 1_700_000_000_000
FN = f"arn:aws:lambda:{REGION}:{ACCT}:function:f"


@pytest.fixture
def filters() -> Iterator[LogFilters]:
    db = Database(":memory:")
    db.migrate(MIGRATIONS)
    found = LogFilters(LogsService(db, clock=lambda: NOW))
    yield found
    db.close()


def account_policy(filters: LogFilters, name: str, doc: dict[str, Any], criteria: str | None = None) -> None:
    data: dict[str, Any] = {"policyName": name, "policyType": "SUBSCRIPTION_FILTER_POLICY",
                            "policyDocument": json.dumps(doc), "lastUpdatedTime": NOW}
    if criteria:
        data["selectionCriteria"] = criteria
    with filters.db.transaction() as conn:
        resources.put(conn, ACCT, REGION, "account-policy", f"SUBSCRIPTION_FILTER_POLICY/{name}", NOW, data)
    filters.forget_subscriptions()


def delivered(filters: LogFilters, writes: list[tuple[str, list[tuple[int, str]]]]) -> list[dict[str, Any]]:
    sent: list[tuple[str, dict[str, Any]]] = []
    filters.invoke = lambda account, region, arn, payload: sent.append((arn, payload))
    for group, events in writes:
        filters.service.append(ACCT, REGION, group, "s", events)
        filters.deliver(ACCT, REGION, group, "s", events)
    filters._pool.shutdown(wait=True)  # every batch handed to the delivery thread has been sent
    return [{"to": arn, **json.loads(gzip.decompress(base64.b64decode(p["awslogs"]["data"])))} for arn, p in sent]


def test_account_policy_applies_to_every_group_it_does_not_leave_out(filters: LogFilters) -> None:
    account_policy(filters, "feed", {"DestinationArn": FN, "FilterPattern": "AUDIT"},
                   'LogGroupName NOT IN ["/aws/lambda/f", "/out"]')
    got = delivered(filters, [("/out", [(NOW, "AUDIT no")]), ("/aws/lambda/f", [(NOW, "AUDIT no")]),
                              ("/in", [(NOW, "AUDIT yes"), (NOW + 1, "INFO no")])])
    assert [(d["to"], d["logGroup"], d["subscriptionFilters"], d["policyLevel"],
             [e["message"] for e in d["logEvents"]]) for d in got] == [
        (FN, "/in", ["feed"], "ACCOUNT_LEVEL_POLICY", ["AUDIT yes"])]


def test_a_group_filter_and_the_account_policy_both_deliver(filters: LogFilters) -> None:
    filters.service.create_group(ACCT, REGION, "/g")
    filters.put_subscription_filter(ACCT, REGION, {"logGroupName": "/g", "filterName": "own", "filterPattern": "",
                                                   "destinationArn": FN})
    account_policy(filters, "feed", {"DestinationArn": FN, "FilterPattern": ""})
    got = delivered(filters, [("/g", [(NOW, "x")])])
    assert sorted((d["subscriptionFilters"][0], "policyLevel" in d) for d in got) == [("feed", True), ("own", False)]


def test_selection_criteria_parse() -> None:
    assert excluded_groups(None) == set()
    assert excluded_groups(' LogGroupName  NOT IN ["a", "b/c"] ') == {"a", "b/c"}
    for bad in ('LogGroupNamePrefix IN ["a"]', "LogGroupName NOT IN [1]", "LogGroupName NOT IN [a]"):
        with pytest.raises(ServiceError) as e:
            excluded_groups(bad)
        assert e.value.code == "InvalidParameterException"
