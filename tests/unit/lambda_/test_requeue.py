"""A throttled (or system-failed) Event invocation's wait before it is tried again (invoke.py), as the
Lambda guide's "How Lambda handles errors and retries with asynchronous invocation" gives it."""

from __future__ import annotations

from onceflow.lambda_.invoke import requeue_wait_s

SIX_HOURS = 6 * 3600.0


def test_waits_grow_exponentially_from_one_second_to_five_minutes() -> None:
    waits = [requeue_wait_s(n, 0.0, SIX_HOURS) for n in range(12)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 300.0, 300.0, 300.0]


def test_the_last_wait_ends_at_the_events_maximum_age() -> None:
    assert requeue_wait_s(6, 50.0, 60.0) == 10.0  # not 64 s: the event is dropped at 60 s
    assert requeue_wait_s(9, SIX_HOURS - 30.0, SIX_HOURS) == 30.0
    assert requeue_wait_s(3, 61.0, 60.0) == 0.0
