"""Wake-up times: a heap of (due, execution) served by one thread that wakes each execution when
its time comes. The table sfn_timers is their durable copy (the engine writes it with the events
and reads it back at start)."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable

_MAX_SLEEP = 3600.0  # seconds; the thread re-reads the heap at least this often


class Scheduler:
    """Wake-up times in a heap, served by one thread; the table sfn_timers is their durable copy."""

    def __init__(self, wake: Callable[[str], None]) -> None:
        self._wake = wake
        self._heap: list[tuple[float, int, str]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._stopped = False
        self._thread: threading.Thread | None = None

    def add(self, arn: str, due: float) -> None:
        with self._cond:
            heapq.heappush(self._heap, (due, next(self._seq), arn))
            if self._heap[0][2] == arn:
                self._cond.notify()

    def start(self) -> None:
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="sfn-scheduler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def clear(self) -> None:
        with self._cond:
            self._heap.clear()

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                now = time.time()
                due: list[str] = []
                while self._heap and self._heap[0][0] <= now:
                    due.append(heapq.heappop(self._heap)[2])
                if not due:
                    # Capped: a Wait of centuries (a user's SecondsPath) is past what Condition.wait
                    # accepts (OverflowError would end this thread and every timer with it).
                    timeout = min(self._heap[0][0] - now, _MAX_SLEEP) if self._heap else None
                    self._cond.wait(timeout)
                    continue
            for arn in dict.fromkeys(due):
                self._wake(arn)
