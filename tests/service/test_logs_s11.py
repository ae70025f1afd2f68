"""Logs cases for issue 22 (session 11), against a real server: a metric namespace AWS accepts though
its model's pattern refuses it (wire/validate.PATTERN_ACCEPTED)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from calls import refused


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


def test_metric_namespace_with_colon_is_accepted_and_found(logs: Any) -> None:
    # As AWS does in LocalStack's AWS-validated test_put_metric_filter_with_special_namespace.
    group = f"/s11/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    namespace = "A.B-c_d/1#2:metricNamespace"
    logs.put_metric_filter(logGroupName=group, filterName="f", filterPattern="filterPattern",
                           metricTransformations=[{"metricNamespace": namespace, "metricName": "metricName",
                                                   "metricValue": "1"}])
    found = logs.describe_metric_filters(metricName="metricName", metricNamespace=namespace)["metricFilters"]
    assert [(f["filterName"], f["logGroupName"]) for f in found] == [("f", group)]
    assert found[0]["metricTransformations"][0]["metricNamespace"] == namespace


def test_metric_namespace_with_star_is_still_refused(logs: Any) -> None:
    group = f"/s11/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    code, message = refused(logs.put_metric_filter, logGroupName=group, filterName="f", filterPattern="x",
                            metricTransformations=[{"metricNamespace": "a*b", "metricName": "m",
                                                    "metricValue": "1"}])
    assert code == "InvalidParameterException", (code, message)
    assert "'metricTransformations.1.member.metricNamespace' failed to satisfy constraint" in message
    assert logs.describe_metric_filters(logGroupName=group)["metricFilters"] == []
