"""The lane long evaluations take turns on, handed over in the order they asked for it.

A plain lock is not fair: the thread that releases it and asks again at once usually gets it back
before a waiter wakes, so one runaway expression could keep the others (and the events they have
to record) waiting for tens of seconds. Here each waiting thread keeps its place in the queue
across timed-out attempts, until it gets the lane or gives up (`leave`).
"""

from __future__ import annotations

import threading
import time
from collections import deque


class Lane:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._held = False
        self._queue: deque[int] = deque()  # thread idents, first come first served

    def acquire(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the lane; the caller's place is kept if it times out."""
        me = threading.get_ident()
        end = time.monotonic() + timeout
        with self._cond:
            if me not in self._queue:
                self._queue.append(me)
            while self._held or self._queue[0] != me:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            self._queue.popleft()
            self._held = True
            return True

    def release(self) -> None:
        with self._cond:
            self._held = False
            self._cond.notify_all()

    def leave(self) -> None:
        """The calling thread stops waiting for good (its drive ends): its place goes."""
        me = threading.get_ident()
        with self._cond:
            if me in self._queue:
                self._queue.remove(me)
                self._cond.notify_all()
