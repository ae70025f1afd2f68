"""Event invocations: the queue, the retries of a failed event, throttles' requeues, and the
record sent to a destination or dead-letter queue at the end (AsyncQueue, a part of Invoker).
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import dead_letter, destinations
from onceflow.lambda_.admission import Admission
from onceflow.lambda_.async_config import AsyncPolicy, InvokeConfigs
from onceflow.lambda_.invocation_log import InvocationLog
from onceflow.lambda_.runtime.pool import Outcome
from onceflow.lambda_.service import LambdaService, Resolved
from onceflow.ports import Ports

log = logging.getLogger("onceflow.lambda")

_ASYNC_RETRY_DELAYS_S = (60.0, 120.0)


def requeue_wait_s(waits: int, age_s: float, max_age_s: float) -> float:
    """Docs (invocation-async-error-handling): a throttled event (429), or one that met a system error
    (500-series), returns to the queue and is tried again for up to its maximum age (6 hours by
    default), the interval increasing exponentially "from 1 second after the first attempt to a
    maximum of 5 minutes". The last wait ends at the event's maximum age, where it is dropped, not
    up to 5 minutes after it. All in AWS's seconds (the caller scales them)."""
    return max(0.0, min(float(min(2**waits, 300)), max_age_s - age_s))


class AsyncQueue:
    """Invoker's asynchronous side; Invoker sets these attributes and runs the invocations (_run)."""

    service: LambdaService
    ports: Ports
    admission: Admission
    time_scale: float
    async_configs: InvokeConfigs | None
    call: destinations.Call | None
    _executor: ThreadPoolExecutor
    _lock: threading.Lock
    _timers: set[threading.Timer]
    _closed: bool

    def _run(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, caller_key: str | None = None
    ) -> tuple[Outcome, InvocationLog]:
        raise NotImplementedError

    def _run_async(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int = 0,
        queued_at: float | None = None, waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        """An Event invocation. A function error or timeout is retried MaximumRetryAttempts times
        (2 by default), ~1 then ~2 minutes later, with the same request id, while the event is younger
        than MaximumEventAgeInSeconds; the outcome goes to the EventInvokeConfig's destination. It takes
        a concurrency slot as a synchronous call does; throttled (`waits` times so far), it waits in the
        queue and is tried again, which is no retry attempt. It runs the function as it is when it starts
        (recorded: events queued behind a busy slot run the code of an update made meanwhile)."""
        queued_at = queued_at or time.time()
        ref = resolved.ref
        try:
            resolved = self.service.resolve(ref.account, ref.region, ref.name, ref.qualifier, invoking=True)
        except ServiceError:  # deleted meanwhile: the event is dropped
            return
        rules = self._async_rules(resolved)
        if resolved.reserved == 0:  # docs: "Lambda begins sending new events to the configured
            # dead-letter queue or the on-failure event destination, without any retries"
            # The record's condition is AWS's (recorded: "ZeroReservedConcurrency", approximateInvokeCount 0).
            # UNCONFIRMED: the DLQ's ErrorCode / ErrorMessage for them
            self._conclude(resolved, rules, payload, request_id, 0, None, "ZeroReservedConcurrency",
                           throttled=True)  # fmt: skip
            return
        # The event's age on the same clock as the retry delays (--time-scale divides both).
        if (attempt > 0 or waits > 0) and (time.time() - queued_at) * self.time_scale > rules.max_age_s:
            # recorded: the record carries the last attempt's response (`last`, None if it never ran);
            # one that never ran waited on throttles: its dead letter says so as ZeroReservedConcurrency's
            self._conclude(resolved, rules, payload, request_id, attempt, last, "EventAgeExceeded",
                           throttled=last is None)  # fmt: skip
            return
        age_s = (time.time() - queued_at) * self.time_scale
        try:
            slot = self.admission.admit(resolved)
        except ServiceError:  # throttled: back to the queue (admission.py)
            wait = requeue_wait_s(waits, age_s, rules.max_age_s)
            self._later(wait, resolved, payload, request_id, context, attempt, queued_at, waits + 1, last)
            return
        started = time.time()
        try:
            outcome, _ = self._run(resolved, payload, request_id, context)
        except Exception:  # a system error (onceflow could not run it): back to the queue, as a throttle
            if self._closed:
                return
            if waits == 0:  # the first one is logged; the retries of the same event are not
                log.exception("asynchronous invocation %s failed; it is tried again", request_id)
            wait = requeue_wait_s(waits, age_s, rules.max_age_s)
            self._later(wait, resolved, payload, request_id, context, attempt, queued_at, waits + 1, last)
            return
        finally:
            self.admission.leave(resolved, slot)
        # The run's own time counts as it ran, not scaled like the waits: shift the event's start so
        # that its age grows by the run's real duration (a cold start is not minutes at --time-scale 60).
        queued_at += (time.time() - started) * (1 - 1 / self.time_scale)
        if outcome.ok:
            self._conclude(resolved, rules, payload, request_id, attempt + 1, outcome, "Success")
            return
        if attempt >= min(rules.retries, len(_ASYNC_RETRY_DELAYS_S)):
            self._conclude(resolved, rules, payload, request_id, attempt + 1, outcome, "RetriesExhausted")
            return
        delay = _ASYNC_RETRY_DELAYS_S[attempt]
        self._later(delay, resolved, payload, request_id, context, attempt + 1, queued_at, 0, outcome)

    def _later(
        self, delay_s: float, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int,
        queued_at: float, waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        """The event tried again in `delay_s` (of AWS's time: --time-scale divides it)."""
        with self._lock:
            if self._closed:
                return
            args = (resolved, payload, request_id, context, attempt, queued_at, waits, last)
            timer = threading.Timer(delay_s / self.time_scale, self._retry_async, args)
            timer.daemon = True
            self._timers.add(timer)
        timer.start()

    def _retry_async(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int, queued_at: float,
        waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        with self._lock:
            self._timers = {t for t in self._timers if t.is_alive() and t is not threading.current_thread()}
            if self._closed:
                return
        try:
            self._executor.submit(
                self._run_async, resolved, payload, request_id, context, attempt, queued_at, waits, last
            )
        except RuntimeError:  # shut down meanwhile
            pass

    def _async_rules(self, resolved: Resolved) -> AsyncPolicy:
        return self.async_configs.policy_for(resolved.ref) if self.async_configs is not None else AsyncPolicy()

    def _conclude(
        self, resolved: Resolved, rules: AsyncPolicy, payload: bytes, request_id: str, attempts: int,
        outcome: Outcome | None, condition: str, throttled: bool = False,
    ) -> None:  # fmt: skip
        """Send the invocation record to the destination for this outcome, if there is one, and a
        failed event to the dead-letter queue, if there is one (both when both are configured)."""
        success = condition == "Success"
        dlq = dead_letter.target_of(resolved.config.get("DeadLetterConfig"))
        if not success and dlq is not None:
            message = dead_letter.error_message(outcome.payload) if outcome is not None else None
            status = 429 if throttled else 200
            dead_letter.send(self.ports, self.service.role_checks, resolved.config["Role"], dlq, payload,
                             request_id, "Rate Exceeded." if throttled else message, status,
                             destinations.role_principal(resolved.config["Role"], resolved.ref.name))  # fmt: skip
        destination = rules.on_success if success else rules.on_failure
        if destination is None or self.call is None:
            return
        ref = resolved.ref
        doc = destinations.record(
            request_id=request_id, function_arn=ref.arn(ref.qualifier or "$LATEST"), condition=condition,
            attempts=attempts, payload=payload, executed_version=resolved.executed_version if outcome else None,
            ok=bool(outcome and outcome.ok), response=outcome.payload if outcome else None,
        )  # fmt: skip
        principal = destinations.role_principal(resolved.config["Role"], ref.name)
        destinations.deliver(self.call, principal, destination, doc, success, self._queue_url)

    def _queue_url(self, account: str, name: str) -> str:
        return str(self.ports.queues().queues.url_of(account, name))
