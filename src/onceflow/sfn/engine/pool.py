"""The threads that drive executions: a pool whose seats a long drive gives up.

Up to `size` drives hold a seat at once, so a burst of work does not start a thread per execution.
A drive that runs long (an expression still evaluating, a huge replay) calls `release_seat()` from
its budget check: its seat goes to a new thread, so a few stuck executions can never keep the
others waiting. Threads are daemons (shutdown interrupts their drives first and joins them with a
timeout), and idle ones beyond `size` exit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

log = logging.getLogger(__name__)


class DrivePool:
    def __init__(self, size: int, name: str, idle_timeout: float = 30.0) -> None:
        self.size = max(1, size)
        self.name = name
        self.idle_timeout = idle_timeout
        self._cond = threading.Condition()
        self._tasks: deque[Callable[[], None]] = deque()
        self._seated = 0  # threads that hold a seat: busy on a drive that has not given it up, or starting
        self._idle = 0
        self._threads: set[threading.Thread] = set()
        self._closed = False
        self._local = threading.local()
        self._count = 0

    def submit(self, fn: Callable[[], None]) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            self._tasks.append(fn)
            if self._idle:
                self._cond.notify()
            if len(self._tasks) > self._idle and self._seated < self.size:
                self._spawn()

    def release_seat(self) -> None:
        """The calling drive runs long: let another thread take its seat (once per task)."""
        if not getattr(self._local, "seated", False):
            return
        self._local.seated = False
        with self._cond:
            self._seated -= 1
            if len(self._tasks) > self._idle and self._seated < self.size:
                self._spawn()

    def shutdown(self, timeout: float) -> None:
        with self._cond:
            self._closed = True
            self._tasks.clear()
            self._cond.notify_all()
            threads = list(self._threads)
        deadline = time.monotonic() + timeout
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        stuck = [t.name for t in threads if t.is_alive()]
        if stuck:
            log.warning("%d drive thread(s) still busy at shutdown: %s", len(stuck), ", ".join(stuck))

    def reopen(self) -> None:
        with self._cond:
            self._closed = False

    def threads(self) -> int:
        with self._cond:
            return len(self._threads)

    # ------------------------------------------------------------------ threads
    def _spawn(self) -> None:
        self._seated += 1  # the new thread takes its seat before its first task
        self._count += 1
        t = threading.Thread(target=self._work, name=f"{self.name}-{self._count}", daemon=True)
        self._threads.add(t)
        t.start()

    def _work(self) -> None:
        self._local.seated = True
        try:
            while True:
                with self._cond:
                    if not self._local.seated:  # gave its seat away: take one back, or leave
                        if self._seated >= self.size:
                            return
                        self._seated += 1
                        self._local.seated = True
                    while not self._tasks and not self._closed:
                        self._seated -= 1
                        self._idle += 1
                        woke = self._cond.wait(self.idle_timeout)
                        self._idle -= 1
                        if not woke and not self._tasks and len(self._threads) > self.size:
                            self._local.seated = False
                            return
                        self._seated += 1
                    if self._closed:
                        self._seated -= 1
                        self._local.seated = False
                        return
                    fn = self._tasks.popleft()
                try:
                    fn()
                except BaseException:  # a drive's own errors are handled inside it; keep the thread
                    log.exception("drive task failed")
        finally:
            with self._cond:
                self._threads.discard(threading.current_thread())
