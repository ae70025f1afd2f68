"""An engine kept in memory: the same runtime and state code as executions, nothing persisted.

TestState runs one state in it (teststate.py), and the tests run whole definitions through it
(`run_definition`): commits stay in a list, task calls run inline on the caller's thread, task
tokens are never answered (they time out), and a `JumpClock` lets a run go straight to its next
wake-up instead of sleeping.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from onceflow.sfn.engine.clock import SYSTEM, Clock
from onceflow.sfn.engine.effects import UNSET, AwaitToken, Invoke
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.lane import Lane
from onceflow.sfn.engine.runner import Fiber, Runtime
from onceflow.sfn.engine.state import History
from onceflow.stack import Stack


class MemoryEngine:
    """runner.EnginePort with nothing behind it but lists."""

    draining = False
    skip_waits = False
    long_lane: Lane | None = None  # one drive on the caller's thread: no other evaluation to take turns with

    def __init__(self, stack: Stack | None, *, scale: float = 1.0, clock: Clock = SYSTEM,
                 halting: Any = None) -> None:
        self._stack = stack
        self.scale = scale
        self.clock = clock
        self.events: list[Event] = []
        self.final: dict[str, Any] | None = None
        self.timer: float | None = None
        self.closed: tuple[str | None, str | None] | None = None  # (error, cause) when ended from outside
        self._halting = halting  # the real engine, whose shutdown ends a looping expression here too

    @property
    def stack(self) -> Stack:
        assert self._stack is not None, "this in-memory run makes no task calls"
        return self._stack

    @property
    def halting(self) -> bool:
        return bool(getattr(self._halting, "halting", False))

    def release_seat(self) -> None:
        return None

    def commit(self, rt: Runtime, timer: Any, final: bool) -> bool:
        self.events += rt.pending
        if final:
            self.final = rt.final
        elif timer is not UNSET:
            self.timer = timer
        return True

    def submit_invoke(self, rt: Runtime, fib: Fiber, eff: Invoke) -> None:
        try:
            value, exc = eff.call(), None
        except Exception as e:  # delivered to the fiber
            value, exc = None, e
        rt.completions.append((fib, eff, value, exc))

    def poll_token(self, eff: AwaitToken, now: float) -> Any:
        return ("TIMEOUT",)  # nobody can answer a token here

    def heartbeat_due(self, eff: AwaitToken) -> float:
        return self.clock.time()

    def fiber_events(self, arn: str, key: str) -> list[Event]:
        return [e for e in self.events if e.fiber == key or e.fiber.startswith(key + ".")]

    def terminate(self, arn: str, event_type: str, status: str, error: str | None, cause: str | None, *,
                  timed_out_at: float | None = None) -> bool:
        self.closed = (error, cause)
        self.final = {"status": status, "error": error, "cause": cause}
        return True

    def insert_token(self, conn: sqlite3.Connection, token: str, arn: str, ts: float) -> None:
        return None  # nothing persists

    def time_out_token(self, conn: sqlite3.Connection, token: str) -> None:
        return None


class JumpClock:
    """A clock that stands still until told to jump (to the next wake-up)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


@dataclass(frozen=True)
class Run:
    status: str  # SUCCEEDED, FAILED, TIMED_OUT
    output: Any
    error: str | None
    cause: str | None
    events: list[Event]


def run_definition(definition: str, execution_input: Any, row: dict[str, Any], root: Any, *,
                   stack: Stack | None = None, start: float = 0.0) -> Run:
    """Run a whole definition in memory from `start` (epoch seconds) to its end, jumping the
    clock to each wake-up. `row` names the execution as an execution row does (arn, sm_arn, name,
    region, account, role_arn, redrive_count); `root` is the program (states.run_execution)."""
    clock = JumpClock(start)
    engine = MemoryEngine(stack, clock=clock)
    full = {**row, "input": json.dumps(execution_input), "start": start, "definition": definition}
    engine.events.append(Event(1, 0, "ExecutionStarted", start, {"input": full["input"]}, "r"))
    rt = Runtime(engine, full, History(list(engine.events)), root)
    while rt.drive() != "done":
        if engine.timer is None or engine.timer <= clock.now:
            raise RuntimeError("the execution waits for something that never comes")
        clock.now = engine.timer
    final = engine.final or {"status": "FAILED"}
    output = json.loads(final["output"]) if final.get("output") is not None else None
    return Run(final["status"], output, final.get("error"), final.get("cause"), engine.events)
