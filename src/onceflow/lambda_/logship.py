"""Shipping invocations' log lines to CloudWatch Logs off the invoke path.

Lambda delivers logs asynchronously too. Writing them inline would put a durable commit (an
fsync with a data folder) into every Invoke; instead one thread drains a queue and writes all
pending batches in one transaction, so concurrent invocations share a commit. `flush()` waits
until everything queued so far is written (shutdown, and callers that must read their logs).

That commit does not wait for its own fsync (`deferred`): nobody is told the lines are stored, so
being in the WAL is enough (a killed server leaves them in the file, readers see them at once),
and the next durable commit of anyone, or the checkpoint at close, syncs them. A lone invocation
otherwise paid an fsync of its own for its START/END/REPORT lines, on the disk its handler's
writes and the next task's commits wait for.

The queue is bounded in bytes: a handler printing faster than the database writes waits (its
worker blocks on its socket, as a process writing to a full pipe does) instead of growing the
server. A batch that cannot be queued within a minute is dropped, with a warning.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

log = logging.getLogger("onceflow.lambda")

Batch = tuple[str, str, str, str, list[tuple[int, str]]]  # account, region, group, stream, events

MAX_PENDING_BYTES = 8 << 20  # log text queued for writing, all invocations together
_WAIT_S = 60.0
_EVENT_OVERHEAD = 80


class LogShipper:
    def __init__(self, logs: Callable[[], Any], transaction: Callable[[], AbstractContextManager[Any]],
                 deferred: Callable[[], AbstractContextManager[Any]] | None = None) -> None:
        self._logs = logs  # -> the Logs service or None (looked up late: setup order, tests without Logs)
        self._transaction = transaction
        self._deferred = deferred or contextlib.nullcontext  # commits inside return before their fsync
        self._queue: queue.Queue[Batch | threading.Event | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._room = threading.Condition()
        self._pending = 0

    def ship(self, account: str, region: str, group: str, stream: str, events: list[tuple[int, str]]) -> None:
        self._ensure_thread()
        size = _size(events)
        with self._room:
            # One batch larger than the bound still goes, alone: never wait for room that cannot come.
            if not self._room.wait_for(lambda: self._pending == 0 or self._pending + size <= MAX_PENDING_BYTES,
                                       _WAIT_S):  # fmt: skip
                log.warning("dropped %d Lambda log lines for %s: the log writer is behind", len(events), stream)
                return
            self._pending += size
        self._queue.put((account, region, group, stream, events))

    def flush(self, timeout: float = 10.0) -> None:
        if self._thread is None:
            return
        done = threading.Event()
        self._queue.put(done)
        done.wait(timeout)

    def close(self) -> None:
        if self._thread is not None:
            self.flush()
            self._queue.put(None)
            self._thread.join(10)

    def _ensure_thread(self) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="lambda-logs", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while True:
            items = [self._queue.get()]
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            batches = [i for i in items if isinstance(i, tuple)]
            if batches:
                self._write(batches)
                with self._room:
                    self._pending -= sum(_size(b[4]) for b in batches)
                    self._room.notify_all()
            for item in items:
                if isinstance(item, threading.Event):
                    item.set()
            if any(i is None for i in items):
                return

    def _write(self, batches: list[Batch]) -> None:
        logs = self._logs()
        if logs is None:
            return
        try:
            with self._deferred(), self._transaction():  # one commit for every pending invocation
                for account, region, group, stream, events in batches:
                    logs.append(account, region, group, stream, events)
        except Exception:  # losing log lines must not take the server down
            log.exception("could not write %d batches of Lambda log lines", len(batches))


def _size(events: list[tuple[int, str]]) -> int:
    return sum(len(msg) + _EVENT_OVERHEAD for _, msg in events)
