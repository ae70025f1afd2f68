"""The wake-up thread survives a due time centuries away (a Wait's SecondsPath is user input)."""

from __future__ import annotations

import threading
import time

from onceflow.sfn.engine.scheduler import Scheduler


def test_a_far_future_wake_up_does_not_stop_the_others() -> None:
    woken: list[str] = []
    near_woken = threading.Event()

    def wake(arn: str) -> None:
        woken.append(arn)
        if arn == "near":
            near_woken.set()

    sched = Scheduler(wake)
    sched.start()
    try:
        sched.add("far", time.time() + 1e12)  # ~31,700 years: past what Condition.wait accepts
        time.sleep(0.05)  # let the thread go to sleep on the far one first
        sched.add("near", time.time())
        assert near_woken.wait(10), "the scheduler thread died on the far-future timer"
        assert woken == ["near"]
    finally:
        sched.stop()
