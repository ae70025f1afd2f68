"""What the Logs Insights service tests share: running a query to its end and reading its rows."""

from __future__ import annotations

import time
from typing import Any


def query_rows(logs: Any, group: str, text: str, start_ms: int, seconds: int = 60) -> list[dict[str, str]]:
    """The rows of a query over `seconds` from `start_ms` (each row field -> value, without @ptr),
    once it has completed."""
    qid = logs.start_query(logGroupName=group, startTime=start_ms // 1000, endTime=start_ms // 1000 + seconds,
                           queryString=text)["queryId"]
    for _ in range(200):
        got = logs.get_query_results(queryId=qid)
        if got["status"] not in ("Scheduled", "Running"):
            assert got["status"] == "Complete", got
            return [{f["field"]: f["value"] for f in row if f["field"] != "@ptr"} for row in got["results"]]
        time.sleep(0.05)
    raise AssertionError("query did not finish")
