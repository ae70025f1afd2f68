"""The moment after UpdateFunctionCode with Publish (settling.py), on a clock the test moves."""

from __future__ import annotations

from onceflow.lambda_.settling import FIRST_READ_S, SETTLE_S, Settling

KEY = ("000000000000", "us-east-1", "fn")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_shown_while_it_lasts_then_settled() -> None:
    clock = Clock()
    settling = Settling(clock)
    settling.start(KEY, "1", "create", "rev-a")
    assert settling.shown(KEY, "1") == ("create", "rev-a")
    assert settling.shown(KEY, "1") == ("create", "rev-a")  # still within SETTLE_S
    assert settling.shown(KEY, "2") is None and settling.shown(KEY, "$LATEST") is None
    clock.now += SETTLE_S
    assert settling.shown(KEY, "1") is None


def test_the_first_read_sees_it_even_when_late_but_not_after_first_read_s() -> None:
    clock = Clock()
    settling = Settling(clock)
    settling.start(KEY, "1", "create", "rev-a")
    settling.start(KEY, "2", "create", "rev-b")
    clock.now += SETTLE_S * 2  # a slow client: its first read still sees the moment, once
    assert settling.shown(KEY, "1") == ("create", "rev-a")
    assert settling.shown(KEY, "1") is None
    clock.now += FIRST_READ_S
    assert settling.shown(KEY, "2") is None


def test_forget_settles_one_qualifier_or_the_whole_function() -> None:
    settling = Settling(Clock())
    settling.start(KEY, "1", "create", "rev-a")
    settling.start(KEY, "$LATEST", "update", "rev-b")
    settling.forget(KEY, "$LATEST")
    assert settling.shown(KEY, "$LATEST") is None and settling.shown(KEY, "1") == ("create", "rev-a")
    settling.forget(KEY)
    assert settling.shown(KEY, "1") is None
