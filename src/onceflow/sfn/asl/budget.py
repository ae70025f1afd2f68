"""Evaluation budgets: expressions check in while they evaluate, so that a runaway one can be ended
from outside (the execution's TimeoutSeconds, StopExecution, a shutdown) without killing its thread.

The engine installs a Budget on the thread that drives an execution; JSONata calls `tick()` on
every node it evaluates, intrinsic functions on every call. Without a budget (static checks, unit
tests) nothing is checked. `Interrupted` is a BaseException so that no `except Exception` in the
language code (or in jsonata-python) can swallow it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Interrupted(BaseException):
    """An evaluation ended from outside; `reason` says why (timeout, stopped, shutdown, cancelled)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Budget:
    """What an evaluation checks in with. `check()` raises Interrupted when the work must end; it
    runs every STRIDE ticks so that a tick stays a counter increment."""

    STRIDE = 256

    def __init__(self) -> None:
        self._ticks = 0

    def tick(self, *_: object) -> None:
        self._ticks += 1
        if self._ticks >= self.STRIDE:
            self._ticks = 0
            self.check()

    def check(self) -> None:  # pragma: no cover - overridden
        return None


_local = threading.local()


def current() -> Budget | None:
    return getattr(_local, "budget", None)


@contextmanager
def installed(budget: Budget | None) -> Iterator[None]:
    """Make `budget` the one this thread's evaluations check (nests: the outer one comes back)."""
    outer = current()
    _local.budget = budget
    try:
        yield
    finally:
        _local.budget = outer


def checkpoint() -> None:
    """One unit of work (an intrinsic call): checks in with the thread's budget, if any."""
    budget = getattr(_local, "budget", None)
    if budget is not None:
        budget.tick()
