"""CloudWatch Logs through boto3 against a real onceflow server."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCT, REGION = "000000000000", "us-east-1"


def unique(prefix: str = "/test/logs") -> str:
    return f"{prefix}/{uuid.uuid4().hex[:12]}"


def now_ms() -> int:
    return int(time.time() * 1000)


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


def error(call: Callable[..., Any], **kwargs: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as info:
        call(**kwargs)
    err = info.value.response
    return err["Error"]["Code"], err["Error"]["Message"], err["ResponseMetadata"]["HTTPStatusCode"]


def group_with_stream(logs: Any, stream: str = "s1") -> str:
    group = unique()
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    return group


def test_log_group_lifecycle(logs: Any) -> None:
    group = unique()
    before = now_ms()
    logs.create_log_group(logGroupName=group)
    found = logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"]
    assert len(found) == 1
    item = found[0]
    assert before <= item.pop("creationTime") <= now_ms()
    assert item == {
        "logGroupName": group, "metricFilterCount": 0, "arn": f"arn:aws:logs:{REGION}:{ACCT}:log-group:{group}:*",
        "storedBytes": 0, "logGroupClass": "STANDARD", "logGroupArn": f"arn:aws:logs:{REGION}:{ACCT}:log-group:{group}",
        "deletionProtectionEnabled": False,
    }
    assert error(logs.create_log_group, logGroupName=group) == (
        "ResourceAlreadyExistsException", "The specified log group already exists", 400)
    logs.delete_log_group(logGroupName=group)
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"] == []
    assert error(logs.delete_log_group, logGroupName=group) == (
        "ResourceNotFoundException", "The specified log group does not exist.", 400)
    with pytest.raises(logs.exceptions.ResourceNotFoundException):
        logs.describe_log_streams(logGroupName=group)


def test_describe_log_groups_pages_with_the_paginator(logs: Any) -> None:
    prefix = unique("/test/paging")
    names = sorted(f"{prefix}/{i:02d}" for i in range(7))
    for name in names:
        logs.create_log_group(logGroupName=name)
    first = logs.describe_log_groups(logGroupNamePrefix=prefix, limit=3)
    assert [g["logGroupName"] for g in first["logGroups"]] == names[:3] and "nextToken" in first
    pages = list(logs.get_paginator("describe_log_groups").paginate(logGroupNamePrefix=prefix,
                                                                     PaginationConfig={"PageSize": 2}))
    assert len(pages) == 4
    assert [g["logGroupName"] for page in pages for g in page["logGroups"]] == names


def test_put_get_events_with_tokens(logs: Any) -> None:
    group = group_with_stream(logs)
    base = now_ms() - 60_000
    first = logs.put_log_events(logGroupName=group, logStreamName="s1",
                                logEvents=[{"timestamp": base + i, "message": f"line {i}"} for i in range(6)])
    assert len(first["nextSequenceToken"]) == 56 and "rejectedLogEventsInfo" not in first
    # Sequence tokens are accepted and ignored, even stale ones.
    logs.put_log_events(logGroupName=group, logStreamName="s1", sequenceToken="stale",
                        logEvents=[{"timestamp": base + 10, "message": "line 6"}])
    msgs = lambda r: [e["message"] for e in r["events"]]  # noqa: E731
    head = logs.get_log_events(logGroupName=group, logStreamName="s1", startFromHead=True, limit=4)
    assert msgs(head) == ["line 0", "line 1", "line 2", "line 3"]
    assert head["events"][0]["timestamp"] == base and head["events"][0]["ingestionTime"] >= base
    nxt = logs.get_log_events(logGroupName=group, logStreamName="s1", startFromHead=True, limit=4,
                              nextToken=head["nextForwardToken"])
    assert msgs(nxt) == ["line 4", "line 5", "line 6"]
    end = logs.get_log_events(logGroupName=group, logStreamName="s1", startFromHead=True,
                              nextToken=nxt["nextForwardToken"])
    assert end["events"] == [] and end["nextForwardToken"] == nxt["nextForwardToken"]
    tail = logs.get_log_events(logGroupName=group, logStreamName="s1", limit=2)
    assert msgs(tail) == ["line 5", "line 6"]
    back = logs.get_log_events(logGroupName=group, logStreamName="s1", limit=2, nextToken=tail["nextBackwardToken"])
    assert msgs(back) == ["line 3", "line 4"]
    arn = f"arn:aws:logs:{REGION}:{ACCT}:log-group:{group}"
    by_arn = logs.get_log_events(logGroupIdentifier=arn, logStreamName="s1", startTime=base + 2, endTime=base + 4,
                                 startFromHead=True)
    assert msgs(by_arn) == ["line 2", "line 3"]
    stream = logs.describe_log_streams(logGroupIdentifier=arn)["logStreams"][0]
    assert (stream["firstEventTimestamp"], stream["lastEventTimestamp"]) == (base, base + 10)
    assert stream["arn"] == f"{arn}:log-stream:s1" and stream["storedBytes"] == 0


def test_put_log_events_age_rules(logs: Any) -> None:
    group = group_with_stream(logs)
    now = now_ms()
    result = logs.put_log_events(logGroupName=group, logStreamName="s1", logEvents=[
        {"timestamp": now - 15 * 86_400_000, "message": "too old"},
        {"timestamp": now, "message": "kept"},
        {"timestamp": now + 3 * 3_600_000, "message": "too new"},
    ])
    assert result["rejectedLogEventsInfo"] == {"tooNewLogEventStartIndex": 2, "tooOldLogEventEndIndex": 1}
    events = logs.get_log_events(logGroupName=group, logStreamName="s1")["events"]
    assert [e["message"] for e in events] == ["kept"]


def test_filter_log_events_interleaves_and_filters(logs: Any) -> None:
    group = group_with_stream(logs, "app/a")
    logs.create_log_stream(logGroupName=group, logStreamName="app/b")
    logs.create_log_stream(logGroupName=group, logStreamName="other")
    t = now_ms() - 10_000
    put = lambda s, evs: logs.put_log_events(  # noqa: E731
        logGroupName=group, logStreamName=s, logEvents=[{"timestamp": ts, "message": m} for ts, m in evs])
    put("app/a", [(t, "ERROR disk full"), (t + 3, '{"level": "info", "latency": 12}'), (t + 6, "WARN slow")])
    put("app/b", [(t + 1, '{"level": "error", "latency": 900}'), (t + 4, "Internal Server Error here")])
    put("other", [(t + 2, "ERROR elsewhere")])

    def messages(**kwargs: Any) -> list[str]:
        return [e["message"] for e in logs.filter_log_events(logGroupName=group, **kwargs)["events"]]

    everything = logs.filter_log_events(logGroupName=group)
    assert [e["logStreamName"] for e in everything["events"]] == ["app/a", "app/b", "other", "app/a", "app/b", "app/a"]
    assert everything["searchedLogStreams"] == [] and "nextToken" not in everything
    assert set(everything["events"][0]) == {"logStreamName", "timestamp", "message", "ingestionTime", "eventId"}
    assert messages(filterPattern="ERROR") == ["ERROR disk full", "ERROR elsewhere"]
    assert messages(filterPattern='"Server Error"') == ["Internal Server Error here"]
    assert messages(filterPattern="?WARN ?disk") == ["ERROR disk full", "WARN slow"]
    assert messages(filterPattern="ERROR -disk") == ["ERROR elsewhere"]
    assert messages(filterPattern='{ $.level = "error" }') == ['{"level": "error", "latency": 900}']
    assert messages(filterPattern="{ $.latency > 100 || $.level = inf* }") == [
        '{"level": "error", "latency": 900}', '{"level": "info", "latency": 12}']
    assert messages(logStreamNamePrefix="app/", filterPattern="ERROR") == ["ERROR disk full"]
    assert messages(logStreamNames=["other", "app/b"], startTime=t + 2, endTime=t + 4) == [
        "ERROR elsewhere", "Internal Server Error here"]
    paged = [e["message"] for page in logs.get_paginator("filter_log_events").paginate(
        logGroupName=group, PaginationConfig={"PageSize": 2}) for e in page["events"]]
    assert paged == [e["message"] for e in everything["events"]]


def test_retention_and_tags(logs: Any) -> None:
    group = unique()
    logs.create_log_group(logGroupName=group, tags={"env": "testing1"})
    logs.put_retention_policy(logGroupName=group, retentionInDays=14)
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["retentionInDays"] == 14
    code, message, status = error(logs.put_retention_policy, logGroupName=group, retentionInDays=4)
    assert (code, status) == ("InvalidParameterException", 400)
    assert "Member must satisfy enum value set: [1, 3, 5, 7, 14, 30," in message
    logs.delete_retention_policy(logGroupName=group)
    assert "retentionInDays" not in logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]
    arn = f"arn:aws:logs:{REGION}:{ACCT}:log-group:{group}"
    logs.tag_resource(resourceArn=arn, tags={"test1": "val1", "test2": "val2"})
    assert logs.list_tags_log_group(logGroupName=group)["tags"] == {"env": "testing1", "test1": "val1", "test2": "val2"}
    logs.tag_log_group(logGroupName=group, tags={"test3": "val3"})
    logs.untag_resource(resourceArn=arn, tagKeys=["env", "test1", "test3"])
    assert logs.list_tags_for_resource(resourceArn=arn)["tags"] == {"test2": "val2"}


def test_accounts_and_regions_are_isolated(aws: Callable[..., Any]) -> None:
    group = unique()
    aws("logs", access_key="111111111111").create_log_group(logGroupName=group)
    assert aws("logs").describe_log_groups(logGroupNamePrefix=group)["logGroups"] == []
    assert aws("logs", region="eu-west-1", access_key="111111111111").describe_log_groups(
        logGroupNamePrefix=group)["logGroups"] == []
    arn = aws("logs", access_key="111111111111").describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]["arn"]
    assert arn == f"arn:aws:logs:{REGION}:111111111111:log-group:{group}:*"


def test_bad_input_gets_aws_errors_and_changes_nothing(logs: Any) -> None:
    group = group_with_stream(logs)
    now = now_ms()
    cases: list[tuple[Callable[..., Any], dict[str, Any], tuple[str, str]]] = [
        (logs.put_log_events, {"logGroupName": group, "logStreamName": "s1", "logEvents": [
            {"timestamp": now, "message": "b"}, {"timestamp": now - 1, "message": "a"}]},
         ("InvalidParameterException", "Log events in a single PutLogEvents request must be in chronological order.")),
        (logs.put_log_events, {"logGroupName": group, "logStreamName": "nope", "logEvents": [
            {"timestamp": now, "message": "x"}]},
         ("ResourceNotFoundException", "The specified log stream does not exist.")),
        (logs.get_log_events, {"logGroupName": group + "-missing", "logStreamName": "s1"},
         ("ResourceNotFoundException", "The specified log group does not exist.")),
        (logs.get_log_events, {"logGroupName": group, "logStreamName": "s1", "nextToken": "invalid-token"},
         ("InvalidParameterException", "The specified nextToken is invalid.")),
        (logs.filter_log_events, {"logGroupName": group, "nextToken": "abc"},
         ("InvalidParameterException", "The specified nextToken is invalid.")),
        (logs.filter_log_events, {"logGroupName": group, "filterPattern": "order:42"},
         ("InvalidParameterException", "Invalid character(s) in term ':'")),
        (logs.create_log_stream, {"logGroupName": group, "logStreamName": "s1"},
         ("ResourceAlreadyExistsException", "The specified log stream already exists")),
        (logs.create_log_group, {"logGroupName": "bad:name"},
         ("InvalidParameterException", "1 validation error detected: Value 'bad:name' at 'logGroupName' failed to "
                                       "satisfy constraint: Member must satisfy regular expression pattern: "
                                       "[\\.\\-_/#A-Za-z0-9]+")),
        (logs.describe_log_groups, {"logGroupNamePrefix": "/a", "logGroupNamePattern": "b"},
         ("InvalidParameterException",
          "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters.")),
        (logs.describe_log_streams, {"logGroupName": group, "logGroupIdentifier": group},
         ("ValidationException", "LogGroup name and LogGroup ARN are mutually exclusive parameters.")),
        (logs.describe_log_streams, {"logGroupName": group, "orderBy": "LastEventTime", "logStreamNamePrefix": "s"},
         ("InvalidParameterException", "Cannot order by LastEventTime with a logStreamNamePrefix.")),
    ]
    for call, kwargs, expected in cases:
        assert error(call, **kwargs) == (*expected, 400), kwargs
    assert logs.get_log_events(logGroupName=group, logStreamName="s1")["events"] == []
    assert logs.describe_log_groups(logGroupNamePrefix="bad")["logGroups"] == []
    assert [s["logStreamName"] for s in logs.describe_log_streams(logGroupName=group)["logStreams"]] == ["s1"]


def test_limit_over_10000_gets_the_message_aws_records(logs: Any) -> None:
    group = group_with_stream(logs)
    expected = ("InvalidParameterException", "1 validation error detected: Value '10001' at 'limit' failed to "
                "satisfy constraint: Member must have value less than or equal to 10000", 400)
    assert error(logs.filter_log_events, logGroupName=group, limit=10001) == expected
    assert error(logs.get_log_events, logGroupName=group, logStreamName="s1", limit=10001) == expected


def test_overlong_name_gets_the_message_aws_records(logs: Any) -> None:
    expected = ("InvalidParameterException",
                "Invalid LogGroup or LogStream, both must have length less than or equal to 512.", 400)
    assert error(logs.create_log_group, logGroupName="g" * 513) == expected
    group = group_with_stream(logs)
    assert error(logs.create_log_stream, logGroupName=group, logStreamName="s" * 513) == expected
    assert [s["logStreamName"] for s in logs.describe_log_streams(logGroupName=group)["logStreams"]] == ["s1"]


def test_json_member_order_matches_the_model(endpoint: str) -> None:
    """The raw JSON keeps AWS's member order (the CLI prints what it parses; order shows in text output)."""
    import urllib.request

    from serverproc import signed_headers

    group = unique()
    calls = [("CreateLogGroup", {"logGroupName": group}), ("DescribeLogGroups", {"logGroupNamePrefix": group})]
    for target, members in calls:
        payload = json.dumps(members).encode()
        headers = {"X-Amz-Target": f"Logs_20140328.{target}", "Content-Type": "application/x-amz-json-1.1"}
        req = urllib.request.Request(endpoint + "/", data=payload, method="POST",
                                     headers=signed_headers("POST", endpoint + "/", "logs", payload, headers))
        with urllib.request.urlopen(req) as resp:
            raw = resp.read()
    keys = list(json.loads(raw)["logGroups"][0])
    assert keys[:2] == ["logGroupName", "creationTime"] and keys[-2:] == ["logGroupArn", "deletionProtectionEnabled"]
