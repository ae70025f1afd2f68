"""ListLogGroups: name patterns (prefix with ^, substring, up to five alternatives), class and tag
filters, paging."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def test_list_log_groups_filters_and_pages(aws: Callable[..., Any]) -> None:
    logs = aws("logs")
    tag = uuid.uuid4().hex[:8]
    names = [f"/ll{tag}/lambda/a", f"/ll{tag}/lambda/b", f"/ll{tag}/ecs/discovery", f"/other{tag}"]
    for n in names:
        logs.create_log_group(logGroupName=n, tags={"team": "red" if "lambda" in n else "blue"})
    logs.create_log_group(logGroupName=f"/ll{tag}/ia", logGroupClass="INFREQUENT_ACCESS")

    def listed(**params: Any) -> list[str]:
        return [g["logGroupName"] for g in logs.list_log_groups(**params)["logGroups"]]

    assert listed(logGroupNamePattern=f"^/ll{tag}/lambda") == names[:2]
    assert listed(logGroupNamePattern=f"^/ll{tag}/lambda|discovery") == [names[2], *names[:2]]
    assert listed(logGroupNamePattern=f"other{tag}") == [names[3]]  # a substring
    assert listed(logGroupNamePattern=f"^ll{tag}") == []  # a prefix must match from the start
    assert listed(logGroupNamePattern=f"^/ll{tag}", logGroupClass="INFREQUENT_ACCESS") == [f"/ll{tag}/ia"]
    assert listed(logGroupNamePattern=f"{tag}", logGroupTags=[{"key": "team", "values": ["blue"]}]) == [
        names[2], names[3]]
    assert listed(logGroupNamePattern=f"{tag}", fieldIndexNames=["requestId"]) == []
    first = logs.list_log_groups(logGroupNamePattern=f"^/ll{tag}", limit=2)
    assert [g["logGroupName"] for g in first["logGroups"]] == [names[2], f"/ll{tag}/ia"]
    assert first["logGroups"][0] == {"logGroupName": names[2], "logGroupClass": "STANDARD",
                                     "logGroupArn": f"arn:aws:logs:us-east-1:000000000000:log-group:{names[2]}"}
    rest = logs.list_log_groups(logGroupNamePattern=f"^/ll{tag}", limit=2, nextToken=first["nextToken"])
    assert [g["logGroupName"] for g in rest["logGroups"]] == names[:2] and "nextToken" not in rest
    with pytest.raises(ClientError) as e:
        logs.list_log_groups(nextToken="bogus")
    assert e.value.response["Error"]["Code"] == "InvalidParameterException"
