"""The runtime without a server: an execution rebuilt from its history (after parking or a crash)
goes on exactly as the one that never stopped, and a task whose result was never recorded fails
with Lambda.ServiceException instead of running twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from onceflow.sfn.engine.events import Event, detail_key
from onceflow.sfn.engine.runner import UNSET, Runtime
from onceflow.sfn.engine.state import History, fold
from onceflow.sfn.engine.states import run_execution


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    monotonic = time


class FakeEngine:
    """What a Runtime needs from the engine (runner.EnginePort), recording instead of writing SQLite."""

    scale = 1.0
    stack = None
    draining = False
    halting = False
    skip_waits = False
    long_lane = None

    def release_seat(self) -> None:
        return None

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.events: list[Event] = []
        self.final: dict[str, Any] | None = None
        self.timer: float | None = None
        self.invocations: list[Any] = []
        self.dispatched: set[int] = set()  # the engine's durable hand-over marks

    def commit(self, rt: Runtime, timer: Any, final: bool) -> bool:
        self.events += rt.pending
        if final:
            self.final = rt.final
        elif timer is not UNSET:
            self.timer = timer
        return True

    def submit_invoke(self, rt: Runtime, fib: Any, eff: Any) -> None:
        self.invocations.append((rt, fib, eff))

    def poll_token(self, eff: Any, now: float) -> Any:
        return UNSET

    def fiber_events(self, arn: str, key: str) -> list[Event]:
        return [e for e in self.events if e.fiber == key or e.fiber.startswith(key + ".")]


@pytest.fixture
def clock() -> Clock:
    return Clock(1_000_000.0)  # handed to the runtime through FakeEngine: the engine's clock is passed in


def start(engine: FakeEngine, definition: dict[str, Any], payload: Any, clock: Clock) -> dict[str, Any]:
    row = {
        "arn": "arn:aws:states:us-east-1:000000000000:execution:sm:ex",
        "account": "000000000000",
        "sm_arn": "arn:aws:states:us-east-1:000000000000:stateMachine:sm",
        "region": "us-east-1",
        "name": "ex",
        "input": json.dumps(payload),
        "start": clock.now,
        "role_arn": "arn:aws:iam::000000000000:role/r",
        "redrive_count": 0,
        "definition": json.dumps(definition),
    }
    engine.events.append(Event(1, 0, "ExecutionStarted", clock.now, {"input": row["input"]}, "r"))
    return row


def runtime(engine: FakeEngine, row: dict[str, Any]) -> Runtime:
    history = History(list(engine.events), dispatched=set(engine.dispatched))
    return Runtime(engine, row, history, run_execution)  # type: ignore[arg-type]  # a duck-typed fake port


def shape(events: list[Event]) -> list[tuple[int, int, str]]:
    return [(e.id, e.prev, e.type) for e in events]


WAITS = {
    "StartAt": "Par",
    "States": {
        "Par": {
            "Type": "Parallel",
            "Next": "M",
            "Branches": [
                {"StartAt": "W1", "States": {"W1": {"Type": "Wait", "Seconds": 10, "End": True}}},
                {"StartAt": "W2", "States": {"W2": {"Type": "Wait", "Seconds": 20, "End": True}}},
            ],
        },
        "M": {
            "Type": "Map",
            "ItemsPath": "$[0]",
            "Next": "C",
            "ItemProcessor": {"StartAt": "W", "States": {"W": {"Type": "Wait", "SecondsPath": "$", "End": True}}},
        },
        "C": {
            "Type": "Choice",
            "Choices": [{"Variable": "$[0]", "NumericEquals": 30, "Next": "Done"}],
            "Default": "Done",
        },
        "Done": {"Type": "Pass", "End": True},
    },
}


def run_to_end(engine: FakeEngine, row: dict[str, Any], clock: Clock, reload: bool) -> None:
    rt = runtime(engine, row)
    while rt.drive() != "done":
        assert engine.timer is not None and engine.timer > clock.now
        clock.now = engine.timer
        if reload:  # park: drop the runtime, rebuild it from the history at the wake-up
            rt = runtime(engine, row)


def test_reloading_at_every_wake_up_gives_the_same_history(clock: Clock) -> None:
    kept, reloaded = FakeEngine(clock), FakeEngine(clock)
    run_to_end(kept, start(kept, WAITS, [30, 5, 15], clock), clock, reload=False)
    clock.now = 1_000_000.0
    run_to_end(reloaded, start(reloaded, WAITS, [30, 5, 15], clock), clock, reload=True)
    assert shape(reloaded.events) == shape(kept.events)
    assert [e.details for e in reloaded.events] == [e.details for e in kept.events]
    assert kept.final == reloaded.final == {"status": "SUCCEEDED", "output": "[30,5,15]"}
    summary = fold(reloaded.events)
    assert (summary.status, summary.output, summary.last_id) == ("SUCCEEDED", "[30,5,15]", len(reloaded.events))


def test_every_event_has_its_details_member() -> None:
    assert detail_key("TaskStateEntered") == "stateEnteredEventDetails"
    assert detail_key("MapIterationSucceeded") == "mapIterationSucceededEventDetails"
    assert detail_key("LambdaFunctionScheduled") == "lambdaFunctionScheduledEventDetails"
    assert detail_key("MapStateSucceeded") is None and detail_key("ParallelStateStarted") is None


TASK = {
    "StartAt": "T",
    "States": {
        "T": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "f", "Payload.$": "$"},
            "Retry": [{"ErrorEquals": ["Lambda.ServiceException"], "IntervalSeconds": 2, "MaxAttempts": 1}],
            "End": True,
        }
    },
}


def test_a_task_started_before_a_crash_fails_with_service_exception_then_retries(clock: Clock) -> None:
    engine = FakeEngine(clock)
    row = start(engine, TASK, {"a": 1}, clock)
    assert runtime(engine, row).drive() == "inflight"
    assert [e.type for e in engine.events][-2:] == ["TaskScheduled", "TaskStarted"]  # durable before the call
    _, _, eff = engine.invocations[-1]
    assert eff.task_id == engine.events[-1].id
    engine.dispatched.add(eff.task_id)  # the call reached its worker
    # crash: the call's result is lost with the process; restart from the history
    engine.invocations.clear()
    rt = runtime(engine, row)
    assert rt.drive() == "parked"  # TaskFailed recorded, the retrier's backoff is a stored wake-up time
    failed = engine.events[-1]
    assert failed.type == "TaskFailed" and failed.details is not None
    assert failed.details["error"] == "Lambda.ServiceException"
    assert "outcome of the call is unknown" in failed.details["cause"]
    assert engine.timer == pytest.approx(failed.ts + 2)
    assert not engine.invocations  # nothing was invoked again by the replay itself
    clock.now = engine.timer
    rt = runtime(engine, row)
    assert rt.drive() == "inflight"  # the retry: a second attempt, as the Retry says
    _, fib, eff = engine.invocations[-1]
    rt.completions.append((fib, eff, {"StatusCode": 200, "Payload": 1}, None))
    assert rt.drive() == "done"
    types = [e.type for e in engine.events]
    assert types.count("TaskScheduled") == 2 and types[-1] == "ExecutionSucceeded"
    assert [e.id for e in engine.events] == list(range(1, len(engine.events) + 1))


def test_a_call_never_handed_over_before_a_crash_is_made_after_the_restart(clock: Clock) -> None:
    engine = FakeEngine(clock)
    row = start(engine, TASK, {"a": 1}, clock)
    assert runtime(engine, row).drive() == "inflight"
    started = engine.events[-1]
    engine.invocations.clear()  # crash while the call waited for a worker: no hand-over mark
    rt = runtime(engine, row)
    assert rt.drive() == "inflight"  # the same call, made now
    _, fib, eff = engine.invocations[-1]
    assert (eff.task_id, eff.mark) == (started.id, None)  # its events are on disk already
    rt.completions.append((fib, eff, {"StatusCode": 200, "Payload": 1}, None))
    assert rt.drive() == "done"
    types = [e.type for e in engine.events]
    assert types == ["ExecutionStarted", "TaskStateEntered", "TaskScheduled", "TaskStarted", "TaskSucceeded",
                     "TaskStateExited", "ExecutionSucceeded"]  # as if nothing had happened
    assert [e.id for e in engine.events] == list(range(1, len(engine.events) + 1))


def test_a_call_not_started_at_shutdown_is_scheduled_again_after_restart(clock: Clock) -> None:
    engine = FakeEngine(clock)
    row = start(engine, {"StartAt": "P", "States": {"P": {"Type": "Pass", "Next": "T"}, "T": TASK["States"]["T"]}},
                {"a": 1}, clock)
    engine.draining = True
    assert runtime(engine, row).drive() == "parked"
    assert [e.type for e in engine.events] == ["ExecutionStarted", "PassStateEntered", "PassStateExited",
                                               "TaskStateEntered"]  # no TaskScheduled: the call never started
    assert not engine.invocations
    engine.draining = False
    assert runtime(engine, row).drive() == "inflight"
    assert [e.type for e in engine.events][-2:] == ["TaskScheduled", "TaskStarted"]
    assert [e.id for e in engine.events] == list(range(1, len(engine.events) + 1))
