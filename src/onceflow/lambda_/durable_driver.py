"""The durable execution driver: starts executions on Invoke, invokes the handler with the durable
envelope, and invokes it again when the handler answered PENDING and something it waits on is due (a
wait's end, a step retry's next attempt, a callback's completion or timeout, a chained invoke's
answer). One invocation of an execution runs at a time; what completes meanwhile wakes the next.

Every change of an execution is written before it is acted on (durable_store.py), so a restarted
server resumes the running executions (`resume`). The timers are in memory: at start-up each
running execution is looked at again, and what is overdue runs then.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import durable, durable_pause, errors
from onceflow.lambda_.durable import Execution
from onceflow.lambda_.durable_store import DurableStore

if TYPE_CHECKING:
    from onceflow.lambda_.runtime.pool import Outcome
    from onceflow.lambda_.service import LambdaService, Resolved

log = logging.getLogger("onceflow.lambda.durable")

# What runs one invocation of the handler (the invoker's, with its admission and logs): payload in.
RunInvocation = Callable[["Resolved", bytes, str], "Outcome"]
# A chained invoke: (account, region, function name, payload) -> (result, error).
ChainedCall = Callable[[str, str, str, bytes], "tuple[str | None, dict[str, Any] | None]"]
_SYNC_LIMIT_S = 900.0  # a synchronous invocation waits at most 15 minutes (docs: "Invoking durable functions")
_THROTTLED_RETRY_S = 1.0


def now_ms() -> int:
    return int(time.time() * 1000)


def unqualified() -> ServiceError:
    # AWS's words, as a user's CLI transcript recorded them (blog "Lambda Durable Functions fraud detection").
    return errors.invalid("You cannot invoke a durable function using an unqualified ARN.")


def already_started(name: str) -> ServiceError:
    # The model's DurableExecutionAlreadyStartedException (409). UNCONFIRMED: the message text.
    return errors._err("DurableExecutionAlreadyStartedException",
                       f"Durable execution with name {name} already exists with a different input.", 409,
                       capital=True)  # fmt: skip


class DurableDriver:
    def __init__(self, store: DurableStore, service: LambdaService, time_scale: float = 1.0, workers: int = 4) -> None:
        self.store = store
        self.service = service
        self.time_scale = time_scale  # divides waits and retry delays, as Step Functions' waits
        self.run_invocation: RunInvocation | None = None  # set by setup (the invoker's)
        self.chained_call: ChainedCall | None = None
        self._lock = threading.RLock()
        self._running: set[str] = set()  # executions with an invocation in flight
        self._wake: set[str] = set()  # ... that got news meanwhile
        self._timers: dict[str, threading.Timer] = {}
        self._ended = threading.Condition(self._lock)
        self._executor = ThreadPoolExecutor(max_workers=max(2, workers), thread_name_prefix="lambda-durable")
        self._closed = False

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            timers, self._timers = self._timers, {}
            self._ended.notify_all()
        for timer in timers.values():
            timer.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ Invoke
    def invoke(self, resolved: Resolved, payload: bytes, kind: str, name: str | None) -> dict[str, Any]:
        """Invoke of a durable function: start (or, by its name, find) the execution; RequestResponse
        waits for its end, Event answers 202 at once."""
        ref = resolved.ref
        if ref.qualifier is None:
            raise unqualified()
        text = payload.decode() if payload else ""
        with self._lock:
            existing = self.store.by_name(ref.key, resolved.executed_version, name) if name else None
            if existing is not None and existing.input != text:
                raise already_started(existing.name)
            execution = existing or Execution.start(
                ref.arn(), ref.key, resolved.executed_version, name, text,
                resolved.config.get("DurableConfig") or {}, now_ms())  # fmt: skip
            if existing is None:
                self.store.put(execution)
        if existing is None:
            self._submit(execution.arn)
        if kind == "Event":
            return {"StatusCode": 202, "DurableExecutionArn": execution.arn}
        ended = self._wait_for_end(execution.arn)
        out: dict[str, Any] = {"StatusCode": 200, "DurableExecutionArn": execution.arn,
                               "ExecutedVersion": resolved.executed_version}  # fmt: skip
        if ended.status == durable.SUCCEEDED:
            out["Payload"] = (ended.result or "null").encode()
        else:
            out["FunctionError"] = "Unhandled"
            out["Payload"] = json.dumps(_error_document(ended), separators=(",", ":")).encode()
        return out

    def _wait_for_end(self, arn: str) -> Execution:
        deadline = time.monotonic() + _SYNC_LIMIT_S
        with self._lock:
            while True:
                execution = self.store.get(arn)
                if execution is None:
                    raise durable.not_found(arn)
                if execution.status not in durable.ACTIVE or self._closed:
                    return execution
                left = deadline - time.monotonic()
                if left <= 0:  # UNCONFIRMED: what a synchronous caller gets after 15 minutes
                    raise errors._err("ServiceException", "The durable execution did not end within the "
                                      "synchronous invocation limit.", 500, capital=True)  # fmt: skip
                self._ended.wait(min(left, 1.0))

    # ------------------------------------------------------------------ driving
    def _submit(self, arn: str) -> None:
        try:
            self._executor.submit(self._drive, arn)
        except RuntimeError:  # shut down meanwhile
            pass

    def _drive(self, arn: str) -> None:
        """Invoke the handler until the execution ends or waits on something not yet due."""
        while True:
            with self._lock:
                if self._closed or arn in self._running:
                    if arn in self._running:
                        self._wake.add(arn)
                    return
                execution = self.store.get(arn)
                if execution is None or execution.status != durable.RUNNING:
                    return
                if execution.advance(now_ms()) or execution.status != durable.RUNNING:
                    self._save(execution)
                if execution.status != durable.RUNNING:
                    return
                envelope = execution.envelope()
                self._save(execution)
                self._running.add(arn)
                self._wake.discard(arn)
            request_id = str(uuid.uuid4())
            started = now_ms()
            try:
                outcome = self._invoke_handler(execution, envelope, request_id)
            except ServiceError as exc:  # throttled, or the function is gone
                with self._lock:
                    self._running.discard(arn)
                if exc.code == "ResourceNotFoundException":
                    self._end(arn, durable.FAILED, None, {"ErrorType": exc.code, "ErrorMessage": exc.message})
                else:
                    self._schedule(arn, now_ms() + int(_THROTTLED_RETRY_S * 1000))
                return
            except Exception:
                with self._lock:
                    self._running.discard(arn)
                if not self._closed:
                    log.exception("durable execution %s: invocation failed", arn)
                return
            again = self._conclude(arn, outcome, started, request_id)
            if not again:
                return

    def _invoke_handler(self, execution: Execution, envelope: dict[str, Any], request_id: str) -> Outcome:
        account, region, name = execution.key
        resolved = self.service.resolve(account, region, name, execution.version, invoking=True)
        assert self.run_invocation is not None
        return self.run_invocation(resolved, json.dumps(envelope, separators=(",", ":")).encode(), request_id)

    def _conclude(self, arn: str, outcome: Outcome, started: int, request_id: str) -> bool:
        """After an invocation: record it, end the execution or wait for what it waits on. True: invoke again now."""
        answer, error = _read_answer(outcome)
        with self._lock:
            self._running.discard(arn)
            execution = self.store.get(arn)
            if execution is None:
                return False
            execution.invocation_completed(started, now_ms(), request_id, error if answer is None else None)
            if execution.status == durable.PAUSED:  # paused at a checkpoint: what it answered after is moot
                self._save(execution)
                self._schedule_next(arn)
                return False
            if execution.status in (durable.RUNNING, durable.PAUSING):
                status = (answer or {}).get("Status")
                if answer is None or status == "FAILED":
                    execution.close(durable.FAILED, now_ms(), error=(answer or {}).get("Error") or error or {})
                elif status == "SUCCEEDED":
                    execution.close(durable.SUCCEEDED, now_ms(), result=answer.get("Result"))
                elif status != "PENDING":  # UNCONFIRMED: how Lambda ends an execution whose handler answers nonsense
                    execution.close(
                        durable.FAILED,
                        now_ms(),
                        error={
                            "ErrorType": "InvalidDurableExecutionOutput",
                            "ErrorMessage": f"The handler answered an invalid durable execution status: {status}",
                        },
                    )
            if execution.status == durable.PAUSING:  # it ended before its next checkpoint: paused now
                durable_pause.take_effect(execution, now_ms(), interrupted=False)
            self._save(execution)
            if execution.status == durable.PAUSED:
                self._schedule_next(arn)
            if execution.status != durable.RUNNING:
                return False
            woke = arn in self._wake or bool(execution.changed) or execution.advance(now_ms())
            self._wake.discard(arn)
            if woke:
                self._save(execution)
                return True
        self._schedule_next(arn)
        return False

    def _save(self, execution: Execution) -> None:
        self.store.put(execution)
        if execution.status not in durable.ACTIVE:
            timer = self._timers.pop(execution.arn, None)
            if timer is not None:
                timer.cancel()
            self._ended.notify_all()

    def _schedule_next(self, arn: str) -> None:
        execution = self.store.get(arn)
        if execution is None or execution.status not in durable.ACTIVE:
            return
        due = execution.next_due()
        if due is not None:
            self._schedule(arn, due)
        self._start_chained(execution)

    def _schedule(self, arn: str, due_ms: int) -> None:
        delay = max(0.0, (due_ms - now_ms()) / 1000.0) / self.time_scale
        with self._lock:
            if self._closed:
                return
            old = self._timers.pop(arn, None)
            if old is not None:
                old.cancel()
            timer = threading.Timer(delay, self._due, (arn,))
            timer.daemon = True
            self._timers[arn] = timer
        timer.start()

    def _due(self, arn: str) -> None:
        with self._lock:
            if self._timers.get(arn) is threading.current_thread():
                del self._timers[arn]
            execution = self.store.get(arn)
            if execution is None or execution.status not in durable.ACTIVE:
                return
            moved = execution.advance(self._scaled_now(execution))
            self._save(execution)
            if execution.status not in durable.ACTIVE:
                return
            if not moved or execution.status != durable.RUNNING:  # paused: what is due completes, no invoke
                self._schedule_next(arn)
                return
        self._drive(arn)

    def _scaled_now(self, execution: Execution) -> int:
        """With --time-scale, a timer fires early: what it was set for is due when it fires."""
        if self.time_scale == 1.0:
            return now_ms()
        due = execution.next_due()
        return max(now_ms(), due or 0)

    # ------------------------------------------------------------------ chained invokes
    def _start_chained(self, execution: Execution) -> None:
        for op in execution.operations.values():
            if op["Type"] == "CHAINED_INVOKE" and op["Status"] == "STARTED" and op["Id"] not in execution.chained_sent:
                execution.chained_sent.append(op["Id"])  # sent once (UNCONFIRMED: AWS's delivery guarantee)
                self.store.put(execution)
                started = next(e for e in execution.events if e.get("Id") == op["Id"]
                               and e["EventType"] == "ChainedInvokeStarted")  # fmt: skip
                details = started["ChainedInvokeStartedDetails"]
                try:
                    self._executor.submit(self._chained, execution.arn, execution.key, op["Id"],
                                          details["FunctionName"], details["Input"]["Payload"])  # fmt: skip
                except RuntimeError:
                    return

    def _chained(self, arn: str, key: tuple[str, str, str], op_id: str, function: str, payload: str) -> None:
        result: str | None = None
        error: dict[str, Any] | None = None
        if self.chained_call is None:
            error = {"ErrorType": "ServiceException", "ErrorMessage": "Chained invokes are not served"}
        else:
            try:
                result, error = self.chained_call(key[0], key[1], function, payload.encode())
            except ServiceError as exc:
                result, error = None, {"ErrorType": exc.code, "ErrorMessage": exc.message}
        with self._lock:
            execution = self.store.get(arn)
            if execution is None:
                return
            execution.complete_chained(op_id, now_ms(), result, error)
            self._save(execution)
        self._drive(arn)

    # ------------------------------------------------------------------ the outside world
    def callback(self, callback_id: str, result: str | None, error: dict[str, Any] | None) -> None:
        arn, op_id = durable.parse_callback_id(callback_id)
        with self._lock:
            execution = self.store.get(arn)
            if execution is None:
                raise durable.bad_callback()
            execution.complete_callback(op_id, now_ms(), result, error)
            self._save(execution)
        self._submit(arn)

    def heartbeat(self, callback_id: str) -> None:
        arn, op_id = durable.parse_callback_id(callback_id)
        with self._lock:
            execution = self.store.get(arn)
            if execution is None:
                raise durable.bad_callback()
            execution.heartbeat(op_id, now_ms())
            self._save(execution)
            self._schedule_next(arn)

    def checkpoint(self, arn: str, token: str, updates: list[dict[str, Any]],
                   client_token: str | None = None) -> dict[str, Any]:  # fmt: skip
        with self._lock:
            execution = self.store.get(arn)
            if execution is None:
                raise durable.invalid_token()  # UNCONFIRMED: the model lists no ResourceNotFound here
            ops, next_token = execution.checkpoint(token, updates, now_ms(), client_token)
            if execution.status == durable.PAUSING:  # the pause takes effect at the invocation's next checkpoint
                durable_pause.take_effect(execution, now_ms(), interrupted=True)
                next_token = ""  # UNCONFIRMED: how AWS ends the paused invocation (here: no further checkpoint)
            self._save(execution)
            out: dict[str, Any] = {"NewExecutionState": {"Operations": ops}}
            if next_token:
                out["CheckpointToken"] = next_token
            return out

    def state(self, arn: str, token: str, marker: str | None, max_items: int | None) -> dict[str, Any]:
        execution = self.store.get(arn)
        if execution is None:
            raise durable.invalid_token()  # UNCONFIRMED: the model lists no ResourceNotFound here
        return execution.state_page(token, marker, max_items)

    def stop(self, arn: str, error: dict[str, Any] | None) -> int:
        with self._lock:
            execution = self.store.get(arn)
            if execution is None:
                raise durable.not_found(arn)
            if execution.status not in durable.ACTIVE:  # "Stops a running or paused durable execution"
                # UNCONFIRMED: AWS's answer to stopping an execution that has ended
                raise errors.invalid(f"Durable execution {arn} is not running")
            stamp = now_ms()
            execution.close(durable.STOPPED, stamp, error=error or {})
            self._save(execution)
        return stamp

    def pause(self, arn: str, client_token: str | None, reason: str | None, timeout_paused: bool) -> None:
        with self._lock:
            execution = self._get(arn)
            if durable_pause.pause(execution, now_ms(), client_token, reason, timeout_paused, arn in self._running):
                self._save(execution)
        self._schedule_next(arn)  # the timeout moves while paused: the timer follows

    def resume_execution(self, arn: str, client_token: str | None, reason: str | None) -> None:
        with self._lock:
            execution = self._get(arn)
            status = execution.status
            again = durable_pause.resume(execution, now_ms(), client_token, reason)
            if execution.status == status:  # a repeated request: nothing to do
                return
            self._save(execution)
            again = again or arn in self._wake
            self._wake.discard(arn)
        if again:
            self._submit(arn)
        else:
            self._schedule_next(arn)

    def delete(self, arn: str) -> int:
        with self._lock:
            execution = self._get(arn)
            if execution.status in durable.ACTIVE:
                raise not_terminal(arn, execution.status)
            self.store.delete(arn)
        return now_ms()

    def _get(self, arn: str) -> Execution:
        execution = self.store.get(arn)
        if execution is None:
            raise durable.not_found(arn)
        return execution

    def _end(self, arn: str, status: str, result: str | None, error: dict[str, Any] | None) -> None:
        with self._lock:
            execution = self.store.get(arn)
            if execution is None or execution.status not in durable.ACTIVE:
                return
            execution.close(status, now_ms(), result=result, error=error)
            self._save(execution)

    def resume(self) -> None:
        """At start-up: every running execution is driven again (what is overdue runs now, the rest is
        scheduled; an invocation the stop cut short is made again, as Lambda retries it)."""
        for arn in self.store.running():
            execution = self.store.get(arn)
            if execution is not None and execution.status != durable.RUNNING:
                self._resume_paused(execution)
                continue
            answered = execution is not None and execution.events[-1:] != [] and (
                execution.events[-1]["EventType"] == "InvocationCompleted")
            if answered:
                # The handler had answered (PENDING) and nothing was in flight: it is woken when what it
                # waits on is due, not at once (a restart is no reason for Lambda to invoke it).
                self._schedule(arn, now_ms())
            else:
                self._submit(arn)

    def _resume_paused(self, execution: Execution) -> None:
        """At start-up, a paused execution stays paused: its timers run again; a PAUSING one's
        invocation was cut short by the stop, so it is paused now and invoked again on resume."""
        if execution.status == durable.PAUSING:
            with self._lock:
                durable_pause.take_effect(execution, now_ms(), interrupted=True)
                self._save(execution)
        self._schedule(execution.arn, now_ms())


def not_terminal(arn: str, status: str) -> ServiceError:
    # The model: "The execution must be in a terminal state ... Otherwise, this operation returns a
    # ResourceConflictException." UNCONFIRMED: the message text.
    return errors.conflict(f"Durable execution {arn} cannot be deleted because its status is {status}.")


def _read_answer(outcome: Outcome) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The handler's durable answer ({"Status": ..., "Result"/"Error"}), or the error it died of."""
    if outcome.ok:
        try:
            answer = json.loads(outcome.payload or b"null")
        except ValueError:
            answer = None
        if isinstance(answer, dict) and isinstance(answer.get("Status"), str):
            return answer, None
        # UNCONFIRMED: the error recorded when a durable function answers without a durable status
        return None, {"ErrorType": "InvalidDurableExecutionOutput",
                      "ErrorMessage": "The function did not answer a durable execution status."}  # fmt: skip
    try:
        doc = json.loads(outcome.payload or b"{}")
    except ValueError:
        doc = {}
    doc = doc if isinstance(doc, dict) else {}
    error: dict[str, Any] = {"ErrorType": str(doc.get("errorType") or outcome.error_type or "Unhandled"),
                             "ErrorMessage": str(doc.get("errorMessage") or "")}  # fmt: skip
    if isinstance(doc.get("stackTrace"), list):
        error["StackTrace"] = [str(line) for line in doc["stackTrace"]]
    return None, error


def _error_document(execution: Execution) -> dict[str, Any]:
    """A failed execution, as a synchronous Invoke answers it (Lambda's error document). UNCONFIRMED shape."""
    error = execution.error or {}
    doc: dict[str, Any] = {"errorType": error.get("ErrorType") or execution.status,
                           "errorMessage": error.get("ErrorMessage") or ""}  # fmt: skip
    if error.get("StackTrace"):
        doc["stackTrace"] = error["StackTrace"]
    return doc
