"""One invocation's log lines as Lambda writes them (Text or JSON format, SystemLogLevel), shipped to
CloudWatch Logs in batches; the last 4 KB kept for LogType=Tail; and whether the role may write them.
"""

from __future__ import annotations

import base64
import json
import math
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.lambda_ import config as cfg
from onceflow.lambda_.config import runtime_version_arn
from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.pool import Outcome
from onceflow.lambda_.service import Resolved

if TYPE_CHECKING:
    from onceflow.lambda_.invoke import Invoker
    from onceflow.ports import Ports

_TAIL_BYTES = 4096
_MAX_EVENT_BYTES = protocol.MAX_EVENT_BYTES
_BATCH_BYTES = 1 << 20  # log lines held per invocation before they are handed to the shipper
_EVENT_OVERHEAD = 80  # what a (ts, msg) tuple costs beyond its text, for the byte counts


def may_write_logs(
    ports: Ports, enforce: bool, account: str, region: str, role_arn: str, group: str, stream: str
) -> bool:
    """Under --enforce-iam, Lambda writes a function's logs only as far as its execution role
    allows, as on AWS: CreateLogStream and PutLogEvents on the stream, and CreateLogGroup
    when the group does not exist yet. Otherwise the lines are dropped silently."""
    iam, logs = ports.roles.get(), ports.logs.get()
    if not enforce or iam is None or logs is None:
        return True
    group_arn = f"arn:{partition(region)}:logs:{region}:{account}:log-group:{group}"
    stream_arn = f"{group_arn}:log-stream:{stream}"
    if not all(iam.role_allows(account, role_arn, action, stream_arn)
               for action in ("logs:CreateLogStream", "logs:PutLogEvents")):
        return False
    listed = logs.describe_groups(account, region, prefix=group, limit=1)["logGroups"]
    if listed and listed[0]["logGroupName"] == group:
        return True
    return bool(iam.role_allows(account, role_arn, "logs:CreateLogGroup", f"{group_arn}:*"))


class InvocationLog:
    """One invocation's log lines (the pool's LogSink): INIT_START and init output on a cold start,
    START, the handler's lines, END, REPORT. They are handed to the shipper a batch at a time, so
    what a handler prints costs the server one batch (and the shipper's bounded queue), not all of it."""

    def __init__(self, invoker: Invoker, resolved: Resolved, request_id: str) -> None:
        self._invoker = invoker
        self._resolved = resolved
        self._request_id = request_id
        self._started_ms = int(time.time() * 1000)
        self._last_ms = self._started_ms
        self._stream: str | None = None
        self._allowed = False
        self._batch: list[tuple[int, str]] = []
        self._batch_bytes = 0
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0
        self._logging = cfg.logging_config(resolved.config.get("LoggingConfig"), resolved.ref.name)
        self._json = self._logging["LogFormat"] == "JSON"
        self._system_level = self._logging.get("SystemLogLevel", "INFO")

    # the pool's side
    def begin(self, log_stream: str, cold: bool) -> None:
        ref = self._resolved.ref
        self._stream = log_stream
        role = self._resolved.config["Role"]
        invoker = self._invoker
        self._allowed = may_write_logs(invoker.ports, invoker.enforce_log_permissions, ref.account, ref.region, role,
                                       self.group, log_stream)  # fmt: skip
        if cold:
            runtime, arch = self._resolved.config["Runtime"], self._resolved.config.get("Architectures")
            warning = self._invoker.interpreters.warning(runtime)
            if self._json:
                record: dict[str, Any] = {
                    "initializationType": "on-demand", "phase": "init",
                    "runtimeVersion": f"{runtime.replace('python', 'python:')}.v1",
                    "runtimeVersionArn": runtime_version_arn(ref.region, runtime, arch),
                }  # fmt: skip
                if warning:
                    record["onceflowWarning"] = warning
                self._platform(self._started_ms, "platform.initStart", record, tail=False)
                return
            init_start = _init_start(runtime, ref.region, arch)
            if warning:  # the runtime runs on another Python (lambda_/interpreters.py)
                init_start = f"{init_start[:-1]}\tonceflow warning: {warning}\n"
            # Recorded: a cold start's LogResult begins at START; INIT_START is in the stream only.
            self._system(self._started_ms, init_start, tail=False)

    def start(self) -> None:
        # Logs sorts events by time: START must not sort before what init printed.
        version = self._resolved.executed_version
        if self._json:
            self._platform(self._last_ms, "platform.start", {"requestId": self._request_id, "version": version})
        else:
            self._system(self._last_ms, f"START RequestId: {self._request_id} Version: {version}\n")

    def line(self, ts: int, msg: str) -> None:
        self._add(ts, _fit(msg))

    # the invoker's side
    @property
    def group(self) -> str:
        return self._logging["LogGroup"]

    def finish(self, outcome: Outcome) -> None:
        end_ms = max(self._last_ms, int(time.time() * 1000))
        config = self._resolved.config
        if self._json:
            self._platform(end_ms, "platform.report", _report_record(self._request_id, outcome, config))
            return
        if outcome.status == "timeout":  # the platform's line, as Lambda writes it before END
            seconds = outcome.duration_ms / 1000
            self._add(end_ms, f"{_iso(end_ms)} {self._request_id} Task timed out after {seconds:.2f} seconds\n")
        self._system(end_ms, f"END RequestId: {self._request_id}\n")
        self._system(end_ms, _report(self._request_id, outcome, config))

    def _system(self, ts: int, msg: str, tail: bool = True) -> None:
        """A platform line, at INFO: SystemLogLevel WARN leaves them out."""
        if self._system_level != "WARN":
            self._add(ts, msg, tail)

    def _platform(self, ts: int, kind: str, record: dict[str, Any], tail: bool = True) -> None:
        """A platform event in the JSON log format."""
        text = json.dumps({"time": _iso(ts), "type": kind, "record": record}, separators=(",", ":"))
        self._system(ts, text, tail)

    def flush(self) -> None:
        batch, self._batch, self._batch_bytes = self._batch, [], 0
        if batch and self._allowed and self._stream is not None:
            ref = self._resolved.ref
            self._invoker.logs.ship(ref.account, ref.region, self.group, self._stream, batch)

    def tail(self) -> str:
        """LogResult: the last 4 KB of the lines, base64."""
        return base64.b64encode(b"".join(self._tail)[-_TAIL_BYTES:]).decode()

    def _add(self, ts: int, msg: str, tail: bool = True) -> None:
        """A line for the stream and, with `tail`, for LogResult."""
        self._last_ms = max(self._last_ms, ts)
        self._batch.append((ts, msg))
        self._batch_bytes += len(msg) + _EVENT_OVERHEAD
        if tail:
            self._keep_for_tail(msg)
        if self._batch_bytes >= _BATCH_BYTES:
            self.flush()

    def _keep_for_tail(self, msg: str) -> None:
        # LogResult is the events as written: the runtime's [ERROR] event has no newline of its own, so
        # in the Text format the next line follows on (recorded: `...raise Exception(...)END RequestId`).
        # JSON records are one a line (UNCONFIRMED for JSON: no recording of its LogResult).
        text = (msg if msg.endswith("\n") or not self._json else msg + "\n").encode()[-_TAIL_BYTES:]
        self._tail.append(text)
        self._tail_bytes += len(text)
        while self._tail_bytes - len(self._tail[0]) >= _TAIL_BYTES:
            self._tail_bytes -= len(self._tail.popleft())


def _fit(message: str) -> str:
    """A log event as CloudWatch Logs takes it: valid UTF-8 (a handler may print a lone surrogate)
    and at most 256 KB less 26 bytes of overhead. The worker already splits longer lines as Lambda
    does; the cut is the server's guard against one that does not."""
    try:
        data = message.encode()
    except UnicodeEncodeError:
        data = message.encode("utf-8", "surrogatepass")
        message = data.decode("utf-8", "replace")
        data = message.encode()
    if len(data) <= _MAX_EVENT_BYTES:
        return message
    return data[:_MAX_EVENT_BYTES].decode(errors="ignore")


def _init_start(runtime: str, region: str, architectures: list[str] | None) -> str:
    # AWS numbers its runtime builds (python:3.12.v38); onceflow has one build per runtime: v1.
    version = runtime.replace("python", "python:")
    arn = runtime_version_arn(region, runtime, architectures)
    return f"INIT_START Runtime Version: {version}.v1\tRuntime Version ARN: {arn}\n"


def _iso(ts_ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts_ms / 1000)) + f".{ts_ms % 1000:03d}Z"


def _report_record(request_id: str, outcome: Outcome, config: dict[str, Any]) -> dict[str, Any]:
    """platform.report of the JSON log format: REPORT's figures as metrics."""
    metrics: dict[str, Any] = {
        "durationMs": round(outcome.duration_ms, 3),
        "billedDurationMs": max(1, math.ceil(outcome.duration_ms)),
        "memorySizeMB": int(config.get("MemorySize", 128)),
        "maxMemoryUsedMB": outcome.mem_mb,
    }
    if outcome.init_ms is not None:
        metrics["initDurationMs"] = round(outcome.init_ms, 3)
    record: dict[str, Any] = {"requestId": request_id, "metrics": metrics, "status": outcome.status or "success"}
    if outcome.status == "error" and outcome.error_type:
        record["errorType"] = outcome.error_type
    elif outcome.status == "timeout":
        record["errorType"] = "Sandbox.Timedout"
    return record


def _report(request_id: str, outcome: Outcome, config: dict[str, Any]) -> str:
    billed = max(1, math.ceil(outcome.duration_ms))
    line = (
        f"REPORT RequestId: {request_id}\tDuration: {outcome.duration_ms:.2f} ms\tBilled Duration: {billed} ms\t"
        f"Memory Size: {config.get('MemorySize', 128)} MB\tMax Memory Used: {outcome.mem_mb} MB\t"
    )
    if outcome.init_ms is not None:
        line += f"Init Duration: {outcome.init_ms:.2f} ms\t"
    if outcome.status == "timeout":
        line += "Status: timeout"
    elif outcome.status == "error":
        line += f"Status: error\tError Type: {outcome.error_type}"
    return line + "\n"
