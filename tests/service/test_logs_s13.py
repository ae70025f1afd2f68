"""Logs, session 13: Logs Insights' JSON functions and unnest (CWL_QuerySyntax-Unnest and the JSON
functions of CWL_QuerySyntax-operations-functions) through StartQuery/GetQueryResults on a real server."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

BASE = (int(time.time()) // 3600 - 2) * 3_600_000  # PutLogEvents refuses events weeks old
DOCS = [{"events": [{"name": "exception"}, {"name": "user action"}]},
        {"accounts": [{"accountId": "a", "droppedSpans": 2, "type": "internal"}, {"accountId": "b", "droppedSpans": 3},
                      {"accountId": "a", "droppedSpans": 5, "type": "internal"}]}]


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


@pytest.fixture(scope="module")
def group(logs: Any) -> str:
    name = f"/logs-s13/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    logs.create_log_stream(logGroupName=name, logStreamName="s")
    logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=[
        {"timestamp": BASE + i * 1000, "message": json.dumps(d)} for i, d in enumerate(DOCS)])
    return name


def _rows(logs: Any, group: str, text: str) -> list[dict[str, str]]:
    qid = logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                           queryString=text)["queryId"]
    for _ in range(200):
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            assert got["status"] == "Complete", got
            return [{f["field"]: f["value"] for f in row if f["field"] != "@ptr"} for row in got["results"]]
        time.sleep(0.05)
    raise AssertionError("query did not finish")


def test_unnest_a_parsed_list_into_one_record_per_item(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields jsonParse(@message) as json_message | unnest json_message.events into event"
                              " | display event.name")
    assert sorted(r["event.name"] for r in rows) == ["exception", "user action"]
    with pytest.raises(logs.exceptions.MalformedQueryException):  # `into` and its field are required
        logs.start_query(logGroupName=group, startTime=BASE // 1000, endTime=BASE // 1000 + 60,
                         queryString="fields jsonParse(@message) as js | unnest js.events")


def test_unnest_then_filter_and_aggregate(logs: Any, group: str) -> None:
    rows = _rows(logs, group, 'fields jsonParse(@message) as js | unnest js.accounts into account'
                              ' | filter account.type = "internal" | display account.accountId')
    assert rows == [{"account.accountId": "a"}, {"account.accountId": "a"}]
    rows = _rows(logs, group, "fields jsonParse(@message) as js | unnest js.accounts into account"
                              " | stats sum(account.droppedSpans) as n by account.accountId | sort n desc | limit 10")
    assert rows == [{"account.accountId": "a", "n": "7"}, {"account.accountId": "b", "n": "3"}]


def test_json_parse_members_and_json_stringify(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "fields jsonParse(@message) as js | filter ispresent(js.accounts)"
                              " | fields js.accounts.1.accountId as second, jsonStringify(js.accounts.1) as s"
                              " | display second, s")
    assert rows == [{"second": "b", "s": '{"accountId":"b","droppedSpans":3}'}]


def test_unmask_shows_the_event_as_stored(logs: Any, group: str) -> None:
    rows = _rows(logs, group, "filter @message like 'exception' | fields unmask(@message) as m | display m")
    assert [json.loads(r["m"]) for r in rows] == [DOCS[0]]

