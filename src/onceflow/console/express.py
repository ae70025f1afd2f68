"""EXPRESS executions as the console shows them: rebuilt from the state machine's execution log.

Step Functions keeps no history of an EXPRESS execution (no ListExecutions, no
GetExecutionHistory): what it leaves is what the machine's loggingConfiguration sent to CloudWatch
Logs, one JSON message per history event (sfn/exec_logging.py writes the form AWS writes). This
module turns those messages back into GetExecutionHistory-shaped events per execution, so the
execution page's graph, attempts and event table work on them unchanged.

Pure. What the log lacks stays unknown: at level ERROR or FATAL only failures are logged, and
without includeExecutionData there is no input or output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from onceflow.sfn.engine.events import detail_key

TERMINAL = {"ExecutionSucceeded": "SUCCEEDED", "ExecutionFailed": "FAILED", "ExecutionTimedOut": "TIMED_OUT",
            "ExecutionAborted": "ABORTED"}


@dataclass
class ExpressRun:
    arn: str
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The name given at start: EXPRESS names need not be unique (the ARN ends with a uuid)."""
        parts = self.arn.split(":")
        return parts[7] if len(parts) > 7 else self.arn

    @property
    def key(self) -> str:
        """What tells executions apart in a URL: the name and the uuid after it."""
        return ":".join(self.arn.split(":")[7:]) or self.arn

    @property
    def status(self) -> str:
        """RUNNING until a terminal event is logged (or, at ERROR/FATAL level, until one never is)."""
        for event in reversed(self.events):
            if event["type"] in TERMINAL:
                return TERMINAL[event["type"]]
        return "RUNNING"

    def description(self, machine_arn: str) -> dict[str, Any]:
        """What DescribeExecution would say, as far as the log tells."""
        start = self.events[0]["timestamp"] if self.events else None
        described: dict[str, Any] = {"executionArn": self.arn, "stateMachineArn": machine_arn, "name": self.name,
                                     "key": self.key, "status": self.status, "startDate": start}
        by_type = {e["type"]: e for e in self.events}
        started = _details(by_type.get("ExecutionStarted"))
        if "input" in started:
            described["input"] = started["input"]
        for kind in TERMINAL:
            if kind in by_type:
                described["stopDate"] = by_type[kind]["timestamp"]
                ended = _details(by_type[kind])
                for key in ("output", "error", "cause"):
                    if key in ended:
                        described[key] = ended[key]
        return described


def runs(messages: list[str]) -> dict[str, ExpressRun]:
    """Executions by ARN, in the order their first message appears; messages that are not
    Step Functions execution events are skipped (a log group can hold other writers' lines)."""
    found: dict[str, ExpressRun] = {}
    for text in messages:
        event = _event(text)
        if event is None:
            continue
        arn, history_event = event
        found.setdefault(arn, ExpressRun(arn)).events.append(history_event)
    for run in found.values():
        run.events.sort(key=lambda e: e["id"])
    return found


def _event(text: str) -> tuple[str, dict[str, Any]] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    arn, kind, ident = value.get("execution_arn"), value.get("type"), value.get("id")
    if not (isinstance(arn, str) and isinstance(kind, str) and kind and isinstance(ident, str) and ident.isdigit()):
        return None
    stamp = value.get("event_timestamp")
    previous = value.get("previous_event_id")
    event: dict[str, Any] = {
        "id": int(ident), "type": kind,
        "previousEventId": int(previous) if isinstance(previous, str) and previous.isdigit() else 0,
        "timestamp": int(stamp) / 1000 if isinstance(stamp, str) and stamp.isdigit() else None,
    }
    key = detail_key(kind)
    details = value.get("details")
    if key and isinstance(details, dict):
        event[key] = details
    return arn, event


def _details(event: dict[str, Any] | None) -> dict[str, Any]:
    if event is None:
        return {}
    key = detail_key(event["type"])
    found = event.get(key) if key else None
    return found if isinstance(found, dict) else {}


def log_group(logging: dict[str, Any] | None) -> str | None:
    """The log group name a loggingConfiguration sends to, when it sends anything."""
    if not logging or logging.get("level", "OFF") == "OFF":
        return None
    for dest in logging.get("destinations") or []:
        arn = (dest.get("cloudWatchLogsLogGroup") or {}).get("logGroupArn") or ""
        parts = arn.split(":")
        if len(parts) >= 7 and parts[5] == "log-group":
            return parts[6]
    return None
