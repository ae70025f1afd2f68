"""Evaluation budgets and the drive pool, without a server: a budget ends a JSONata loop and an
intrinsic call from outside (its Interrupted is never turned into a language error), recursion is
JSONata's stack overflow, and a drive that gives up its seat lets queued work run."""

from __future__ import annotations

import threading
import time

import pytest

from onceflow.sfn.asl.budget import Budget, Interrupted, installed
from onceflow.sfn.asl.check import MAX_NESTING_DEPTH, nesting_depth, validate_definition
from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic
from onceflow.sfn.asl.jsonata import evaluate_jsonata
from onceflow.sfn.engine.pool import DrivePool

LOOP = "{% ($f := function($n){ $f($n+1) }; $f(0)) %}"


class StopAfter(Budget):
    """Interrupts at its `limit`-th check."""

    STRIDE = 16

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.checks, self.limit = 0, limit

    def check(self) -> None:
        self.checks += 1
        if self.checks >= self.limit:
            raise Interrupted("stopped")


def test_a_budget_ends_a_jsonata_loop_with_interrupted() -> None:
    budget = StopAfter(50)
    with installed(budget), pytest.raises(Interrupted) as caught:
        evaluate_jsonata(LOOP, {"input": {}})
    assert caught.value.reason == "stopped" and budget.checks == 50


def test_without_a_budget_nothing_is_checked_and_nested_budgets_come_back() -> None:
    outer, inner = StopAfter(10**9), StopAfter(10**9)
    with installed(outer):
        with installed(inner):
            assert evaluate_jsonata("{% $sum([1, 2, 3]) %}", {"input": {}}) == 6
        assert evaluate_jsonata("{% $count([1, 2]) %}", {"input": {}}) == 2
    assert evaluate_jsonata("{% 1 + 1 %}", {"input": {}}) == 2


def test_intrinsic_calls_check_in() -> None:
    budget = StopAfter(1)
    budget.STRIDE = 1
    with installed(budget), pytest.raises(Interrupted):
        evaluate_intrinsic("States.ArrayLength(States.Array(1, 2))", {}, {})


def test_infinite_recursion_is_jsonatas_stack_overflow() -> None:
    with pytest.raises(StateDataError) as caught:
        evaluate_jsonata("{% ($f := function($n){ 1 + $f($n+1) }; $f(0)) %}", {"input": {}})
    assert caught.value.error == "States.QueryEvaluationError"
    assert "threw an error during evaluation. D1011: Stack overflow." in caught.value.cause


def test_a_definition_nested_past_jacksons_limit_is_invalid_json() -> None:
    text = "[" * (MAX_NESTING_DEPTH + 1) + "]" * (MAX_NESTING_DEPTH + 1)
    assert nesting_depth(text) == MAX_NESTING_DEPTH + 1 and nesting_depth('{"a": "[[[{{"}') == 1
    (diag,) = validate_definition(text)
    assert diag.code == "INVALID_JSON_DESCRIPTION"
    assert diag.message.startswith("Document nesting depth (1001) exceeds the maximum allowed (1000")


def test_a_drive_that_gives_up_its_seat_lets_queued_work_run() -> None:
    pool = DrivePool(1, "t")
    release, ran = threading.Event(), threading.Event()

    def long() -> None:
        pool.release_seat()
        release.wait(10)

    try:
        pool.submit(long)
        pool.submit(ran.set)
        assert ran.wait(10)  # the only seat was given up: a second thread ran it
    finally:
        release.set()
        pool.shutdown(5)


def test_a_drive_that_keeps_its_seat_holds_up_a_pool_of_one() -> None:
    pool = DrivePool(1, "t")
    release, ran = threading.Event(), threading.Event()
    try:
        pool.submit(lambda: release.wait(10))
        pool.submit(ran.set)
        time.sleep(0.2)
        assert not ran.is_set()
        release.set()
        assert ran.wait(10)
    finally:
        release.set()
        pool.shutdown(5)
