"""run_in_order: dependencies first, independent names at once, nothing new after a failure."""

from __future__ import annotations

import threading
import time

from onceflow.cloudformation.parallel import run_in_order


def test_dependencies_come_first_and_independent_names_overlap() -> None:
    log: list[tuple[str, str]] = []
    lock = threading.Lock()
    both = threading.Barrier(2, timeout=10)  # A and B must be running together to pass it

    def make(name: str) -> bool:
        with lock:
            log.append(("start", name))
        if name in ("A", "B"):
            both.wait()
        with lock:
            log.append(("end", name))
        return True

    deps = {"A": set(), "B": set(), "C": {"A", "B"}, "D": {"C", "Excluded"}}
    assert run_in_order(["A", "B", "C", "D"], deps, make) == []
    assert log.index(("start", "C")) > max(log.index(("end", "A")), log.index(("end", "B")))
    assert log.index(("start", "D")) > log.index(("end", "C"))  # a dependency outside the names is no wait


def test_nothing_new_starts_after_a_failure_and_running_ones_end() -> None:
    started: list[str] = []
    release = threading.Event()

    def make(name: str) -> bool:
        started.append(name)
        if name == "Slow":  # ends after Bad has failed (Bad lets it go as it returns)
            release.wait(10)
            time.sleep(0.2)
            return True
        if name == "Bad":
            release.set()
            return False
        return True

    failed = run_in_order(["Slow", "Bad", "After"], {"After": {"Slow"}}, make, workers=2)
    assert failed == ["Bad"] and sorted(started) == ["Bad", "Slow"]


def test_keep_going_runs_what_does_not_wait_for_the_failed_one() -> None:
    ran: list[str] = []

    def make(name: str) -> bool:
        ran.append(name)
        return name != "Bad"

    failed = run_in_order(["Bad", "Other", "AfterBad", "AfterOther"], {"AfterBad": {"Bad"}, "AfterOther": {"Other"}},
                          make, workers=1, keep_going=True)
    assert failed == ["Bad"] and sorted(ran) == ["AfterOther", "Bad", "Other"]
