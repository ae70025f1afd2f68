"""GetLogGroupFields: the fields of a log group's recent events and the share of events that have
each, as Logs Insights discovers them (run.discover: a JSON message's fields).

The window is the model's: `time` (epoch seconds) +/- 8 minutes, else the last 15 minutes. Every
event has CloudWatch Logs' own fields; which of them AWS lists is UNCONFIRMED (here those GetLogRecord
answers for a plain event: @timestamp, @message, @logStream, @log, @ingestionTime). At most SAMPLE
events are read, the newest first being the ones that count.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from onceflow.logs.insights.run import discover
from onceflow.logs.service import LogsService

SAMPLE = 10_000
OWN_FIELDS = ("@timestamp", "@message", "@logStream", "@log", "@ingestionTime")


def log_group_fields(logs: LogsService, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
    name = logs.resolve_group_name(account, region, p.get("logGroupName"), p.get("logGroupIdentifier"))
    if p.get("time") is not None:
        start, end = (p["time"] - 480) * 1000, (p["time"] + 480) * 1000
    else:
        end = int(time.time() * 1000)
        start = end - 15 * 60 * 1000

    def read(conn: Any) -> list[Any]:
        group_id = logs._group(conn, account, region, name)["id"]
        rows = conn.execute("SELECT message FROM logs_events WHERE group_id=? AND ts >= ? AND ts <= ?"
                            " ORDER BY ts DESC, id DESC LIMIT ?", (group_id, start, end, SAMPLE)).fetchall()
        return [r[0] for r in rows]

    messages = logs.db.read(read)
    if not messages:
        return {"logGroupFields": []}  # AWS's own example answer for a group without recent events
    counts: Counter[str] = Counter({f: len(messages) for f in OWN_FIELDS})
    for message in messages:
        counts.update(discover(message).keys())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"logGroupFields": [{"name": f, "percent": round(100 * n / len(messages))} for f, n in ranked]}

