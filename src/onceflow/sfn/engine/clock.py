"""The clock the engine reads: passed in, so that a test can drive an execution through time."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def time(self) -> float: ...  # wall clock, epoch seconds: event timestamps, wake-up times

    def monotonic(self) -> float: ...  # how long an evaluation has run


class SystemClock:
    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


SYSTEM = SystemClock()
