"""Logs Insights against a real server: StartQuery over stored events, GetQueryResults' rows and
statistics, StopQuery, DescribeQueries, GetLogRecord, MalformedQueryException, query definitions."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

BASE = (int(time.time()) // 3600 - 2) * 3_600_000  # an hour boundary: PutLogEvents refuses events weeks old


def _at(minute: int) -> str:
    return datetime.fromtimestamp(BASE / 1000 + minute * 60, UTC).strftime("%Y-%m-%d %H:%M:%S.000")


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


@pytest.fixture(scope="module")
def group(logs: Any) -> str:
    name = f"/insights/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    for stream in ("a", "b"):
        logs.create_log_stream(logGroupName=name, logStreamName=stream)
    events: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for i in range(12):  # one event every 20 s: 3 per minute
        message = json.dumps({"level": "ERROR" if i % 3 == 0 else "INFO", "latency": i * 10,
                              "req": {"path": f"/p{i % 2}"}})
        events["a" if i % 2 == 0 else "b"].append({"timestamp": BASE + i * 20_000, "message": message})
    events["b"].append({"timestamp": BASE + 300_000, "message": "user=alice action=login took 7ms"})
    for stream, batch in events.items():
        logs.put_log_events(logGroupName=name, logStreamName=stream, logEvents=batch)
    return name


def _query(logs: Any, group: str, text: str, **extra: Any) -> dict[str, Any]:
    qid = logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 3600,
                           queryString=text, **extra)["queryId"]
    for _ in range(200):
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            got["queryId"] = qid
            return got
        time.sleep(0.05)
    raise AssertionError("query did not finish")


def _rows(got: dict[str, Any]) -> list[dict[str, str]]:
    return [{f["field"]: f["value"] for f in row if f["field"] != "@ptr"} for row in got["results"]]


def test_filter_fields_sort_limit_over_json_fields(logs: Any, group: str) -> None:
    got = _query(logs, group, 'fields @timestamp, latency, req.path | filter level = "ERROR" and latency > 0 '
                              "| sort latency desc | limit 2")
    assert got["status"] == "Complete"
    assert _rows(got) == [
        {"@timestamp": _at(3), "latency": "90", "req.path": "/p1"},
        {"@timestamp": _at(2), "latency": "60", "req.path": "/p0"}]
    assert all(any(f["field"] == "@ptr" for f in row) for row in got["results"])
    stats = got["statistics"]
    assert stats["recordsScanned"] == 13.0 and stats["recordsMatched"] == 3.0
    assert stats["bytesScanned"] > 0


def test_ppl_queries_run_on_the_same_engine(logs: Any, group: str) -> None:
    got = _query(logs, group, "fields @timestamp, latency | where level = 'ERROR' and latency > 0 "
                              "| sort - latency | head 2", queryLanguage="PPL")
    assert (got["status"], got["queryLanguage"]) == ("Complete", "PPL")
    assert _rows(got) == [{"@timestamp": _at(3), "latency": "90"}, {"@timestamp": _at(2), "latency": "60"}]
    counted = _query(logs, group, "where like(@message, '%login%') | stats count() as n", queryLanguage="PPL")
    assert _rows(counted) == [{"n": "1"}]
    for language, text in (("SQL", "SELECT * FROM `x`"), ("PPL", "eval x = 1")):
        with pytest.raises(ClientError) as e:
            logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 3600,
                             queryString=text, queryLanguage=language)
        assert e.value.response["Error"]["Code"] == ("InvalidParameterException" if language == "SQL"
                                                     else "MalformedQueryException")


def test_stats_by_bin_and_by_field(logs: Any, group: str) -> None:
    got = _query(logs, group, "filter ispresent(level) | stats count(*) as n, sum(latency), max(latency) by bin(1m)")
    assert _rows(got) == [
        {"bin(1m)": _at(0), "n": "3", "sum(latency)": "30", "max(latency)": "20"},
        {"bin(1m)": _at(1), "n": "3", "sum(latency)": "120", "max(latency)": "50"},
        {"bin(1m)": _at(2), "n": "3", "sum(latency)": "210", "max(latency)": "80"},
        {"bin(1m)": _at(3), "n": "3", "sum(latency)": "300", "max(latency)": "110"}]
    assert all(f["field"] != "@ptr" for row in got["results"] for f in row)
    # The event without a level is a group of its own, with no value for it.
    got = _query(logs, group, "stats avg(latency) as mean, min(latency), count(*) by level | sort level asc")
    assert _rows(got) == [{"level": "ERROR", "mean": "45", "min(latency)": "0", "count(*)": "4"},
                          {"level": "INFO", "mean": "60", "min(latency)": "10", "count(*)": "8"},
                          {"count(*)": "1"}]


def test_parse_glob_and_regex_like_in_display_dedup(logs: Any, group: str) -> None:
    got = _query(logs, group, 'parse @message "user=* action=* took *" as who, act, took | filter ispresent(who) '
                              "| display who, act, took, @logStream")
    assert _rows(got) == [{"who": "alice", "act": "login", "took": "7ms", "@logStream": "b"}]
    got = _query(logs, group, r"parse @message /action=(?<act>\w+)/ | filter act like /^log/ | fields act")
    assert _rows(got) == [{"act": "login"}]
    got = _query(logs, group, 'filter req.path in ["/p1"] and @message like "ERROR" | fields latency')
    assert _rows(got) == [{"latency": "90"}, {"latency": "30"}]  # no sort: newest first
    # Unsorted, dedup keeps each level's newest event, newest first (AWS's documented default order);
    # display comes first, as only limit may follow dedup.
    got = _query(logs, group, "filter ispresent(level) | display level, @log | dedup level")
    assert _rows(got) == [{"level": "INFO", "@log": f"000000000000:{group}"}, {"level": "ERROR",
                                                                             "@log": f"000000000000:{group}"}]


def test_get_log_record_from_a_result_pointer(logs: Any, group: str) -> None:
    got = _query(logs, group, "filter @message like /alice/ | fields @message")
    ptr = next(f["value"] for f in got["results"][0] if f["field"] == "@ptr")
    record = logs.get_log_record(logRecordPointer=ptr)["logRecord"]
    assert record["@message"] == "user=alice action=login took 7ms" and record["@logStream"] == "b"


def test_only_limit_may_follow_dedup(logs: Any, group: str) -> None:
    # CWL_QuerySyntax-Dedup: "The only query command that you can use in a query after the dedup command
    # is limit"; AWS refuses `dedup ... | sort` with "unexpected symbol found sort" (a us-east-1 probe
    # quoted in a public notes file, 2026-06-10). The location is the offending command's keyword.
    for text, word in (("filter ispresent(level) | dedup level | sort latency", "sort"),
                       ("dedup level | limit 5 | display level", "display"), ("dedup level | dedup req.path", "dedup")):
        with pytest.raises(ClientError) as e:
            logs.start_query(logGroupName=group, startTime=0, endTime=10, queryString=text)
        err = e.value.response
        start = text.rindex(word)
        assert err["Error"]["Code"] == "MalformedQueryException"
        assert err["Error"]["Message"] == f"unexpected symbol found {word} at line 1 and position {start + 1}"
        end = start + len(word) - 1
        assert err["queryCompileError"]["location"] == {"startCharOffset": start, "endCharOffset": end}
    got = _query(logs, group, "filter ispresent(level) | display level, latency | sort latency desc | dedup level "
                              "| limit 5 | limit 1")
    assert _rows(got) == [{"level": "INFO", "latency": "110"}]


def test_malformed_queries_are_refused_with_the_offending_location(logs: Any, group: str) -> None:
    for text, start in (("fields @message | filter a = = 3", 29), ("stats count(*) by", 17)):
        with pytest.raises(ClientError) as e:
            logs.start_query(logGroupName=group, startTime=0, endTime=10, queryString=text)
        err = e.value.response
        assert err["Error"]["Code"] == "MalformedQueryException"
        assert err["queryCompileError"]["location"]["startCharOffset"] == start
        assert err["queryCompileError"]["message"] == err["Error"]["Message"]
    with pytest.raises(ClientError) as e:
        logs.start_query(logGroupName=group, startTime=0, endTime=10, queryString="fields nosuch(x)")
    assert e.value.response["Error"]["Code"] == "MalformedQueryException"
    with pytest.raises(ClientError) as e:
        logs.start_query(logGroupName="/no/such/group", startTime=0, endTime=10, queryString="fields @message")
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert e.value.response["Error"]["Message"].startswith(  # AWS's words (snapshot-recorded)
        "Log group '/no/such/group' does not exist for account ID '000000000000' (Service: AWSLogs; Status Code: "
        "400; Error Code: ResourceNotFoundException; Request ID: ")
    with pytest.raises(ClientError) as e:
        logs.get_query_results(queryId="00000000-0000-0000-0000-000000000000")
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_describe_and_stop_queries(logs: Any, group: str) -> None:
    done = _query(logs, group, "fields @message | limit 1")
    listed = logs.describe_queries(logGroupName=group, status="Complete")["queries"]
    mine = next(q for q in listed if q["queryId"] == done["queryId"])
    # AWS shows the query after a SOURCE command naming its group and range in ms (snapshot-recorded).
    start = BASE // 1000 * 1000
    assert mine["queryString"] == f'SOURCE "{group}" START={start} END={start + 3600_999} | fields @message | limit 1'
    assert mine["logGroupName"] == group
    with pytest.raises(ClientError) as e:
        logs.stop_query(queryId=done["queryId"])  # it has finished
    assert e.value.response["Error"]["Code"] == "InvalidParameterException"


def test_query_definitions(logs: Any) -> None:
    name = f"saved-{uuid.uuid4().hex[:6]}"
    qid = logs.put_query_definition(name=name, queryString="fields @message", logGroupNames=["/a"])[
        "queryDefinitionId"]
    assert logs.put_query_definition(name=name, queryDefinitionId=qid, queryString="stats count(*)")[
        "queryDefinitionId"] == qid
    found = logs.describe_query_definitions(queryDefinitionNamePrefix=name)["queryDefinitions"]
    assert [(d["queryDefinitionId"], d["queryString"]) for d in found] == [(qid, "stats count(*)")]
    assert logs.delete_query_definition(queryDefinitionId=qid)["success"] is True
    assert logs.describe_query_definitions(queryDefinitionNamePrefix=name)["queryDefinitions"] == []
    with pytest.raises(ClientError) as e:
        logs.delete_query_definition(queryDefinitionId=qid)
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_start_query_is_authorized_on_each_log_group(aws: Callable[..., Any], group: str) -> None:
    role = f"insights-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": "sts:AssumeRole"}]}
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "logs:StartQuery",
         "Resource": f"arn:aws:logs:us-east-1:000000000000:log-group:{group}:*"},
        {"Effect": "Allow", "Action": "logs:GetQueryResults", "Resource": "*"}]}
    aws("iam").create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    aws("iam").put_role_policy(RoleName=role, PolicyName="q", PolicyDocument=json.dumps(policy))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::000000000000:role/{role}", RoleSessionName="s1")[
        "Credentials"]
    mine = aws("logs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])
    assert _query(mine, group, "stats count(*)")["status"] == "Complete"
    other = f"/insights-other/{uuid.uuid4().hex[:6]}"
    aws("logs").create_log_group(logGroupName=other)
    with pytest.raises(ClientError) as e:
        mine.start_query(logGroupNames=[group, other], startTime=0, endTime=10, queryString="stats count(*)")
    assert e.value.response["Error"]["Message"].endswith(
        f"on resource: arn:aws:logs:us-east-1:000000000000:log-group:{other}:* because no identity-based policy "
        "allows the logs:StartQuery action")


def test_queries_and_their_results_outlive_a_restart(server_factory: Callable[..., Any], tmp_path: Any) -> None:
    server = server_factory(tmp_path / "data")
    logs = server.client("logs")
    logs.create_log_group(logGroupName="/kept")
    logs.create_log_stream(logGroupName="/kept", logStreamName="s")
    logs.put_log_events(logGroupName="/kept", logStreamName="s", logEvents=[
        {"timestamp": BASE + i * 1000, "message": f"n={i}"} for i in range(5)])
    done = _query(logs, "/kept", "stats count(*) as n")
    assert _rows(done) == [{"n": "5"}]
    server.stop()

    logs = server_factory(tmp_path / "data").client("logs")
    again = logs.get_query_results(queryId=done["queryId"])
    assert (again["status"], _rows(again)) == ("Complete", [{"n": "5"}])
    assert again["statistics"]["recordsMatched"] == 5.0
    listed = logs.describe_queries(logGroupName="/kept")["queries"]
    assert [(q["queryId"], q["status"]) for q in listed] == [(done["queryId"], "Complete")]


def test_log_group_fields(logs: Any) -> None:
    group = f"/fields/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    assert logs.get_log_group_fields(logGroupName=group)["logGroupFields"] == []  # AWS's example answer
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": now - 3, "message": '{"level": "INFO", "requestId": "a"}'},
        {"timestamp": now - 2, "message": '{"level": "ERROR"}'},
        {"timestamp": now - 1, "message": "plain text"},
        {"timestamp": now, "message": '{"level": "INFO"}'}])
    fields = logs.get_log_group_fields(logGroupIdentifier=group)["logGroupFields"]
    assert fields == [{"name": n, "percent": 100} for n in sorted(
        ["@timestamp", "@message", "@logStream", "@log", "@ingestionTime"])] + [
        {"name": "level", "percent": 75}, {"name": "requestId", "percent": 25}]
    # `time` centres an 8-minute window each side: an hour ago holds nothing.
    assert logs.get_log_group_fields(logGroupName=group, time=now // 1000 - 3600)["logGroupFields"] == []
    with pytest.raises(ClientError) as e:
        logs.get_log_group_fields(logGroupName=group + "-gone")
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
