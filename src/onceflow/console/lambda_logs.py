"""Split a Lambda function's log events into invocations, as its runtime writes them.

Pure. In one log stream (one execution environment) an invocation's lines sit between
`START RequestId: <id>` and `END RequestId: <id>`, followed by `REPORT RequestId: <id>\tDuration: ...`.
An environment runs one invocation at a time, so the lines in between are that invocation's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

START = re.compile(r"^START RequestId: (\S+)")
END = re.compile(r"^END RequestId: (\S+)")
REPORT = re.compile(r"^REPORT RequestId: (\S+)")
FIELD = re.compile(r"^([A-Za-z][A-Za-z ]*): ([0-9.]+) ?(ms|MB)?$")


@dataclass
class Invocation:
    request_id: str
    stream: str
    started: int  # epoch ms of the START line
    lines: list[dict[str, Any]] = field(default_factory=list)  # the log events, START..REPORT
    report: dict[str, str] = field(default_factory=dict)  # "Duration" -> "3.01 ms", ...
    outcome: str = "running"  # running | ok | error | timeout
    error: str = ""  # the first line of an [ERROR] event

    @property
    def duration(self) -> str:
        return self.report.get("Duration", "")


def parse_report(message: str) -> dict[str, str]:
    out = {}
    for part in message.rstrip("\n").split("\t")[1:]:
        found = FIELD.match(part.strip())
        if found:
            name, value, unit = found.groups()
            out[name] = f"{value} {unit}" if unit else value
        elif ": " in part:
            name, _, value = part.strip().partition(": ")
            out[name] = value
    return out


def invocations(events: list[dict[str, Any]]) -> list[Invocation]:
    """Invocations found in `events` (FilterLogEvents/GetLogEvents items), oldest first."""
    by_stream: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        by_stream.setdefault(str(event.get("logStreamName", "")), []).append(event)
    found: list[Invocation] = []
    for stream, stream_events in by_stream.items():
        stream_events.sort(key=lambda e: int(e.get("timestamp", 0)))
        found += _split(stream, stream_events)
    found.sort(key=lambda inv: inv.started)
    return found


def _split(stream: str, events: list[dict[str, Any]]) -> list[Invocation]:
    out: list[Invocation] = []
    current: Invocation | None = None
    for event in events:
        message = str(event.get("message", ""))
        if started := START.match(message):
            current = Invocation(started.group(1), stream, int(event.get("timestamp", 0)))
            out.append(current)
        if current is None:
            continue  # INIT_START and lines of an invocation that began before the window
        current.lines.append(event)
        if message.startswith("[ERROR]") and not current.error:
            current.error = message.split("\n", 1)[0][len("[ERROR]"):].strip()
            current.outcome = "error"
        elif "Task timed out after" in message:
            current.outcome, current.error = "timeout", message.strip()
        if END.match(message) and current.outcome == "running":
            current.outcome = "ok"
        if REPORT.match(message):
            current.report = parse_report(message)
            if current.outcome == "running":
                current.outcome = "ok"
            if current.report.get("Status") in ("error", "timeout") and current.outcome == "ok":
                current.outcome = "error"
            current = None
    return out


def by_request_id(found: list[Invocation]) -> dict[str, Invocation]:
    return {inv.request_id: inv for inv in found}
