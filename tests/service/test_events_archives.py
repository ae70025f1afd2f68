"""EventBridge archives and replays: events kept as they are accepted, replayed to the same bus's
rules with `replay-name`, and AWS's errors for bad input."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
BUS = f"arn:aws:events:us-east-1:{ACCOUNT}:event-bus/"


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def error(call: Callable[[], Any]) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as info:
        call()
    e = info.value.response
    return e["Error"]["Code"], e["Error"]["Message"], e["ResponseMetadata"]["HTTPStatusCode"]


def messages(aws: Callable[..., Any], group: str, count: int, timeout: float = 30) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = [e["message"] for e in aws("logs").filter_log_events(logGroupName=group)["events"]]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_archive_and_replay(aws: Callable[..., Any]) -> None:
    events = aws("events")
    bus = uid("bus")
    bus_arn = events.create_event_bus(Name=bus)["EventBusArn"]
    name = uid("arch")
    out = events.create_archive(ArchiveName=name, EventSourceArn=bus_arn, Description="all orders",
                                EventPattern=json.dumps({"detail-type": ["Order Placed"]}))
    assert out["ArchiveArn"] == f"arn:aws:events:us-east-1:{ACCOUNT}:archive/{name}" and out["State"] == "ENABLED"
    before = datetime.now(UTC) - timedelta(seconds=5)
    for n in range(3):
        events.put_events(Entries=[{"Source": "shop", "DetailType": "Order Placed", "Detail": json.dumps({"n": n}),
                                    "EventBusName": bus}])
    events.put_events(Entries=[{"Source": "shop", "DetailType": "Other", "Detail": "{}", "EventBusName": bus}])
    d = events.describe_archive(ArchiveName=name)
    assert (d["EventCount"], d["Description"], d["EventSourceArn"]) == (3, "all orders", bus_arn)
    assert d["SizeBytes"] > 0
    assert [a["ArchiveName"] for a in events.list_archives(NamePrefix=name)["Archives"]] == [name]

    group = f"/replay/{uuid.uuid4().hex[:8]}"
    aws("logs").create_log_group(logGroupName=group)
    rule = uid("rule")
    events.put_rule(Name=rule, EventBusName=bus, EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule=rule, EventBusName=bus, Targets=[
        {"Id": "l", "Arn": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"}])
    replay = uid("replay")
    started = events.start_replay(ReplayName=replay, EventSourceArn=out["ArchiveArn"], EventStartTime=before,
                                  EventEndTime=datetime.now(UTC) + timedelta(seconds=5),
                                  Destination={"Arn": bus_arn})
    assert started["State"] == "STARTING"
    replayed = [json.loads(m) for m in messages(aws, group, 3)]
    assert sorted(e["detail"]["n"] for e in replayed) == [0, 1, 2]
    assert {e["replay-name"] for e in replayed} == {replay}
    described = events.describe_replay(ReplayName=replay)
    assert (described["State"], described["Destination"]) == ("COMPLETED", {"Arn": bus_arn})
    assert events.describe_archive(ArchiveName=name)["EventCount"] == 3  # replays are not archived again
    assert error(lambda: events.cancel_replay(ReplayName=replay)) == (
        "IllegalStatusException", f"Replay {replay} is not in a valid state for this operation.", 400)
    assert [r["ReplayName"] for r in events.list_replays(NamePrefix=replay)["Replays"]] == [replay]
    events.delete_archive(ArchiveName=name)
    assert error(lambda: events.describe_archive(ArchiveName=name)) == (
        "ResourceNotFoundException", f"Archive {name} does not exist.", 400)


def test_archive_and_replay_errors(aws: Callable[..., Any]) -> None:
    events = aws("events")
    name = uid("arch")
    default = BUS + "default"
    arn = events.create_archive(ArchiveName=name, EventSourceArn=default)["ArchiveArn"]
    assert error(lambda: events.create_archive(ArchiveName=name, EventSourceArn=default)) == (
        "ResourceAlreadyExistsException", f"Archive {name} already exists.", 400)
    assert error(lambda: events.create_archive(ArchiveName=uid("a"), EventSourceArn=BUS + "nope")) == (
        "ResourceNotFoundException", "Event bus nope does not exist.", 400)
    assert error(lambda: events.create_archive(ArchiveName=uid("a"), EventSourceArn=default,
                                               EventPattern='{"a": 1}'))[0] == "InvalidEventPatternException"
    other = events.create_event_bus(Name=uid("bus"))["EventBusArn"]
    window = {"EventStartTime": datetime(2021, 2, 1), "EventEndTime": datetime(2021, 2, 2)}
    assert error(lambda: events.start_replay(ReplayName=uid("r"), EventSourceArn=arn, Destination={"Arn": other},
                                             **window)) == (
        "ValidationException", "Parameter Destination.Arn is not valid. Reason: Cross event bus replay is not "
                               "permitted.", 400)
    assert error(lambda: events.start_replay(ReplayName=uid("r"), EventSourceArn=arn, Destination={"Arn": default},
                                             EventStartTime=datetime(2021, 2, 2), EventEndTime=datetime(2021, 2, 1))) \
        == ("ValidationException", "Parameter EventEndTime is not valid. Reason: EventStartTime must be before "
                                   "EventEndTime.", 400)
    missing = f"arn:aws:events:us-east-1:{ACCOUNT}:archive/none"
    assert error(lambda: events.start_replay(ReplayName=uid("r"), EventSourceArn=missing,
                                             Destination={"Arn": default}, **window)) == (
        "ValidationException", "Parameter EventSourceArn is not valid. Reason: Archive none does not exist.", 400)
    # the destination is checked first
    assert error(lambda: events.start_replay(ReplayName=uid("r"), EventSourceArn=missing,
                                             Destination={"Arn": BUS + "nope"}, **window)) == (
        "ResourceNotFoundException", "Event bus nope does not exist.", 400)
    assert error(lambda: events.start_replay(ReplayName=uid("r"), EventSourceArn=missing,
                                             Destination={"Arn": "invalid"}, **window)) == (
        "ValidationException", "Parameter Destination.Arn is not valid. Reason: Must contain an event bus ARN.", 400)
    assert error(lambda: events.describe_replay(ReplayName="none")) == (
        "ResourceNotFoundException", "Replay none does not exist.", 400)


def test_archive_managed_rule(aws: Callable[..., Any]) -> None:
    """AWS keeps an archive by a rule it manages on the bus: listed, not the user's to change."""
    events = aws("events")
    bus = uid("bus")
    bus_arn = events.create_event_bus(Name=bus)["EventBusArn"]
    name = uid("arch")
    archive_arn = events.create_archive(ArchiveName=name, EventSourceArn=bus_arn,
                                        EventPattern=json.dumps({"source": ["shop"]}))["ArchiveArn"]
    rule = f"Events-Archive-{name}"
    [listed] = events.list_rules(EventBusName=bus)["Rules"]
    assert (listed["Name"], listed["ManagedBy"], listed["State"]) == (rule, "prod.vhs.events.aws.internal", "ENABLED")
    assert json.loads(listed["EventPattern"]) == {"source": ["shop"], "replay-name": [{"exists": False}]}
    [target] = events.list_targets_by_rule(Rule=rule, EventBusName=bus)["Targets"]
    assert (target["Id"], target["Arn"]) == (rule, "arn:aws:events:us-east-1:::")
    assert f'"archive-arn": "{archive_arn}:' in target["InputTransformer"]["InputTemplate"]

    managed = ("ManagedRuleException", f"{rule} is a managed rule. Set 'force' parameter to true to override.", 400)
    assert error(lambda: events.delete_rule(Name=rule, EventBusName=bus)) == managed
    assert error(lambda: events.remove_targets(Rule=rule, EventBusName=bus, Ids=[rule])) == managed
    assert error(lambda: events.disable_rule(Name=rule, EventBusName=bus)) == managed
    assert error(lambda: events.put_rule(Name=rule, EventBusName=bus, EventPattern='{"source": ["x"]}')) == managed
    assert events.describe_rule(Name=rule, EventBusName=bus)["State"] == "ENABLED"  # nothing changed

    events.update_archive(ArchiveName=name, EventPattern=json.dumps({"source": ["shop", "mall"]}))
    pattern = json.loads(events.describe_rule(Name=rule, EventBusName=bus)["EventPattern"])
    assert pattern == {"source": ["shop", "mall"], "replay-name": [{"exists": False}]}
    events.put_events(Entries=[{"Source": "mall", "DetailType": "t", "Detail": "{}", "EventBusName": bus}])
    assert events.describe_archive(ArchiveName=name)["EventCount"] == 1

    events.delete_archive(ArchiveName=name)  # takes its rule with it
    assert events.list_rules(EventBusName=bus)["Rules"] == []

    # With Force the user may remove the rule, and the archive then keeps nothing more.
    name = uid("arch")
    events.create_archive(ArchiveName=name, EventSourceArn=bus_arn)
    rule = f"Events-Archive-{name}"
    events.remove_targets(Rule=rule, EventBusName=bus, Ids=[rule], Force=True)
    events.delete_rule(Name=rule, EventBusName=bus, Force=True)
    events.put_events(Entries=[{"Source": "mall", "DetailType": "t", "Detail": "{}", "EventBusName": bus}])
    assert events.describe_archive(ArchiveName=name)["EventCount"] == 0


def archived_bus(aws: Callable[..., Any]) -> tuple[str, str, str, str]:
    """A new bus with an archive of everything on it, and a log group to replay into:
    (bus name, bus ARN, archive ARN, group name)."""
    events = aws("events")
    bus = uid("bus")
    bus_arn = events.create_event_bus(Name=bus)["EventBusArn"]
    archive = events.create_archive(ArchiveName=uid("arch"), EventSourceArn=bus_arn)["ArchiveArn"]
    group = f"/replay/{uuid.uuid4().hex[:8]}"
    aws("logs").create_log_group(logGroupName=group)
    return bus, bus_arn, archive, group


def test_replay_selects_by_the_time_in_the_event(aws: Callable[..., Any]) -> None:
    # "A replay processes events to replay based on the time in the event" (StartReplay): an event
    # put with an old Time is replayed by a window around that Time, not around when it arrived.
    events = aws("events")
    bus, bus_arn, archive, group = archived_bus(aws)
    rule = uid("rule")
    events.put_rule(Name=rule, EventBusName=bus, EventPattern=json.dumps({"source": ["old", "new"]}))
    old = datetime(2021, 1, 1, 12, 23, 34, tzinfo=UTC)
    events.put_events(Entries=[{"Source": "old", "DetailType": "t", "Detail": "{}", "EventBusName": bus, "Time": old}])
    events.put_events(Entries=[{"Source": "new", "DetailType": "t", "Detail": "{}", "EventBusName": bus}])
    events.put_targets(Rule=rule, EventBusName=bus, Targets=[
        {"Id": "l", "Arn": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"}])
    replay = uid("replay")
    events.start_replay(ReplayName=replay, EventSourceArn=archive, EventStartTime=datetime(2021, 1, 1, tzinfo=UTC),
                        EventEndTime=datetime(2021, 1, 2, tzinfo=UTC), Destination={"Arn": bus_arn})
    replayed = [json.loads(m) for m in messages(aws, group, 1)]
    assert [(e["source"], e["time"], e["replay-name"]) for e in replayed] == [("old", "2021-01-01T12:23:34Z", replay)]
    described = events.describe_replay(ReplayName=replay)
    assert described["EventLastReplayedTime"] == old


def _time_scale(url: str, scale: float | None = None) -> float:
    """The server's time scale (/_onceflow/time-scale), set first when `scale` is given."""
    body = json.dumps({"timeScale": scale}).encode() if scale is not None else None
    request = urllib.request.Request(f"{url}/_onceflow/time-scale", data=body, method="POST" if body else "GET",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return float(json.loads(answer.read())["timeScale"])


def test_a_replay_cancelled_while_starting_replays_nothing(aws: Callable[..., Any], endpoint: str) -> None:
    events = aws("events")
    bus, bus_arn, archive, group = archived_bus(aws)
    before = datetime.now(UTC) - timedelta(seconds=5)
    events.put_events(Entries=[{"Source": "shop", "DetailType": "t", "Detail": "{}", "EventBusName": bus}])
    rule = uid("rule")
    events.put_rule(Name=rule, EventBusName=bus, EventPattern=json.dumps({"source": ["shop"]}))
    events.put_targets(Rule=rule, EventBusName=bus, Targets=[
        {"Id": "l", "Arn": f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"}])
    replay = uid("replay")
    scale = _time_scale(endpoint)
    _time_scale(endpoint, scale / 1e6)  # time all but stands still: the replay stays STARTING
    try:
        events.start_replay(ReplayName=replay, EventSourceArn=archive, EventStartTime=before,
                            EventEndTime=datetime.now(UTC) + timedelta(seconds=5), Destination={"Arn": bus_arn})
        assert events.describe_replay(ReplayName=replay)["State"] == "STARTING"
        assert events.cancel_replay(ReplayName=replay)["State"] == "CANCELLING"
        assert events.describe_replay(ReplayName=replay)["State"] == "CANCELLING"
    finally:
        _time_scale(endpoint, scale)
    deadline = time.monotonic() + 30
    while events.describe_replay(ReplayName=replay)["State"] == "CANCELLING" and time.monotonic() < deadline:
        time.sleep(0.05)
    described = events.describe_replay(ReplayName=replay)
    assert described["State"] == "CANCELLED" and "ReplayEndTime" in described
    assert error(lambda: events.cancel_replay(ReplayName=replay))[0] == "IllegalStatusException"
    assert aws("logs").filter_log_events(logGroupName=group)["events"] == []
