"""The long evaluations' lane is handed over in arrival order, and a waiter that leaves frees its place."""

from __future__ import annotations

import threading

from onceflow.sfn.engine.lane import Lane


def test_a_releaser_asking_again_queues_behind_the_waiter() -> None:
    lane = Lane()
    assert lane.acquire(timeout=1)
    got: list[str] = []
    queued = threading.Event()

    def waiter() -> None:
        queued.set()
        while not lane.acquire(timeout=0.01):  # timing out keeps its place
            pass
        got.append("waiter")
        lane.release()

    t = threading.Thread(target=waiter)
    t.start()
    queued.wait()
    while not lane._queue:  # the waiter has taken its ticket
        pass
    lane.release()
    assert lane.acquire(timeout=5)  # asked again at once: only after the waiter had its turn
    got.append("releaser")
    lane.release()
    t.join(5)
    assert got == ["waiter", "releaser"]


def test_a_waiter_that_leaves_does_not_block_the_next() -> None:
    lane = Lane()
    assert lane.acquire(timeout=1)
    left = threading.Event()

    def quitter() -> None:
        assert not lane.acquire(timeout=0.01)
        lane.leave()
        left.set()

    t = threading.Thread(target=quitter)
    t.start()
    left.wait(5)
    t.join(5)
    lane.release()
    assert lane.acquire(timeout=1)  # the departed waiter's place is gone
