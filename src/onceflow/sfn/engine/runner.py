"""The runtime of one execution: fibers that replay the history and then go on live.

Each program (the state machine, a Parallel branch, a Map iteration) runs as a fiber: a generator
that appends events through `Runtime.emit` and yields an effect when it must wait (a Sleep until a
stored wake-up time, an Invoke of a task integration, a task token, its children). `drive()` runs
every fiber that can move, then writes what they appended in one transaction: before an Invoke
starts (so TaskScheduled/TaskStarted are durable before the effect) and when nothing can move.

When no invocation is in flight the runtime is dropped; the next wake-up (a timer, a task token,
a restart) rebuilds it from the history: `emit` hands back recorded events while a fiber still has
some, so replaying a fiber re-walks the same states without repeating effects.

A drive runs under a budget (`drive_budget.DriveBudget`) that every expression checks in with: the execution's
TimeoutSeconds, StopExecution and a shutdown end even an evaluation that never returns. An
evaluation that runs long gives up its pool seat and, now and then, lets the other fibers' due
timers and finished calls through (`service`), so a task's TimeoutSeconds or HeartbeatSeconds
fires while another branch is still evaluating.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from onceflow.sfn.asl.budget import Interrupted, installed
from onceflow.sfn.asl.load import load
from onceflow.sfn.asl.nodes import Machine
from onceflow.sfn.engine.clock import Clock, SystemClock
from onceflow.sfn.engine.drive_budget import DriveBudget
from onceflow.sfn.engine.effects import (
    UNSET,
    AwaitToken,
    Fx,
    Invoke,
    InvokeTimeout,
    Mark,
    ReplayMismatch,
    Sleep,
    Spawn,
    WaitAny,
)
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.lane import Lane
from onceflow.sfn.engine.state import History
from onceflow.sfn.mocks import MockCase
from onceflow.stack import Stack

log = logging.getLogger(__name__)


class EnginePort(Protocol):
    """What a Runtime needs from whoever drives it: the engine (engine.py), TestState's in-memory
    one (memory.py) and the tests' fakes implement it."""

    @property
    def clock(self) -> Clock: ...

    @property
    def scale(self) -> float: ...  # time scale: nominal seconds per wall-clock second

    @property
    def skip_waits(self) -> bool: ...  # Waits and Retry intervals end at once

    @property
    def draining(self) -> bool: ...  # shutting down: no new call starts; long evaluations end

    @property
    def halting(self) -> bool: ...  # past the grace period: every evaluation ends

    @property
    def long_lane(self) -> Lane | None: ...  # long evaluations take turns on it (None: nobody to wait for)

    @property
    def stack(self) -> Stack: ...  # what task calls are made against

    def release_seat(self) -> None: ...

    def commit(self, rt: Runtime, timer: Any, final: bool) -> bool: ...

    def submit_invoke(self, rt: Runtime, fib: Fiber, eff: Invoke) -> None: ...

    def poll_token(self, eff: AwaitToken, now: float) -> Any: ...

    def heartbeat_due(self, eff: AwaitToken) -> float: ...

    def fiber_events(self, arn: str, key: str) -> list[Event]: ...

    def terminate(self, arn: str, event_type: str, status: str, error: str | None, cause: str | None, *,
                  timed_out_at: float | None = None) -> bool: ...

    def insert_token(self, conn: sqlite3.Connection, token: str, arn: str, ts: float) -> None: ...

    def time_out_token(self, conn: sqlite3.Connection, token: str) -> None: ...


class Fiber:
    __slots__ = (
        "blocked",
        "cancelled",
        "children",
        "done",
        "error",
        "factory",
        "gen",
        "key",
        "parent",
        "result",
        "spawned",
        "waiter",
    )

    def __init__(self, key: str, gen: Fx, parent: Fiber | None,
                 factory: Callable[[str], Fx] | None = None) -> None:
        self.key = key
        self.gen = gen
        self.factory = factory  # rebuilds the generator (a preempted fiber replays its events)
        self.parent = parent
        self.done = False
        self.result: Any = None
        self.error: BaseException | None = None
        self.blocked: Any = None
        self.spawned = 0
        self.waiter: Fiber | None = None
        self.children: list[Fiber] = []
        self.cancelled = False


_UNSET: Any = UNSET
EXPRESS_LIMIT_S = 300  # an Express execution runs at most five minutes; past them it times out [AWS]


def _field(row: Any, name: str) -> Any:
    return row[name] if name in row.keys() else None  # sqlite3.Row and dict alike


class Runtime:
    def __init__(self, engine: EnginePort, row: Any, history: History, root: Callable[[Runtime], Fx]) -> None:
        self.engine = engine
        self.clock = engine.clock
        # Event timestamps: time.time itself for the system clock (a Python frame less per event).
        self._now: Callable[[], float] = time.time if type(self.clock) is SystemClock else self.clock.time
        self.arn: str = row["arn"]
        self.row = row
        self.recorded = history.by_fiber
        self.next_id = history.last_id + 1
        self.next_hidden_id = history.first_hidden_id - 1
        self.last = 0
        self.pending: list[Event] = []
        self.writes: list[Callable[[sqlite3.Connection], None]] = []
        self.ready: deque[tuple[Fiber, Any, BaseException | None]] = deque()
        self.blocked: set[Fiber] = set()
        self.invoking: set[Fiber] = set()
        self.completions: deque[tuple[Fiber, Any, Any, BaseException | None]] = deque()
        self.root = Fiber("r", root(self), None)
        self.started = False
        self.finished = False
        self.final: dict[str, Any] | None = None
        self.timer_written: float | None = _UNSET
        self.first_live_id = self.next_id
        self.resume_pointer = history.resume_pointer
        self.last_ts = row["start"]
        self.region: str = row["region"]
        self.scale: float = engine.scale
        self.machine: Machine = load(row["definition"])
        self.exec_input: Any = json.loads(row["input"])
        self.context_base: tuple[Any, ...] | None = None  # the context object's fixed part (states/common.py)
        self.context_given: dict[str, Any] | None = None  # TestState's `context`: the whole of $$
        self.context_adds_token = False  # TestState's own context (none given): a task token joins it
        timeout = self.machine.timeout_seconds
        if timeout is None and _field(row, "type") == "EXPRESS":
            timeout = EXPRESS_LIMIT_S
        self.deadline: float | None = row["start"] + timeout / self.scale if isinstance(timeout, int) else None
        self.dispatched: set[int] = history.dispatched  # task calls handed to a worker or service
        self.stopped = False  # set from outside (StopExecution, another closing path)
        # Built by StartExecution (Engine.begin) and since then no timer, token or hand-over mark
        # written: the closing commit has none to remove.
        self.clean = False
        self.executing: Fiber | None = None  # the fiber whose generator runs right now
        self._on_stack: list[Fiber] = []  # every fiber whose generator is running (service nests them)
        self._unstarted: list[Fiber] = []  # spawned siblings not started yet
        self._advancing: list[Fiber] = []  # fibers whose _advance is on the stack (a Spawn nests them)
        self._restarted: set[str] = set()  # preempted fibers replaying: their events move no pointer
        self.servicing = False
        self.step_started = 0.0  # when the executing fiber's generator was last resumed (monotonic)
        self.budget = DriveBudget(self)
        # A mocked test case (sfn/mocks.py) and its invocation numbers per state, keyed by
        # (fiber, entered id, attempt) so a replayed attempt gets the number it had.
        case = _field(row, "mock_case")
        self.mock_case: MockCase | None = MockCase.from_json(case) if case else None
        self.mock_calls: dict[str, dict[tuple[str, int, int], int]] = {}

    # ------------------------------------------------------------------ helpers for states
    def scaled_due(self, ref: float, nominal_due: float) -> float:
        """Wall-clock wake-up for a nominal one: the distance from `ref` divided by the time scale."""
        return ref + max(0.0, nominal_due - ref) / self.scale

    def wait_due(self, ref: float, nominal_due: float) -> float:
        """A Wait's or a Retry interval's wake-up: at once while the engine skips waits (tests)."""
        return ref if self.engine.skip_waits else self.scaled_due(ref, nominal_due)

    def scale_seconds(self, seconds: float) -> float:
        return seconds / self.scale

    # ------------------------------------------------------------------ history
    def emit(self, fiber: str, type_: str, details: dict[str, Any] | None, *, prev: int | None = None,
             update: bool = True, text: str | None = None) -> Event:
        """Append an event (or take the recorded one when replaying this fiber). `text`: `details`
        as stored, when the caller built it (events.entered_text)."""
        queue = self.recorded.get(fiber)
        if queue:
            ev = queue.popleft()
            if ev.type != type_:
                raise ReplayMismatch(f"{self.arn}: history has {ev.type} #{ev.id} where {type_} was expected")
            if fiber in self._restarted:  # a preempted fiber catching up: the pointers never move back
                if not queue:
                    self._restarted.discard(fiber)
                if update and ev.id > 0:
                    self.last = max(self.last, ev.id)
                self.last_ts = max(self.last_ts, ev.ts)
                return ev
        elif "~" in fiber:
            # Hidden events (a child run's own history) take negative ids and never chain.
            ev = Event(self.next_hidden_id, 0, type_, self._now(), details, fiber, text)
            self.next_hidden_id -= 1
            self.pending.append(ev)
            return ev
        else:
            if self.resume_pointer:
                # First live event after a reload: chain on where the recorded history left off.
                self.last, self.resume_pointer = max(self.last, self.resume_pointer), 0
            # A live event (most of them): its id >= first_live_id >= 1, so it is the new pointer.
            eid, ts = self.next_id, self._now()
            ev = Event(eid, self.last if prev is None else prev, type_, ts, details, fiber, text)
            self.next_id = eid + 1
            self.pending.append(ev)
            if update:
                self.last = eid
            self.last_ts = ts
            return ev
        if update and ev.id > 0:
            # Replay may walk fibers in another order than they first ran: never move back.
            self.last = ev.id if ev.id >= self.first_live_id else max(self.last, ev.id)
        self.last_ts = ev.ts
        return ev

    def replaying(self, fiber: str) -> bool:
        return bool(self.recorded.get(fiber))

    def peek(self, fiber: str) -> Event | None:
        queue = self.recorded.get(fiber)
        return queue[0] if queue else None

    def mark(self) -> Mark:
        return len(self.pending), len(self.writes), self.next_id, self.last

    def _rollback(self, mark: Mark) -> None:
        """Drop what was appended since `mark` (only ever the newest events, so ids stay dense)."""
        del self.pending[mark[0]:]
        del self.writes[mark[1]:]
        self.next_id, self.last = mark[2], mark[3]

    def write(self, fn: Callable[[sqlite3.Connection], None]) -> None:
        """A row written in the same transaction as the pending events (task tokens)."""
        self.writes.append(fn)

    # ------------------------------------------------------------------ driving
    def drive(self) -> str:
        """Move every fiber that can; returns 'done', 'inflight' (keep in memory) or 'parked'."""
        if self.finished:
            return "done"
        self.budget.restart()
        with installed(self.budget):
            try:
                return self._drive()
            except Interrupted as stop:
                return self._interrupted(stop.reason)
            finally:
                self.budget.release()

    def _interrupted(self, reason: str) -> str:
        """An evaluation was ended from outside; the runtime is dropped either way."""
        self.finished = True
        if reason == "timeout":
            self.flush()  # what happened before the deadline stays in the history
            self._time_out()
        elif reason != "stopped":  # a shutdown: nothing since the last commit is kept; replay redoes it
            log.info("execution %s: evaluation ended (%s)", self.arn, reason)
        return "done"

    def _time_out(self) -> None:
        """The state machine's TimeoutSeconds: the execution ends where it is."""
        self.engine.terminate(self.arn, "ExecutionTimedOut", "TIMED_OUT", "States.Timeout", None,
                              timed_out_at=self.deadline)
        self.finished = True

    def _drive(self) -> str:
        if not self.started:
            self.started = True
            self.ready.append((self.root, None, None))
        now = self.clock.time()
        if self.deadline is not None and now >= self.deadline:
            self._time_out()
            return "done"
        self._deliver(now)
        while self.ready:
            fib, value, exc = self.ready.popleft()
            if not fib.cancelled:
                self._advance(fib, value, exc)
        if self.root.done:
            self.flush(final=True)
            self.finished = True
            return "done"
        self.flush(timer=self._next_due())
        if self.finished:  # stopped meanwhile
            return "done"
        return "inflight" if self.invoking else "parked"

    def _deliver(self, now: float) -> None:
        """Finished calls, due timers and token answers make their fibers ready."""
        while self.completions:
            fib, eff, value, exc = self.completions.popleft()
            if fib.blocked is eff and not fib.cancelled:
                self.invoking.discard(fib)
                fib.blocked = None
                self.ready.append((fib, value, exc))
        self._poll_blocked(now)

    def service(self) -> None:
        """Run the other fibers while the executing one evaluates a long expression (its generator
        is busy and is left alone; if they cancel it, its evaluation ends at its next check)."""
        executing = self.executing
        self.servicing = True
        try:
            for kid in list(self._unstarted):
                self._start(kid)
            self._deliver(self.clock.time())
            while self.ready:
                fib, value, exc = self.ready.popleft()
                if not fib.cancelled:
                    self._advance(fib, value, exc)
            if not self.finished:
                self.flush(timer=self._next_due())
        finally:
            self.servicing = False
            self.executing = executing

    def _poll_blocked(self, now: float) -> None:
        for fib in list(self.blocked):
            eff = fib.blocked
            value: Any = _UNSET
            if isinstance(eff, Sleep) and eff.due <= now:
                value = None
            elif isinstance(eff, AwaitToken):
                value = self.engine.poll_token(eff, now)
            if value is not _UNSET:
                self.blocked.discard(fib)
                fib.blocked = None
                self.ready.append((fib, value, None))
        for fib in list(self.invoking):
            eff = fib.blocked
            if isinstance(eff, Invoke) and eff.deadline is not None and eff.deadline <= now:
                self.invoking.discard(fib)
                fib.blocked = None
                self.ready.append((fib, None, InvokeTimeout()))

    def _next_due(self) -> float | None:
        dues = [f.blocked.due for f in self.blocked if getattr(f.blocked, "due", None) is not None]
        for fib in self.blocked:
            eff = fib.blocked
            if isinstance(eff, AwaitToken) and eff.heartbeat is not None:
                dues.append(self.engine.heartbeat_due(eff))
        dues += [f.blocked.deadline for f in self.invoking if f.blocked.deadline is not None]
        if self.deadline is not None:
            dues.append(self.deadline)
        return min(dues) if dues else None

    def _start(self, fib: Fiber) -> None:
        if fib in self._unstarted:
            self._unstarted.remove(fib)
            if not fib.cancelled:
                self._advance(fib)

    def preemptible(self, fib: Fiber) -> bool:
        """A fiber whose long evaluation holds up a Spawn below it on the stack (its siblings are
        not started, its parent cannot wait on them) and that has nothing running under it."""
        return (not self.servicing and len(self._advancing) > 1 and fib.factory is not None
                and fib is self._advancing[-1] and self._all_done(fib.children))

    def _all_done(self, fibers: list[Fiber]) -> bool:
        return all(f.done and self._all_done(f.children) for f in fibers)

    def _restart(self, fib: Fiber) -> None:
        """A preempted fiber starts over later from the ready queue: a fresh generator replays the
        events it (and its finished children) recorded, then redoes the evaluation it was in."""
        assert fib.factory is not None
        self.flush()  # what it did so far is in the history, which the replay reads back
        if self.finished:
            return
        mine: dict[str, deque[Event]] = {}
        for ev in self.engine.fiber_events(self.arn, fib.key):
            mine.setdefault(ev.fiber, deque()).append(ev)
        for key in [k for k in self.recorded if k == fib.key or k.startswith(fib.key + ".")]:
            del self.recorded[key]  # what was left to replay is in `mine` too
        self.recorded.update(mine)
        self._restarted.update(k for k, q in mine.items() if q)
        fib.gen, fib.spawned, fib.children = fib.factory(fib.key), 0, []
        self.ready.append((fib, None, None))

    def _advance(self, fib: Fiber, value: Any = None, exc: BaseException | None = None) -> None:
        self._advancing.append(fib)
        try:
            self._advance_fiber(fib, value, exc)
        finally:
            self._advancing.pop()

    def _advance_fiber(self, fib: Fiber, value: Any, exc: BaseException | None) -> None:
        while True:
            outer, self.executing = self.executing, fib
            self._on_stack.append(fib)
            outer_step, self.step_started = self.step_started, self.clock.monotonic()
            try:
                eff = fib.gen.throw(exc) if exc is not None else fib.gen.send(value)
            except StopIteration as stop:
                self._finish(fib, stop.value, None)
                return
            except Exception as e:
                self._finish(fib, None, e)
                return
            except Interrupted as stop:
                if stop.reason == "cancelled" and fib.cancelled:
                    return  # cancelled while it evaluated (a sibling failed): its generator is gone
                if stop.reason == "preempt":
                    self._restart(fib)
                    return
                raise
            finally:
                self.executing, self.step_started = outer, outer_step
                self._on_stack.pop()
            value, exc = None, None
            if isinstance(eff, Spawn):
                kids = []
                for factory in eff.factories:
                    fib.spawned += 1
                    key = f"{fib.key}.{'~' if eff.hidden else ''}{fib.spawned}"
                    kid = Fiber(key, factory(key), fib, factory)
                    fib.children.append(kid)
                    kids.append(kid)
                # Started in order; a later one is started by service() if an earlier one runs long.
                self._unstarted.extend(kids)
                for kid in kids:
                    self._start(kid)
                value = kids
            elif isinstance(eff, WaitAny):
                done = [k for k in eff.fibers if k.done]
                if done:
                    value = done
                    continue
                fib.blocked = eff
                for k in eff.fibers:
                    k.waiter = fib
                return
            elif isinstance(eff, Sleep):
                if eff.due <= self.clock.time():
                    continue
                fib.blocked = eff
                self.blocked.add(fib)
                return
            elif isinstance(eff, AwaitToken):
                value = self.engine.poll_token(eff, self.clock.time())
                if value is not _UNSET:
                    continue
                value = None
                fib.blocked = eff
                self.blocked.add(fib)
                return
            elif isinstance(eff, Invoke):
                if self.engine.draining:
                    # Shutting down: do not start a call; forget the task's scheduling events so
                    # that after the restart the task is scheduled again instead of being "lost"
                    # (a call re-run on replay has its events on disk already: it runs after the restart).
                    if eff.mark is not None:
                        self._rollback(eff.mark)
                    fib.blocked = eff
                    return
                self.flush()
                if self.finished:
                    return
                fib.blocked = eff
                self.invoking.add(fib)
                self.engine.submit_invoke(self, fib, eff)
                return
            else:
                raise TypeError(f"unknown effect {eff!r}")

    def _finish(self, fib: Fiber, result: Any, error: BaseException | None) -> None:
        fib.done, fib.result, fib.error = True, result, error
        if error is not None and fib is self.root:
            log.error("execution %s crashed", self.arn, exc_info=error)
        parent = fib.waiter
        if parent is not None and isinstance(parent.blocked, WaitAny) and fib in parent.blocked.fibers:
            eff = parent.blocked
            parent.blocked = None
            for k in eff.fibers:
                k.waiter = None
            self.ready.append((parent, [k for k in eff.fibers if k.done], None))

    def cancel(self, fib: Fiber) -> None:
        """Stop a fiber and its children (a sibling branch failed); their effects are ignored."""
        for kid in fib.children:
            self.cancel(kid)
        fib.cancelled = True
        self.blocked.discard(fib)
        self.invoking.discard(fib)
        if not fib.done:
            fib.done = True
            if fib not in self._on_stack:  # a running one ends at its budget's next check
                fib.gen.close()

    # ------------------------------------------------------------------ persistence
    def flush(self, timer: float | None = _UNSET, final: bool = False) -> None:
        if not self.pending and not self.writes and not final and (timer is _UNSET or timer == self.timer_written):
            return
        if timer is not _UNSET and timer == self.timer_written:
            timer = _UNSET
        ok = self.engine.commit(self, timer, final)
        self.pending.clear()
        self.writes.clear()
        if not ok:
            self.finished = True
            return
        if timer is not _UNSET:
            self.timer_written = timer



__all__ = ["UNSET", "EnginePort", "Fiber", "InvokeTimeout", "ReplayMismatch", "Runtime"]
