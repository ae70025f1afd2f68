"""EventBridge details moto's suite checks and AWS shows: the default bus has a creation time,
ListArchives / ListReplays take one filter at a time."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError


def test_default_bus_has_creation_time(aws: Any) -> None:
    events = aws("events")
    described = events.describe_event_bus()
    assert described["Name"] == "default"
    assert isinstance(described["CreationTime"], datetime.datetime)
    assert isinstance(described["LastModifiedTime"], datetime.datetime)
    listed = {b["Name"]: b for b in events.list_event_buses()["EventBuses"]}
    assert listed["default"]["CreationTime"] == described["CreationTime"]


def test_list_archives_and_replays_take_one_filter(aws: Any) -> None:
    events = aws("events")
    bus_arn = events.describe_event_bus()["Arn"]
    for call, operation in ((events.list_archives, "ListArchives"), (events.list_replays, "ListReplays")):
        with pytest.raises(ClientError) as exc:
            call(NamePrefix="a", EventSourceArn=bus_arn)
        assert exc.value.response["Error"]["Code"] == "ValidationException"
        assert exc.value.response["Error"]["Message"] == (
            f"At most one filter is allowed for {operation}. Use either : State, EventSourceArn, or NamePrefix.")
        assert isinstance(call(NamePrefix="a")[operation[4:]], list)
