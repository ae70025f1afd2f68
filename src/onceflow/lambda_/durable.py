"""Durable executions: the record of one execution, and the rules that apply a checkpoint's operation
updates to it (pure: no I/O, no clock but the `now` it is given).

An execution is what Lambda keeps between the invocations of a durable function: its operations (the
EXECUTION operation first, then STEP, WAIT, CALLBACK, CONTEXT, CHAINED_INVOKE ones, in start order, in
the wire's Operation shape with epoch-millisecond timestamps), its history events (the wire's Event
shape, EventId from 1), the checkpoint token the next checkpoint must present, and the due times
the service acts on by itself (a wait's end, a step retry's next attempt, a callback's timeouts).
The handler reaches it only through the checkpoint token (durable_api.py); the driver
(durable_driver.py) invokes the handler with the envelope built here.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable_checks, errors

RUNNING, SUCCEEDED, FAILED, TIMED_OUT, STOPPED = "RUNNING", "SUCCEEDED", "FAILED", "TIMED_OUT", "STOPPED"
PAUSING, PAUSED = "PAUSING", "PAUSED"  # PauseDurableExecution's (durable_pause.py)
# Not ended: what waits, callbacks and timeouts still act on (a paused execution's pending operations
# "continue to complete", the model's PauseDurableExecution), and what StopDurableExecution may stop.
ACTIVE = (RUNNING, PAUSING, PAUSED)
# An execution whose timeout is paused "still times out 366 days after it started" (the model).
PAUSED_TIMEOUT_CAP_MS = 366 * 86_400_000
TERMINAL_OPERATION = ("SUCCEEDED", "FAILED", "CANCELLED", "TIMED_OUT", "STOPPED")
# Defaults of DurableConfig as the model documents them (history "1-90 days, default 30 days").
DEFAULT_RETENTION_DAYS = 30
# UNCONFIRMED: the ExecutionTimeout AWS applies when DurableConfig leaves it out (here: the model's maximum, a year).
DEFAULT_EXECUTION_TIMEOUT_S = 31_622_400
# CheckpointDurableExecution's ClientToken: "Lambda uses this token to detect and handle duplicate
# requests within a 15-minute window" (the model's documentation).
IDEMPOTENCY_WINDOW_MS = 15 * 60 * 1000
PAGE = 100  # the history's and the state's default page (the model: "The default is 100")
# How SUCCEED and FAIL end an operation: its status, the details member it keeps, the event's suffix.
_ENDINGS = {"SUCCEED": ("SUCCEEDED", "Result", "Succeeded"), "FAIL": ("FAILED", "Error", "Failed")}
_EVENT_KINDS = {"EXECUTION": "Execution", "CONTEXT": "Context", "STEP": "Step", "WAIT": "Wait",
                "CALLBACK": "Callback", "CHAINED_INVOKE": "ChainedInvoke"}  # fmt: skip


def invalid_token() -> ServiceError:
    # The words the durable execution SDK matches on to tell a stale token (exceptions.py of
    # aws-durable-execution-sdk-python 3.0.0: "Invalid checkpoint token", prefix match).
    return errors.invalid("Invalid checkpoint token")


def not_found(arn: str) -> ServiceError:
    return errors.not_found(f"Durable execution not found: {arn}")  # UNCONFIRMED wording


def bad_callback() -> ServiceError:
    return errors.invalid("Invalid callback id")  # UNCONFIRMED wording


def callback_closed() -> ServiceError:
    # The model's CallbackTimeoutException: "The callback ID token has either expired or the callback
    # associated with the token has already been closed." UNCONFIRMED: the message text.
    return errors._err("CallbackTimeoutException", "The callback has timed out or has already been closed.", 400,
                       capital=True)  # fmt: skip


def execution_arn(function_arn: str, version: str, name: str, invocation_id: str) -> str:
    return f"{function_arn}:{version}/durable-execution/{name}/{invocation_id}"


def callback_id(arn: str, operation_id: str) -> str:
    """A callback's id names its execution and operation (the model's pattern: base64 text)."""
    return base64.b64encode(json.dumps([arn, operation_id], separators=(",", ":")).encode()).decode()


def parse_callback_id(value: str) -> tuple[str, str]:
    try:
        arn, op = json.loads(base64.b64decode(value, validate=True))
        return str(arn), str(op)
    except (ValueError, TypeError):
        raise bad_callback() from None


def new_token() -> str:
    return base64.b64encode(os.urandom(24)).decode()


@dataclass
class Execution:
    arn: str
    name: str
    function_arn: str  # qualified by the version that runs
    key: tuple[str, str, str]
    version: str
    input: str
    started_ms: int
    timeout_s: int
    retention_days: int
    status: str = RUNNING
    ended_ms: int | None = None
    result: str | None = None
    error: dict[str, Any] | None = None
    operations: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    token: str = ""
    changed: list[str] = field(default_factory=list)  # operations the service changed since the last answer
    callbacks: dict[str, dict[str, Any]] = field(default_factory=dict)  # op id -> its timeout settings
    chained_sent: list[str] = field(default_factory=list)  # the chained invokes sent to their target
    last_checkpoint: dict[str, Any] | None = None  # the last checkpoint's ClientToken and answer, for its retry
    # A pause asked for or in effect (durable_pause.py): when it was asked, its reason, whether it pauses
    # the timeout, and when it took effect (None while PAUSING).
    pause: dict[str, Any] | None = None
    paused_total_ms: int = 0  # time spent paused with the timeout paused: the timeout moves by it
    interrupted: bool = False  # the pause cut an invocation short: a resume invokes the handler again
    controls: dict[str, dict[str, Any]] = field(default_factory=dict)  # Pause/Resume ClientTokens, 15 minutes

    @property
    def invocation_id(self) -> str:
        return self.arn.rsplit("/", 1)[-1]

    # ------------------------------------------------------------------ storage
    def to_json(self) -> str:
        return json.dumps(self.__dict__, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Execution:
        data = json.loads(text)
        data["key"] = tuple(data["key"])
        return cls(**data)

    # ------------------------------------------------------------------ start and end
    @classmethod
    def start(cls, function_arn: str, key: tuple[str, str, str], version: str, name: str | None, payload: str,
              config: dict[str, Any], now: int) -> Execution:  # fmt: skip
        name = name or str(uuid.uuid4())
        invocation = str(uuid.uuid4())
        durable = config or {}
        execution = cls(
            arn=execution_arn(function_arn, version, name, invocation), name=name,
            function_arn=f"{function_arn}:{version}", key=key, version=version, input=payload, started_ms=now,
            timeout_s=int(durable.get("ExecutionTimeout") or DEFAULT_EXECUTION_TIMEOUT_S),
            retention_days=int(durable.get("RetentionPeriodInDays") or DEFAULT_RETENTION_DAYS),
        )  # fmt: skip
        execution.operations[invocation] = {
            "Id": invocation, "Type": "EXECUTION", "StartTimestamp": now, "Status": "STARTED",
            "ExecutionDetails": {"InputPayload": payload},
        }  # fmt: skip
        # UNCONFIRMED: whether ExecutionStarted names the execution operation (Id) and the execution (Name).
        execution.event("ExecutionStarted", {"Id": invocation, "Name": name}, now, {
            "Input": {"Payload": payload}, "ExecutionTimeout": execution.timeout_s})  # fmt: skip
        execution.token = new_token()
        return execution

    def close(self, status: str, now: int, result: str | None = None, error: dict[str, Any] | None = None) -> None:
        """End the execution: its record, its EXECUTION operation and the closing event."""
        if self.status not in ACTIVE:
            return
        self.status, self.ended_ms, self.token, self.pause = status, now, "", None
        op = self.operations[self.invocation_id]
        op["EndTimestamp"] = now
        if status == SUCCEEDED:
            self.result = result
            op["Status"] = "SUCCEEDED"
            self.event("ExecutionSucceeded", {}, now, {"Result": {"Payload": self.result or ""}})
            return
        self.error = error or {}
        op["Status"] = status
        kind = {FAILED: "ExecutionFailed", TIMED_OUT: "ExecutionTimedOut", STOPPED: "ExecutionStopped"}[status]
        self.event(kind, {}, now, {"Error": {"Payload": self.error}})
        for other in self.operations.values():  # what was still waiting ends with the execution
            if other["Status"] in ("STARTED", "PENDING", "READY") and other["Type"] != "EXECUTION":
                other["Status"], other["EndTimestamp"] = "STOPPED" if status == STOPPED else "CANCELLED", now

    def event(self, kind: str, op: dict[str, Any], now: int, details: dict[str, Any] | None) -> None:
        event: dict[str, Any] = {"EventType": kind}
        if op.get("SubType"):
            event["SubType"] = op["SubType"]
        event["EventId"] = len(self.events) + 1
        for member in ("Id", "Name"):
            if op.get(member):
                event[member] = op[member]
        event["EventTimestamp"] = now
        if op.get("ParentId"):
            event["ParentId"] = op["ParentId"]
        if details is not None:
            event[f"{kind}Details"] = details
        self.events.append(event)

    def invocation_completed(self, started: int, ended: int, request_id: str, error: dict[str, Any] | None) -> None:
        details: dict[str, Any] = {"StartTimestamp": started, "EndTimestamp": ended, "RequestId": request_id}
        if error:
            details["Error"] = {"Payload": error}
        self.event("InvocationCompleted", {}, ended, details)

    # ------------------------------------------------------------------ checkpoints
    def checkpoint(self, token: str, updates: list[dict[str, Any]], now: int,
                   client_token: str | None = None) -> tuple[list[dict[str, Any]], str]:  # fmt: skip
        """Apply a checkpoint; returns the operations to answer in NewExecutionState (those the updates
        touched and those the service changed since the last answer) and the next token (none once the
        execution has ended). A retry of the last checkpoint (its ClientToken and CheckpointToken again,
        within 15 minutes) is given that checkpoint's answer again, and changes nothing."""
        replayed = self._replayed(token, client_token, now)
        if replayed is not None:
            return replayed
        if self.status not in (RUNNING, PAUSING) or not token or token != self.token:
            raise invalid_token()
        durable_checks.validate(updates, self.operations)  # the whole batch first: it applies atomically
        touched = [self._apply(update, now) for update in updates]
        changed, self.changed = self.changed, []
        self.token = new_token() if self.status in (RUNNING, PAUSING) else ""
        ids = list(dict.fromkeys(changed + touched))
        answer = [self.operations[i] for i in ids if i in self.operations]
        if client_token:
            self.last_checkpoint = {"client": client_token, "inbound": token, "at": now, "token": self.token,
                                    "operations": json.loads(json.dumps(answer))}  # fmt: skip
        return answer, self.token

    def _replayed(self, token: str, client_token: str | None, now: int) -> tuple[list[dict[str, Any]], str] | None:
        last = self.last_checkpoint
        if not client_token or last is None or (last["client"], last["inbound"]) != (client_token, token):
            return None
        if now - int(last["at"]) > IDEMPOTENCY_WINDOW_MS:
            return None
        return list(last["operations"]), str(last["token"])

    def _apply(self, update: dict[str, Any], now: int) -> str:
        kind, action, op_id = update["Type"], update["Action"], update["Id"]
        if kind == "EXECUTION":
            if action == "SUCCEED":  # a result too large for the invocation's answer
                self.close(SUCCEEDED, now, result=update.get("Payload") or "")
            else:
                self.close(FAILED, now, error=update.get("Error") or {})
            return op_id
        op = self.operations.get(op_id)
        if op is None:
            op = {"Id": op_id, "Type": kind, "StartTimestamp": now, "Status": "STARTED"}
            for member in ("ParentId", "Name", "SubType"):
                if update.get(member):
                    op[member] = update[member]
            self.operations[op_id] = op
            if kind == "STEP":
                op["StepDetails"] = {"Attempt": 0}
            if action != "START":  # ended in the checkpoint that started it: its start is an event too
                self._started(op, update, now)
        event_kind = _EVENT_KINDS[kind]
        if action == "START":
            op["Status"] = "STARTED"
            self._started(op, update, now)
        elif action in ("SUCCEED", "FAIL"):
            # The one ending: a result or an error, kept in the details and carried by the event.
            status, member, outcome = _ENDINGS[action]
            op.update(Status=status, EndTimestamp=now)
            value = update.get("Payload") if member == "Result" else (update.get("Error") or {})
            details = self._details(op)
            details[member] = value
            ended: dict[str, Any] = {member: {"Payload": value}}
            if kind == "STEP":
                details.pop("NextAttemptTimestamp", None)
                ended["RetryDetails"] = {"CurrentAttempt": int(details.get("Attempt", 0)) + 1}
            self.event(f"{event_kind}{outcome}", op, now, ended)
        elif action == "RETRY":
            delay = int((update.get("StepOptions") or {}).get("NextAttemptDelaySeconds") or 1)
            details = op.setdefault("StepDetails", {"Attempt": 0})
            details["Attempt"] = int(details.get("Attempt", 0)) + 1
            details["NextAttemptTimestamp"] = now + delay * 1000
            if update.get("Error"):
                details["Error"] = update["Error"]
            if update.get("Payload") is not None:  # wait-for-condition's state between attempts
                details["Result"] = update["Payload"]
            op["Status"] = "PENDING"
            retry = {"CurrentAttempt": details["Attempt"], "NextAttemptDelaySeconds": delay}
            if update.get("Error"):
                self.event("StepFailed", op, now, {"Error": {"Payload": update["Error"]}, "RetryDetails": retry})
            else:  # UNCONFIRMED: the event a retry without an error (wait for condition) records
                self.event("StepSucceeded", op, now, {"Result": {"Payload": update.get("Payload")},
                                                      "RetryDetails": retry})  # fmt: skip
        elif action == "CANCEL":  # a wait, cancelled
            op.update(Status="CANCELLED", EndTimestamp=now)
            self.event("WaitCancelled", op, now, {})
        return op_id

    def _started(self, op: dict[str, Any], update: dict[str, Any], now: int) -> None:
        kind = op["Type"]
        if kind == "WAIT":
            seconds = int((update.get("WaitOptions") or {}).get("WaitSeconds") or 1)
            end = now + seconds * 1000
            op["WaitDetails"] = {"ScheduledEndTimestamp": end}
            self.event("WaitStarted", op, now, {"Duration": seconds, "ScheduledEndTimestamp": end})
        elif kind == "CALLBACK":
            options = update.get("CallbackOptions") or {}
            timeout, heartbeat = (
                int(options.get("TimeoutSeconds") or 0),
                int(options.get("HeartbeatTimeoutSeconds") or 0),
            )
            cid = callback_id(self.arn, op["Id"])
            op["CallbackDetails"] = {"CallbackId": cid}
            self.callbacks[op["Id"]] = {
                "timeout_at": now + timeout * 1000 if timeout else None,
                "heartbeat_s": heartbeat, "heartbeat_at": now + heartbeat * 1000 if heartbeat else None,
            }  # fmt: skip
            started: dict[str, Any] = {"CallbackId": cid}
            if heartbeat:
                started["HeartbeatTimeout"] = heartbeat
            if timeout:
                started["Timeout"] = timeout
            self.event("CallbackStarted", op, now, started)
        elif kind == "CHAINED_INVOKE":
            options = update.get("ChainedInvokeOptions") or {}
            op["ChainedInvokeDetails"] = {}
            started = {"FunctionName": options.get("FunctionName", "")}
            if options.get("TenantId"):
                started["TenantId"] = options["TenantId"]
            started["Input"] = {"Payload": update.get("Payload") or ""}
            self.event("ChainedInvokeStarted", op, now, started)
        elif kind == "CONTEXT":
            self.event("ContextStarted", op, now, {})
        else:
            self.event("StepStarted", op, now, {})

    @staticmethod
    def _details(op: dict[str, Any]) -> dict[str, Any]:
        member = {"STEP": "StepDetails", "CONTEXT": "ContextDetails", "CALLBACK": "CallbackDetails",
                  "CHAINED_INVOKE": "ChainedInvokeDetails", "WAIT": "WaitDetails"}[op["Type"]]  # fmt: skip
        details: dict[str, Any] = op.setdefault(member, {})
        return details

    # ------------------------------------------------------------------ what the service does by itself
    def timeout_at(self, now: int) -> int:
        """When the execution times out: its timeout, moved on by the time it spent paused with the
        timeout paused (and by the pause still going on), never past 366 days after its start."""
        due = self.started_ms + self.timeout_s * 1000 + self.paused_total_ms
        pause = self.pause or {}
        if self.status == PAUSED and pause.get("TimeoutPaused") and pause.get("PausedMs") is not None:
            due += max(0, now - int(pause["PausedMs"]))
        cap = self.started_ms + PAUSED_TIMEOUT_CAP_MS
        return min(due, max(cap, self.started_ms + self.timeout_s * 1000))

    def next_due(self) -> int | None:
        """When the service next has something to do for this execution (epoch ms), if ever."""
        pause = self.pause or {}
        if self.status == PAUSED and pause.get("TimeoutPaused"):  # the timeout moves while paused: the cap
            times = [self.started_ms + max(PAUSED_TIMEOUT_CAP_MS, self.timeout_s * 1000)]
        else:
            times = [self.timeout_at(self.started_ms)]
        for op_id, op in self.operations.items():
            if op["Type"] == "WAIT" and op["Status"] == "STARTED":
                times.append(op["WaitDetails"]["ScheduledEndTimestamp"])
            elif op["Type"] == "STEP" and op["Status"] == "PENDING":
                times.append(op["StepDetails"]["NextAttemptTimestamp"])
            elif op["Type"] == "CALLBACK" and op["Status"] == "STARTED":
                timers = self.callbacks.get(op_id) or {}
                times.extend(t for t in (timers.get("timeout_at"), timers.get("heartbeat_at")) if t)
        return min(times)

    def advance(self, now: int) -> bool:
        """Apply what is due by `now`: waits end, step retries become ready, callbacks time out, the
        execution times out. True when the handler has something new to see."""
        if self.status not in ACTIVE:
            return False
        if now >= self.timeout_at(now):
            # UNCONFIRMED: the error a timed-out execution records
            self.close(TIMED_OUT, now, error={"ErrorType": "Execution.TimedOut",
                                              "ErrorMessage": "The execution timed out."})  # fmt: skip
            return False
        woke = False
        for op_id, op in self.operations.items():
            if op["Type"] == "WAIT" and op["Status"] == "STARTED" and op["WaitDetails"]["ScheduledEndTimestamp"] <= now:
                op.update(Status="SUCCEEDED", EndTimestamp=now)
                seconds = round((op["WaitDetails"]["ScheduledEndTimestamp"] - op["StartTimestamp"]) / 1000)
                self.event("WaitSucceeded", op, now, {"Duration": seconds})
            elif (
                op["Type"] == "STEP" and op["Status"] == "PENDING" and op["StepDetails"]["NextAttemptTimestamp"] <= now
            ):
                op["Status"] = "READY"
            elif op["Type"] == "CALLBACK" and op["Status"] == "STARTED":
                timers = self.callbacks.get(op_id) or {}
                due = [t for t in (timers.get("timeout_at"), timers.get("heartbeat_at")) if t]
                if not due or min(due) > now:
                    continue
                kind = (
                    "Callback.Timeout"
                    if timers.get("timeout_at") and timers["timeout_at"] <= now
                    else "Callback.HeartbeatTimeout"
                )
                # UNCONFIRMED: the message; ErrorType Callback.Timeout is the conformance suite's
                error = {"ErrorType": kind, "ErrorMessage": "Callback timed out"}
                op.update(Status="TIMED_OUT", EndTimestamp=now)
                op["CallbackDetails"]["Error"] = error
                self.event("CallbackTimedOut", op, now, {"Error": {"Payload": error}})
            else:
                continue
            self.changed.append(op_id)
            woke = True
        return woke

    def complete_callback(self, op_id: str, now: int, result: str | None, error: dict[str, Any] | None) -> None:
        op = self.operations.get(op_id)
        if op is None or op["Type"] != "CALLBACK":
            raise bad_callback()
        if op["Status"] != "STARTED" or self.status not in ACTIVE:
            raise callback_closed()
        op["EndTimestamp"] = now
        if error is None:
            op["Status"] = "SUCCEEDED"
            op["CallbackDetails"]["Result"] = result or ""
            self.event("CallbackSucceeded", op, now, {"Result": {"Payload": result or ""}})
        else:
            op["Status"] = "FAILED"
            op["CallbackDetails"]["Error"] = error
            self.event("CallbackFailed", op, now, {"Error": {"Payload": error}})
        self.changed.append(op_id)

    def heartbeat(self, op_id: str, now: int) -> None:
        op = self.operations.get(op_id)
        if op is None or op["Type"] != "CALLBACK":
            raise bad_callback()
        if op["Status"] != "STARTED" or self.status not in ACTIVE:
            raise callback_closed()
        timers = self.callbacks.setdefault(op_id, {})
        if timers.get("heartbeat_s"):
            timers["heartbeat_at"] = now + int(timers["heartbeat_s"]) * 1000

    def complete_chained(self, op_id: str, now: int, result: str | None, error: dict[str, Any] | None) -> None:
        op = self.operations.get(op_id)
        if self.status not in ACTIVE or op is None or op["Status"] != "STARTED":
            return
        op["EndTimestamp"] = now
        if error is None:
            op["Status"] = "SUCCEEDED"
            op["ChainedInvokeDetails"] = {"Result": result or ""}
            self.event("ChainedInvokeSucceeded", op, now, {"Result": {"Payload": result or ""}})
        else:
            op["Status"] = "FAILED"
            op["ChainedInvokeDetails"] = {"Error": error}
            self.event("ChainedInvokeFailed", op, now, {"Error": {"Payload": error}})
        self.changed.append(op_id)

    # ------------------------------------------------------------------ what the handler is given
    def envelope(self) -> dict[str, Any]:
        """The invocation's event: the execution's ARN, a fresh checkpoint token and its state so far."""
        self.token = new_token()
        self.changed = []
        ops = list(self.operations.values())
        state: dict[str, Any] = {"Operations": ops[:1000]}
        if len(ops) > 1000:
            state["NextMarker"] = "1000"
        return {"DurableExecutionArn": self.arn, "CheckpointToken": self.token, "InitialExecutionState": state}

    def state_page(self, token: str, marker: str | None, max_items: int | None) -> dict[str, Any]:
        if self.status not in (RUNNING, PAUSING) or not token or token != self.token:
            raise invalid_token()
        start = _marker(marker)
        size = max_items or PAGE
        ops = list(self.operations.values())
        out: dict[str, Any] = {"Operations": ops[start : start + size]}
        if start + size < len(ops):
            out["NextMarker"] = str(start + size)
        return out


def _marker(marker: str | None) -> int:
    if not marker:
        return 0
    if not marker.isdigit():
        raise errors.invalid("Invalid marker")  # UNCONFIRMED wording
    return int(marker)


def page(items: list[Any], marker: str | None, max_items: int | None) -> tuple[list[Any], str | None]:
    start = _marker(marker)
    size = max_items or PAGE
    return items[start : start + size], (str(start + size) if start + size < len(items) else None)
