"""Execution logging: a state machine's loggingConfiguration sends its executions' history events
to a CloudWatch Logs group, one JSON message per event in the form AWS writes:

    {"id":"1","type":"ExecutionStarted","details":{...},"previous_event_id":"0",
     "event_timestamp":"1700000000000","execution_arn":"arn:...","redrive_count":"0"}

`level` picks the events (ALL; ERROR: failures, time-outs and aborts; FATAL: the execution's own
failure; OFF), `includeExecutionData` keeps or drops their payloads. The messages are appended in
the transaction that appends the events (SfnStore's append hook), for STANDARD and EXPRESS alike,
so a log never shows an event the history lost. The configuration is checked at create/update as
AWS checks it, including the role's permission to deliver logs, and the check leaves AWS's empty
validation stream in the group. Executions of one machine started in the same minute share a stream
(as AWS recorded three runs in a row in one); a group deleted since gets nothing and is not made again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections import OrderedDict
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.sfn import errors as E

if TYPE_CHECKING:
    from onceflow.sfn.engine.events import Event
    from onceflow.stack import Stack

log = logging.getLogger(__name__)

FATAL = {"ExecutionFailed", "ExecutionAborted", "ExecutionTimedOut"}
# Without execution data AWS drops the payloads and their *Details markers too (as recorded).
DATA_FIELDS = ("input", "inputDetails", "output", "outputDetails", "parameters", "assignedVariables",
               "assignedVariablesDetails")
# The actions AWS's documented log-delivery policy grants; CreateLogDelivery stands for them all.
DELIVERY_ACTION = "logs:CreateLogDelivery"
# The empty stream AWS's log delivery leaves in the group when it validates a destination (the
# recorded test_logs runs wait for it beside the executions' stream).
VALIDATION_STREAM = "log_stream_created_by_aws_to_validate_log_delivery_subscriptions"


def logged(level: str, event_type: str) -> bool:
    if level == "ALL":
        return True
    if level == "FATAL":
        return event_type in FATAL
    if level == "ERROR":
        return (event_type.endswith(("Failed", "TimedOut", "Aborted")) or event_type == "FailStateEntered")
    return False


def message(event: Event, exec_arn: str, redrive_count: int, include_data: bool) -> str:
    details = dict(event.details or {})
    if not include_data:
        details = {k: v for k, v in details.items() if k not in DATA_FIELDS}
    return json.dumps({
        "id": str(event.id), "type": event.type, "details": details, "previous_event_id": str(event.prev),
        "event_timestamp": str(round(event.ts * 1000)), "execution_arn": exec_arn, "redrive_count": str(redrive_count),
    }, separators=(",", ":"), ensure_ascii=False)


def group_of(config: dict[str, Any]) -> tuple[str, str, str] | None:
    """(region, account, group name) of the configuration's destination, or None."""
    from onceflow.logs.service import parse_group_arn

    for dest in config.get("destinations") or []:
        arn = (dest.get("cloudWatchLogsLogGroup") or {}).get("logGroupArn")
        if arn:
            return parse_group_arn(arn)
    return None


def check_logging(stack: Stack, config: dict[str, Any] | None, role_arn: str) -> dict[str, Any]:
    """The configuration as stored (defaults filled in); AWS's errors for one it refuses."""
    config = dict(config or {})
    config.setdefault("level", "OFF")
    config.setdefault("includeExecutionData", False)
    destinations = config.get("destinations") or []
    if len(destinations) > 1 or (config["level"] != "OFF" and not destinations):
        raise E.invalid_logging("Invalid Logging Configuration: Must specify exactly one Log Destination.")
    for dest in destinations:
        arn = (dest.get("cloudWatchLogsLogGroup") or {}).get("logGroupArn") or ""
        if not arn.endswith(":*"):
            raise E.invalid_logging("Invalid Logging Configuration: Log Group ARN must be provided with '*' "
                                    "qualifier.")
        if group_of({"destinations": [dest]}) is None:
            raise E.invalid_logging(f"Invalid Logging Configuration: Invalid Log Group ARN: {arn}")
    logs = stack.ports.logs.get()
    found = group_of(config)
    if found is not None and logs is not None and not _group_exists(logs, *found):
        raise E.invalid_logging("Invalid Logging Configuration: Log Destination not found.")
    iam = stack.ports.roles.get()
    if destinations and iam is not None:
        account = role_arn.split(":")[4] if role_arn.count(":") >= 5 else ""
        if not iam.role_allows(account, role_arn, DELIVERY_ACTION, "*"):
            raise ServiceError("AccessDeniedException",
                               "The state machine IAM Role is not authorized to access the Log Destination", 400)
    if found is not None and logs is not None:
        region, account, group = found
        logs.append(account, region, group, VALIDATION_STREAM, [])
    return config  # an empty destinations list stays as given [AWS]


def _group_exists(logs: Any, region: str, account: str, name: str) -> bool:
    groups = logs.describe_groups(account, region, prefix=name, limit=50).get("logGroups") or []
    return any(g.get("logGroupName") == name for g in groups)


class ExecLogger:
    """The store's append hook: each appended event of a logged execution becomes a log message."""

    CACHE = 4096

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        # exec ARN -> (config or None when not logged, stream name, redrive count)
        self._cache: OrderedDict[str, tuple[dict[str, Any] | None, str, int]] = OrderedDict()

    def reset(self) -> None:
        self._cache.clear()

    def started(self, exec_arn: str, sm_arn: str, start: float, config_text: str) -> None:
        """A new execution, in StartExecution's transaction before its first event: its set-up from
        the machine row the caller holds, instead of two reads at that event (always replaced: an
        attempt rolled back leaves no entry that a second one would find)."""
        self._remember(exec_arn, self._made(exec_arn, sm_arn, start, 0, config_text))

    def _setup(self, conn: sqlite3.Connection, exec_arn: str) -> tuple[dict[str, Any] | None, str, int]:
        got = self._cache.get(exec_arn)
        if got is not None:
            return got
        row = conn.execute("SELECT sm_arn, version_arn, start, redrive_count FROM sfn_executions WHERE arn=?",
                           (exec_arn,)).fetchone()
        got = (None, "", 0)
        if row is not None:
            source = conn.execute("SELECT config FROM sfn_versions WHERE arn=?", (row[1],)).fetchone() if row[1] \
                else conn.execute("SELECT config FROM sfn_state_machines WHERE arn=?", (row[0],)).fetchone()
            got = self._made(exec_arn, row[0], row[2], row[3], source[0] if source is not None else None)
        self._remember(exec_arn, got)
        return got

    @staticmethod
    def _made(exec_arn: str, sm_arn: str, start: float, redrives: int,
              config_text: str | None) -> tuple[dict[str, Any] | None, str, int]:
        config: dict[str, Any] | None = None
        stream = ""
        if config_text is not None:
            logging_config = json.loads(config_text).get("loggingConfiguration") or {}
            if logging_config.get("level", "OFF") != "OFF" and group_of(logging_config) is not None:
                config = logging_config
        if config is not None:  # the stream's name only where something is logged (not per plain start)
            # one stream per state machine and minute of start: AWS delivers executions started
            # one after another into the same stream (test_logs::test_log_group_with_multiple_runs)
            started = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%d-%H-%M")
            digest = hashlib.sha256(f"{sm_arn}/{started}".encode()).hexdigest()[:32]
            stream = f"states/{sm_arn.rsplit(':', 1)[1]}/{started}/{digest}"
        return config, stream, redrives

    def _remember(self, exec_arn: str, got: tuple[dict[str, Any] | None, str, int]) -> None:
        self._cache[exec_arn] = got
        while len(self._cache) > self.CACHE:
            self._cache.popitem(last=False)

    def on_append(self, conn: sqlite3.Connection, exec_arn: str, events: Iterable[Event]) -> None:
        logs = self.stack.ports.logs.get()
        if logs is None:
            return
        config, stream, redrives = self._setup(conn, exec_arn)
        if config is None:
            return
        out: list[tuple[int, str]] = []
        for e in events:
            if e.type == "ExecutionRedriven":
                redrives = int((e.details or {}).get("redriveCount", redrives + 1))
                self._cache[exec_arn] = (config, stream, redrives)
            if e.id <= 0 or not logged(config["level"], e.type):  # hidden child-run events stay out
                continue
            out.append((round(e.ts * 1000), message(e, exec_arn, redrives, bool(config.get("includeExecutionData")))))
        if not out:
            return
        region, account, group = group_of(config)  # type: ignore[misc]
        if not _group_exists(logs, region, account, group):
            return  # delivery to a deleted group is lost, the group is not made again (test_deleted_log_group)
        try:
            logs.append(account, region, group, stream, out)
        except Exception:  # delivery is best effort on AWS too: the execution goes on
            log.exception("log delivery for %s failed", exec_arn)
