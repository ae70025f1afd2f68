"""Logs cases settled for issue 22's undetermined moto lines (bench/moto_issue22.md), against a real
server: Logs Insights' order when a query does not sort (newest first, as AWS documents under
`dedup`: "the default descending sort order using @timestamp"), across pages of the store and across
log groups."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

BASE = (int(time.time()) // 3600 - 2) * 3_600_000  # an hour boundary: PutLogEvents refuses events weeks old


@pytest.fixture(scope="module")
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


def _group(logs: Any, stamps: list[int], prefix: str) -> str:
    name = f"/s10/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=name)
    logs.create_log_stream(logGroupName=name, logStreamName="s")
    # Put oldest first, in batches, so nothing but the query's own order can put the newest first.
    events = [{"timestamp": BASE + ms, "message": f"{prefix} {ms}"} for ms in sorted(stamps)]
    for i in range(0, len(events), 1000):
        logs.put_log_events(logGroupName=name, logStreamName="s", logEvents=events[i:i + 1000])
    return name


def _messages(logs: Any, text: str, **where: Any) -> list[str]:
    qid = logs.start_query(startTime=BASE // 1000, endTime=BASE // 1000 + 3600, queryString=text, **where)["queryId"]
    for _ in range(400):
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            assert got["status"] == "Complete"
            return [f["value"] for row in got["results"] for f in row if f["field"] == "@message"]
        time.sleep(0.05)
    raise AssertionError("query did not finish")


def test_unsorted_rows_come_newest_first(logs: Any) -> None:
    group = _group(logs, [x * 60_000 for x in range(5)], "event")
    assert _messages(logs, "fields @message", logGroupName=group) == [
        f"event {x * 60_000}" for x in reversed(range(5))]
    # A limit without a sort keeps the newest rows.
    assert _messages(logs, "fields @message | limit 2", logGroupName=group) == ["event 240000", "event 180000"]
    # With an explicit ascending sort the order is the query's own.
    assert _messages(logs, "fields @message | sort @timestamp asc | limit 2", logGroupName=group) == [
        "event 0", "event 60000"]


def test_newest_first_across_store_pages_and_groups(logs: Any) -> None:
    # 6,000 events per group (more than one page of the store, 5,000), two groups interleaved in time:
    # the 10,000 rows a query returns at most are the newest ones, newest first.
    one = _group(logs, list(range(0, 12_000, 2)), "one")
    two = _group(logs, list(range(1, 12_000, 2)), "two")
    got = _messages(logs, "fields @message", logGroupNames=[one, two])
    assert [int(m.split()[1]) for m in got] == list(range(11_999, 1_999, -1))
    assert got[0] == "two 11999" and got[-1] == "one 2000"
