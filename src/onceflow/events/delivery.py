"""The clock and the dispatcher: durable timers for schedules and deliveries, and the threads
that make the deliveries.

One clock thread sleeps until the earliest due time any of its sources holds (rule schedules,
Scheduler's schedules, the outbox), runs what is due, and sleeps again; whoever stores an earlier
due time pokes it. Nothing polls: with nothing due, the thread waits without a timeout. Due times
live in rows, so a restart picks up where the last process stopped (deliveries claimed by a
process that died are released at start and made again: at-least-once, as AWS promises).

Retries follow the target's RetryPolicy (AWS's defaults: 185 attempts, 24 hours), with
exponential backoff and jitter; every delay and age is divided by the server's time scale.
A delivery that is given up goes to the target's DeadLetterConfig queue when it has one, with
the message attributes AWS adds (ERROR_CODE with AWS's values such as NO_PERMISSIONS or NO_RESOURCE,
ERROR_MESSAGE, RULE_ARN, TARGET_ARN, ...).
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from onceflow.events import store
from onceflow.events.targets import DeliveryFailure, deliver, send_to_queue, service_principal
from onceflow.stack import Stack

log = logging.getLogger("onceflow.events")

DEFAULT_RETRIES = 185
DEFAULT_AGE_S = 86400
MAX_BACKOFF_S = 300.0
CLAIM_BATCH = 64


class Source(Protocol):
    def next_due(self) -> float | None: ...
    def run_due(self, now: float) -> None: ...
    # The time scale changed: what is still to wait becomes `factor` times as long.
    def rescale(self, factor: float, now: float) -> None: ...


class Clock:
    """One thread, asleep until its sources' earliest due time or a poke."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sources: list[Source] = []
        self._cond = threading.Condition()
        self._poked = False
        self._stopped = True
        self._thread: threading.Thread | None = None

    def add(self, source: Source) -> None:
        self.sources.append(source)

    def poke(self) -> None:
        with self._cond:
            self._poked = True
            self._cond.notify()

    def rescale(self, old: float, new: float) -> None:
        """The server's time scale went from `old` to `new` (wire/time_scale.py)."""
        now = time.time()
        for source in self.sources:
            source.rescale(old / new, now)
        self.poke()

    def start(self) -> None:
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def _run(self) -> None:
        while True:
            now = time.time()
            try:
                for source in self.sources:
                    source.run_due(now)
                dues = [d for d in (s.next_due() for s in self.sources) if d is not None]
            except Exception:  # a failing source must not stop every timer: log, wait a little, go on
                log.exception("the events clock failed")
                dues = [time.time() + 1.0]
            with self._cond:
                if self._stopped:
                    return
                if not self._poked:
                    timeout = max(0.0, min(dues) - time.time()) if dues else None
                    self._cond.wait(timeout)
                self._poked = False
                if self._stopped:
                    return


class Dispatcher:
    """The outbox as a clock source: claims due deliveries and makes them on a thread pool."""

    def __init__(self, stack: Stack, clock: Clock, *, threads: int = 8) -> None:
        self.stack = stack
        self.clock = clock
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="events-deliver")
        self._busy = threading.Semaphore(threads * 4)  # claims held in memory at most
        # (conn, job, result): called in the transaction that takes the job out of the outbox.
        self.after_delivery: list[Callable[[Any, dict[str, Any], dict[str, Any]], None]] = []

    @property
    def scale(self) -> float:
        return self.stack.settings.time_scale or 1.0

    # --------------------------------------------------------------- the clock's side
    def next_due(self) -> float | None:
        return self.stack.db.read(store.next_due)

    def run_due(self, now: float) -> None:
        due = self.next_due()  # a read first: most wake-ups find nothing, and then take no write lock
        if due is None or due > now:
            return
        while True:
            with self.stack.db.transaction() as conn:
                jobs = store.claim_due(conn, now, CLAIM_BATCH)
            for job_id, job in jobs:
                self._busy.acquire()
                self.pool.submit(self._run, job_id, job)
            if len(jobs) < CLAIM_BATCH:
                return

    def rescale(self, factor: float, now: float) -> None:
        with self.stack.db.transaction() as conn:
            store.rescale(conn, "events_outbox", "due", factor, now)

    def release_all(self) -> None:
        self.stack.db.write(store.release_all)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    # --------------------------------------------------------------- one delivery
    def _run(self, job_id: int, job: dict[str, Any]) -> None:
        try:
            try:
                answer = deliver(self.stack, job)
            except DeliveryFailure as failure:
                self._failed(job_id, job, failure)
            except Exception as exc:  # a bug in a delivery: keep the job, retry it later
                log.exception("event delivery %s failed", job_id)
                self._failed(job_id, job, DeliveryFailure("InternalException", str(exc), True))
            else:
                with self.stack.db.transaction() as conn:
                    store.finish(conn, job_id)
                    self._report(conn, job, {"ok": True, "at": time.time(), "attempts": job.get("attempt", 0) + 1,
                                             "answer": _short(answer)})
        finally:
            self._busy.release()

    def _failed(self, job_id: int, job: dict[str, Any], failure: DeliveryFailure) -> None:
        policy = job["target"].get("RetryPolicy") or {}
        retries = policy.get("MaximumRetryAttempts", DEFAULT_RETRIES)
        max_age = policy.get("MaximumEventAgeInSeconds", DEFAULT_AGE_S) / self.scale
        attempt = job.get("attempt", 0) + 1
        now = time.time()
        delay = min(MAX_BACKOFF_S, 2.0 ** (attempt - 1)) * random.uniform(0.5, 1.0) / self.scale
        exhausted = "MaximumRetryAttempts" if attempt > retries else \
            "MaximumEventAgeInSeconds" if now + delay - job["first"] > max_age else None
        if failure.retriable and exhausted is None:
            with self.stack.db.transaction() as conn:
                store.retry_later(conn, job_id, now + delay, {**job, "attempt": attempt, "error": failure.code})
            self.clock.poke()
            return
        dead = self._dead_letter(job, failure, attempt, exhausted)
        with self.stack.db.transaction() as conn:
            store.finish(conn, job_id)
            self._report(conn, job, {"ok": False, "at": now, "attempts": attempt, "error": failure.code,
                                     "message": failure.message, "deadLettered": dead})
        log.info("event %s to %s given up after %d attempt(s): %s", job["event"].get("id"), job["target"]["Arn"],
                 attempt, failure)

    def _dead_letter(self, job: dict[str, Any], failure: DeliveryFailure, attempts: int,
                     exhausted: str | None) -> bool:
        dlq = (job["target"].get("DeadLetterConfig") or {}).get("Arn")
        if not dlq:
            return False
        attributes = {
            "ERROR_CODE": failure.dead_letter_code, "ERROR_MESSAGE": failure.message[:1024],
            "RETRY_ATTEMPTS": str(attempts - 1), "TARGET_ARN": job["target"]["Arn"],
            "RULE_ARN": job.get("rule_arn", ""),
        }
        if exhausted:
            attributes["EXHAUSTED_RETRY_CONDITION"] = exhausted
        try:
            send_to_queue(self.stack, service_principal(job["account"], job.get("principal_service",
                                                                                "events.amazonaws.com")),
                          dlq, json.dumps(job["event"], separators=(",", ":")),
                          attributes={k: {"DataType": "String", "StringValue": v} for k, v in attributes.items() if v},
                          source_arn=job.get("rule_arn"))
            return True
        except DeliveryFailure as e:
            log.warning("dead-letter queue %s refused event %s: %s", dlq, job["event"].get("id"), e)
            return False

    def _report(self, conn: Any, job: dict[str, Any], result: dict[str, Any]) -> None:
        for hook in self.after_delivery:
            try:
                hook(conn, job, result)
            except Exception:
                log.exception("recording a delivery result failed")


def _short(answer: Any) -> Any:
    if not isinstance(answer, dict):
        return None
    return {k: v for k, v in answer.items() if isinstance(v, str | int | float) and not isinstance(v, bool)}
