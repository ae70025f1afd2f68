"""The Logs service rules, on a real in-memory store with a fixed clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from onceflow import pages
from onceflow.errors import ServiceError
from onceflow.logs import tokens
from onceflow.logs.events import DAY, HOUR
from onceflow.logs.service import LogsService
from onceflow.logs.store import MIGRATIONS
from onceflow.store.db import Database

ACCT, REGION = "000000000000", "us-east-1"
NOW = 1_700_000_000_000


@pytest.fixture
def svc() -> Iterator[LogsService]:
    db = Database(":memory:")
    db.migrate(MIGRATIONS)
    yield LogsService(db, clock=lambda: NOW)
    db.close()


def error_of(fn, *args, **kwargs) -> ServiceError:  # type: ignore[no-untyped-def]
    with pytest.raises(ServiceError) as info:
        fn(*args, **kwargs)
    return info.value


def setup_stream(svc: LogsService, group: str = "g", stream: str = "s") -> None:
    svc.create_group(ACCT, REGION, group)
    svc.create_stream(ACCT, REGION, group, stream)


def put(svc: LogsService, events: list[tuple[int, str]], group: str = "g", stream: str = "s") -> dict:
    return svc.put_events(ACCT, REGION, group, stream, [{"timestamp": t, "message": m} for t, m in events])


# ------------------------------------------------------------------------------------------ groups
def test_group_lifecycle_and_errors(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "/app/one")
    err = error_of(svc.create_group, ACCT, REGION, "/app/one")
    assert (err.code, err.message) == ("ResourceAlreadyExistsException", "The specified log group already exists")
    group = svc.describe_groups(ACCT, REGION)["logGroups"][0]
    assert group == {
        "logGroupName": "/app/one", "creationTime": NOW, "metricFilterCount": 0,
        "arn": f"arn:aws:logs:{REGION}:{ACCT}:log-group:/app/one:*", "storedBytes": 0, "logGroupClass": "STANDARD",
        "logGroupArn": f"arn:aws:logs:{REGION}:{ACCT}:log-group:/app/one", "deletionProtectionEnabled": False,
    }
    svc.delete_group(ACCT, REGION, "/app/one")
    err = error_of(svc.delete_group, ACCT, REGION, "/app/one")
    assert (err.code, err.message, err.status) == (
        "ResourceNotFoundException", "The specified log group does not exist.", 400)


def test_groups_are_isolated_by_account_and_region(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g")
    svc.create_group("111111111111", REGION, "g")
    svc.create_group(ACCT, "eu-west-1", "g")
    assert len(svc.describe_groups(ACCT, REGION)["logGroups"]) == 1
    assert svc.describe_groups(ACCT, "eu-west-1")["logGroups"][0]["arn"].startswith("arn:aws:logs:eu-west-1:")


def test_describe_groups_prefix_paging_and_ascii_order(svc: LogsService) -> None:
    for name in ["b/2", "a/1", "b/1", "B/0", "b/3", "c"]:
        svc.create_group(ACCT, REGION, name)
    names = [g["logGroupName"] for g in svc.describe_groups(ACCT, REGION)["logGroups"]]
    assert names == ["B/0", "a/1", "b/1", "b/2", "b/3", "c"]
    page = svc.describe_groups(ACCT, REGION, prefix="b/", limit=2)
    assert [g["logGroupName"] for g in page["logGroups"]] == ["b/1", "b/2"]
    rest = svc.describe_groups(ACCT, REGION, prefix="b/", limit=2, token=page["nextToken"])
    assert [g["logGroupName"] for g in rest["logGroups"]] == ["b/3"]
    assert "nextToken" not in rest
    assert error_of(svc.describe_groups, ACCT, REGION, token="garbage").message == (
        "The specified nextToken is invalid.")
    # A token of another listing, or of another service's, decodes but is not this listing's.
    svc.create_stream(ACCT, REGION, "c", "s1")
    svc.create_stream(ACCT, REGION, "c", "s2")
    streams_token = svc.describe_streams(ACCT, REGION, "c", limit=1)["nextToken"]
    for foreign in (streams_token, pages.offset_token(1), pages.encode(["b/2", "extra"], "g")):
        assert error_of(svc.describe_groups, ACCT, REGION, token=foreign).message == (
            "The specified nextToken is invalid.")
    assert error_of(svc.describe_groups, ACCT, REGION, prefix="a", pattern="b").message == (
        "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters.")
    brief = svc.describe_groups(ACCT, REGION, pattern="/")["logGroups"]
    assert [g["logGroupName"] for g in brief] == ["B/0", "a/1", "b/1", "b/2", "b/3"]
    assert "storedBytes" not in brief[0]
    arn = f"arn:aws:logs:{REGION}:{ACCT}:log-group:c"
    chosen = svc.describe_groups(ACCT, REGION, identifiers=["a/1", arn, "missing"])["logGroups"]
    assert [g["logGroupName"] for g in chosen] == ["a/1", "c"]


def test_retention_policy(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g")
    svc.put_retention(ACCT, REGION, "g", 7)
    assert svc.describe_groups(ACCT, REGION)["logGroups"][0]["retentionInDays"] == 7
    err = error_of(svc.put_retention, ACCT, REGION, "g", 2)
    assert err.code == "InvalidParameterException"
    assert err.message.startswith("1 validation error detected: Value '2' at 'retentionInDays'")
    svc.delete_retention(ACCT, REGION, "g")
    assert "retentionInDays" not in svc.describe_groups(ACCT, REGION)["logGroups"][0]
    assert error_of(svc.put_retention, ACCT, REGION, "nope", 7).code == "ResourceNotFoundException"


def test_tags_by_name_and_by_arn(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g", tags={"env": "testing1"})
    svc.tag_group(ACCT, REGION, "g", {"test1": "val1"})
    arn = f"arn:aws:logs:{REGION}:{ACCT}:log-group:g"
    name = svc.group_name_from_arn(ACCT, REGION, arn)
    svc.tag_group(ACCT, REGION, name, {"test2": "val2"})
    assert svc.list_tags(ACCT, REGION, "g") == {"env": "testing1", "test1": "val1", "test2": "val2"}
    svc.untag_group(ACCT, REGION, "g", ["env", "test1"])
    assert svc.list_tags(ACCT, REGION, "g") == {"test2": "val2"}
    assert svc.group_name_from_arn(ACCT, REGION, arn + ":*") == "g"


def test_names_longer_than_512_get_aws_message(svc: LogsService) -> None:
    err = error_of(svc.create_group, ACCT, REGION, "g" * 513)
    assert err.message == "Invalid LogGroup or LogStream, both must have length less than or equal to 512."


def test_group_identifier_name_or_arn(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g")
    arn = f"arn:aws:logs:{REGION}:{ACCT}:log-group:g"
    assert svc.resolve_group_name(ACCT, REGION, None, arn) == "g"
    assert svc.resolve_group_name(ACCT, REGION, None, "g") == "g"
    err = error_of(svc.resolve_group_name, ACCT, REGION, "g", arn)
    assert (err.code, err.message) == (
        "ValidationException", "LogGroup name and LogGroup ARN are mutually exclusive parameters.")


# ------------------------------------------------------------------------------------------ streams
def test_streams_describe_order_and_paging(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g")
    for name, ts in [("b", NOW - 30), ("a", NOW - 10), ("c", NOW - 20)]:
        svc.create_stream(ACCT, REGION, "g", name)
        put(svc, [(ts, name)], stream=name)
    svc.create_stream(ACCT, REGION, "g", "empty")
    names = lambda r: [s["logStreamName"] for s in r["logStreams"]]  # noqa: E731
    assert names(svc.describe_streams(ACCT, REGION, "g")) == ["a", "b", "c", "empty"]
    assert names(svc.describe_streams(ACCT, REGION, "g", descending=True)) == ["empty", "c", "b", "a"]
    by_time = svc.describe_streams(ACCT, REGION, "g", order_by="LastEventTime", descending=True, limit=2)
    assert names(by_time) == ["a", "c"]
    rest = svc.describe_streams(ACCT, REGION, "g", order_by="LastEventTime", descending=True,
                                token=by_time["nextToken"])
    assert names(rest) == ["b", "empty"]
    err = error_of(svc.describe_streams, ACCT, REGION, "g", prefix="a", order_by="LastEventTime")
    assert err.message == "Cannot order by LastEventTime with a logStreamNamePrefix."
    stream = svc.describe_streams(ACCT, REGION, "g", prefix="a")["logStreams"][0]
    assert stream["arn"] == f"arn:aws:logs:{REGION}:{ACCT}:log-group:g:log-stream:a"
    assert (stream["firstEventTimestamp"], stream["lastEventTimestamp"]) == (NOW - 10, NOW - 10)
    assert stream["storedBytes"] == 0
    assert "firstEventTimestamp" not in svc.describe_streams(ACCT, REGION, "g", prefix="empty")["logStreams"][0]


def test_stream_errors(svc: LogsService) -> None:
    assert error_of(svc.create_stream, ACCT, REGION, "nope", "s").message == "The specified log group does not exist."
    setup_stream(svc)
    err = error_of(svc.create_stream, ACCT, REGION, "g", "s")
    assert (err.code, err.message) == ("ResourceAlreadyExistsException", "The specified log stream already exists")
    svc.delete_stream(ACCT, REGION, "g", "s")
    assert error_of(svc.delete_stream, ACCT, REGION, "g", "s").message == "The specified log stream does not exist."


# ------------------------------------------------------------------------------------------ PutLogEvents
def test_put_rejects_out_of_order_and_changes_nothing(svc: LogsService) -> None:
    setup_stream(svc)
    err = error_of(put, svc, [(NOW, "a"), (NOW - 1, "b")])
    assert (err.code, err.message) == (
        "InvalidParameterException", "Log events in a single PutLogEvents request must be in chronological order.")
    assert svc.get_events(ACCT, REGION, "g", "s")["events"] == []


def test_put_reports_too_old_too_new_and_expired_by_index(svc: LogsService) -> None:
    setup_stream(svc)
    result = put(svc, [(NOW - 15 * DAY, "old"), (NOW - 1, "ok"), (NOW + 3 * HOUR, "future")])
    assert result["rejectedLogEventsInfo"] == {"tooOldLogEventEndIndex": 1, "tooNewLogEventStartIndex": 2}
    assert len(result["nextSequenceToken"]) == 56
    svc.put_retention(ACCT, REGION, "g", 1)
    result = put(svc, [(NOW - 2 * DAY, "expired"), (NOW, "fresh")])
    assert result["rejectedLogEventsInfo"] == {"expiredLogEventEndIndex": 1}
    messages = [e["message"] for e in svc.get_events(ACCT, REGION, "g", "s", start_from_head=True)["events"]]
    assert messages == ["ok", "fresh"]


def test_put_span_and_size_limits(svc: LogsService) -> None:
    setup_stream(svc)
    err = error_of(put, svc, [(NOW - DAY - 1, "a"), (NOW, "b")])
    assert err.message == "The batch of log events in a single PutLogEvents request cannot span more than 24 hours."
    big = "x" * 600_000
    err = error_of(put, svc, [(NOW, big), (NOW, big)])
    assert err.message == "Upload too large: 1200052 bytes exceeds limit of 1048576"
    assert put(svc, [(NOW - DAY, "a"), (NOW, "b")]).get("rejectedLogEventsInfo") is None


def test_put_to_missing_group_or_stream(svc: LogsService) -> None:
    assert error_of(put, svc, [(NOW, "x")]).message == "The specified log group does not exist."
    svc.create_group(ACCT, REGION, "g")
    assert error_of(put, svc, [(NOW, "x")]).message == "The specified log stream does not exist."


# ------------------------------------------------------------------------------------------ GetLogEvents
def test_get_events_tokens_walk_both_ways(svc: LogsService) -> None:
    setup_stream(svc)
    put(svc, [(NOW - 100 + i, f"m{i}") for i in range(10)])
    msgs = lambda r: [e["message"] for e in r["events"]]  # noqa: E731
    tail = svc.get_events(ACCT, REGION, "g", "s", limit=3)
    assert msgs(tail) == ["m7", "m8", "m9"]
    back = svc.get_events(ACCT, REGION, "g", "s", limit=3, token=tail["nextBackwardToken"])
    assert msgs(back) == ["m4", "m5", "m6"]
    head = svc.get_events(ACCT, REGION, "g", "s", limit=4, start_from_head=True)
    assert msgs(head) == ["m0", "m1", "m2", "m3"]
    fwd = svc.get_events(ACCT, REGION, "g", "s", limit=4, token=head["nextForwardToken"], start_from_head=True)
    assert msgs(fwd) == ["m4", "m5", "m6", "m7"]
    end = svc.get_events(ACCT, REGION, "g", "s", token=tail["nextForwardToken"], start_from_head=True)
    assert end["events"] == [] and end["nextForwardToken"] == tail["nextForwardToken"]
    assert tail["nextForwardToken"].startswith("f/") and tail["nextForwardToken"].endswith("/s")
    ranged = svc.get_events(ACCT, REGION, "g", "s", start=NOW - 98, end=NOW - 95, start_from_head=True)
    assert msgs(ranged) == ["m2", "m3", "m4"]  # startTime inclusive, endTime exclusive
    assert error_of(svc.get_events, ACCT, REGION, "g", "s", token="invalid-token").message == (
        "The specified nextToken is invalid.")


def test_get_events_on_empty_stream_returns_origin_tokens(svc: LogsService) -> None:
    setup_stream(svc)
    result = svc.get_events(ACCT, REGION, "g", "s")
    assert result == {"events": [], "nextForwardToken": "f/" + "0" * 56 + "/s",
                      "nextBackwardToken": "b/" + "0" * 56 + "/s"}


# ------------------------------------------------------------------------------------------ FilterLogEvents
def test_filter_interleaves_streams_pages_and_matches(svc: LogsService) -> None:
    setup_stream(svc, stream="s1")
    svc.create_stream(ACCT, REGION, "g", "s2")
    put(svc, [(NOW - 10, "ERROR one"), (NOW - 7, "INFO two"), (NOW - 4, "ERROR three")], stream="s1")
    put(svc, [(NOW - 9, "WARN four"), (NOW - 5, "ERROR five")], stream="s2")
    every = svc.filter_events(ACCT, REGION, "g")
    assert [(e["logStreamName"], e["message"]) for e in every["events"]] == [
        ("s1", "ERROR one"), ("s2", "WARN four"), ("s1", "INFO two"), ("s2", "ERROR five"), ("s1", "ERROR three")]
    assert every["searchedLogStreams"] == [] and "nextToken" not in every
    first = svc.filter_events(ACCT, REGION, "g", pattern="ERROR", limit=2)
    assert [e["message"] for e in first["events"]] == ["ERROR one", "ERROR five"]
    second = svc.filter_events(ACCT, REGION, "g", pattern="ERROR", limit=2, token=first["nextToken"])
    assert [e["message"] for e in second["events"]] == ["ERROR three"] and "nextToken" not in second
    only = svc.filter_events(ACCT, REGION, "g", stream_names=["s2"], pattern="?WARN ?INFO")
    assert [e["message"] for e in only["events"]] == ["WARN four"]
    ranged = svc.filter_events(ACCT, REGION, "g", start=NOW - 9, end=NOW - 5)
    assert [e["message"] for e in ranged["events"]] == ["WARN four", "INFO two", "ERROR five"]
    assert svc.filter_events(ACCT, REGION, "g", stream_prefix="zz")["events"] == []
    event = every["events"][0]
    assert event["eventId"] == tokens.position(event["timestamp"], 1) and len(event["eventId"]) == 56


def test_filter_errors(svc: LogsService) -> None:
    svc.create_group(ACCT, REGION, "g")
    err = error_of(svc.filter_events, ACCT, REGION, "g", pattern="ERROR:")
    assert (err.code, err.message) == ("InvalidParameterException", "Invalid character(s) in term ':'")
    assert error_of(svc.filter_events, ACCT, REGION, "g", token="nope").message == (
        "The specified nextToken is invalid.")
    assert error_of(svc.filter_events, ACCT, REGION, "g", stream_names=["a"], stream_prefix="a").code == (
        "InvalidParameterException")
    assert error_of(svc.filter_events, ACCT, REGION, "missing").code == "ResourceNotFoundException"


# ------------------------------------------------------------------------------------------ append
def test_append_creates_group_and_stream_and_sorts(svc: LogsService) -> None:
    stream = "2024/01/01/[$LATEST]abc"
    svc.append(ACCT, REGION, "/aws/lambda/fn", stream, [(NOW + 1, "END\n"), (NOW, "START\n"), (NOW, "")])
    svc.append(ACCT, REGION, "/aws/lambda/fn", stream, [(NOW + 2, "again\n")])
    events = svc.get_events(ACCT, REGION, "/aws/lambda/fn", stream, start_from_head=True)
    assert [e["message"] for e in events["events"]] == ["START\n", "END\n", "again\n"]
    assert svc.describe_groups(ACCT, REGION)["logGroups"][0]["storedBytes"] == len("START\nEND\nagain\n")


def test_delete_group_removes_streams_and_events(svc: LogsService) -> None:
    svc.append(ACCT, REGION, "g", "s", [(NOW, "x")])
    svc.delete_group(ACCT, REGION, "g")
    svc.create_group(ACCT, REGION, "g")
    assert svc.describe_streams(ACCT, REGION, "g")["logStreams"] == []
    assert svc.filter_events(ACCT, REGION, "g")["events"] == []
