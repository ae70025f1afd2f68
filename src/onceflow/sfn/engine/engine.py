"""The engine: one timer thread over stored wake-up times, a pool that drives runtimes, a pool for
task calls, and the commit that appends a runtime's events (checking the execution still runs).

An execution is driven by at most one thread at a time; wake-ups that arrive meanwhile make that
thread go round once more. Runtimes stay in memory only while a task call is in flight. The drive
pool's seats are given up by drives that run long (see engine/pool.py), so a stuck execution never
holds up the others; StopExecution and shutdown reach a drive through its runtime's budget.

A task call writes a durable hand-over mark just before it reaches a Lambda worker or a service;
after a crash, a started task without one is started again instead of being reported lost.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any

from onceflow.context import TASK_CALL
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.clock import SYSTEM, Clock
from onceflow.sfn.engine.effects import UNSET, AwaitToken, Fx, Invoke
from onceflow.sfn.engine.events import emission_order
from onceflow.sfn.engine.integrations.calls import HANDED_OVER, NotDispatched
from onceflow.sfn.engine.lane import Lane
from onceflow.sfn.engine.pool import DrivePool
from onceflow.sfn.engine.runner import Fiber, Runtime
from onceflow.sfn.engine.scheduler import Scheduler
from onceflow.sfn.engine.state import History, event_from_row
from onceflow.sfn.store import SfnStore
from onceflow.stack import Stack

log = logging.getLogger(__name__)

Root = Callable[[Runtime], Fx]  # the program every execution runs (states.run_execution)


class Engine:
    def __init__(self, stack: Stack, store: SfnStore, root: Root, clock: Clock = SYSTEM) -> None:
        self.stack = stack
        self.store = store
        self.root = root
        self.clock = clock
        self.scale = stack.settings.time_scale or 1.0
        self.skip_waits = False  # POST /_onceflow/time-scale {"skipWaits": true}: Waits and Retry intervals end at once
        self.pool = DrivePool(8, "sfn-run")
        self.invoke_pool = ThreadPoolExecutor(max_workers=64, thread_name_prefix="sfn-task")
        self.scheduler = Scheduler(self.wake)
        self.live: dict[str, Runtime] = {}
        # Recently parked runtimes, so that a wake-up does not replay the whole history each time
        # (a polling loop of Waits); bounded, and always rebuildable from the history.
        self.parked: OrderedDict[str, Runtime] = OrderedDict()
        self.parked_limit = 1000
        self._mu = threading.Lock()
        self._running: set[str] = set()
        self._rerun: set[str] = set()
        self._locks = [threading.Lock() for _ in range(64)]
        self._done = threading.Condition()
        self._accepting = True
        self.draining = False  # shutting down: no new call starts; long evaluations end
        self.halting = False  # past the grace period: every evaluation ends
        self._driving: dict[str, Runtime] = {}  # runtimes inside drive() now (StopExecution reaches them)
        self.long_lane = Lane()  # long evaluations take turns on it, in order (drive_budget.DriveBudget)
        self._calls = 0  # task calls between submit and answer
        self._calls_mu = threading.Lock()
        self.on_closed: list[Callable[[str], None]] = []  # after an execution's closing commit (nested .sync)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Recovery: every RUNNING execution is rebuilt from its history and goes on."""
        self._accepting = True
        self.draining = self.halting = False
        self.pool.reopen()
        self.scheduler.start()
        for arn, due in self.store.timers():
            self.scheduler.add(arn, due)
        for arn in self.store.running_executions():
            self.wake(arn)

    def shutdown(self, grace: float = 5.0) -> None:
        """Stop cleanly within seconds: calls already handed over may finish and be recorded for
        `grace` seconds; no call is handed over any more (those not yet are made after the restart);
        evaluations still running end (they are redone after the restart)."""
        self.scheduler.stop()
        self.draining = True
        deadline = time.monotonic() + grace  # real seconds, whatever the engine's clock says
        while self._calls and time.monotonic() < deadline:
            time.sleep(0.02)
        self.halting = True
        self._accepting = False
        self.pool.shutdown(timeout=3.0)
        self.invoke_pool.shutdown(wait=False, cancel_futures=True)

    def release_seat(self) -> None:
        """The calling drive runs long: its pool seat goes to another thread."""
        self.pool.release_seat()

    def reset(self) -> None:
        self.scheduler.clear()
        with self._mu:
            for rt in (*self._driving.values(), *self.live.values()):
                rt.stopped = True  # an evaluation still running ends at its next check
            self.live.clear()
            self.parked.clear()

    def set_time_scale(self, scale: float | None, skip_waits: bool | None) -> None:
        """A new time scale or wait skipping at run time (wire/time_scale.py): runtimes in memory take
        it, parked ones are dropped (rebuilt from their history, their waits timed again), and
        every execution with a timer is woken."""
        if scale is not None:
            self.scale = scale
        if skip_waits is not None:
            self.skip_waits = skip_waits
        with self._mu:
            for rt in (*self._driving.values(), *self.live.values()):
                rt.scale = self.scale
            self.parked.clear()
        for arn, _ in self.store.timers():
            self.wake(arn)

    def lock_for(self, arn: str) -> threading.Lock:
        return self._locks[hash(arn) % len(self._locks)]

    # ------------------------------------------------------------------ driving
    def wake(self, arn: str) -> None:
        if not self._accepting:
            return
        with self._mu:
            if arn in self._running:
                self._rerun.add(arn)
                return
            self._running.add(arn)
        try:
            self.pool.submit(lambda: self._drive(arn))
        except RuntimeError:  # pool shut down
            with self._mu:
                self._running.discard(arn)

    def begin(self, row: dict[str, Any], started: ev.Event) -> None:
        """A new execution, just committed with its ExecutionStarted: its runtime is built from what
        the caller holds instead of read back from the store (four queries and a parse); one that is
        dropped meanwhile (reset, time scale) is loaded as any other."""
        if self._accepting:
            with self._mu:
                rt = Runtime(self, row, History([started]), self.root)
                rt.clean = True
                # StartExecution wrote no timer: a drive that parks with none (a task call in
                # flight) has nothing to remove, so no commit of its own
                rt.timer_written = None
                self.parked[row["arn"]] = rt
        self.wake(row["arn"])

    def _drive(self, arn: str) -> None:
        while True:
            try:
                self._drive_once(arn)
            except Exception:
                log.exception("driving %s failed", arn)
                self.live.pop(arn, None)
                self.terminate(arn, "ExecutionFailed", "FAILED", "States.Runtime",
                               "An internal error occurred while running the execution.")
            with self._mu:
                if arn in self._rerun:
                    self._rerun.discard(arn)
                    continue
                self._running.discard(arn)
                return

    def _drive_once(self, arn: str) -> None:
        with self._mu:
            rt = self.live.get(arn) or self.parked.pop(arn, None)
        rt = rt or self._load(arn)
        if rt is None:
            return
        with self._mu:
            self._driving[arn] = rt
        try:
            outcome = rt.drive()
        finally:
            with self._mu:
                self._driving.pop(arn, None)
        with self._mu:
            if outcome == "inflight":
                self.live[arn] = rt
                return
            self.live.pop(arn, None)
            if outcome == "parked" and not self.draining:
                self.parked[arn] = rt
                while len(self.parked) > self.parked_limit:
                    self.parked.popitem(last=False)

    def forget(self, arn: str) -> None:
        """Drop any in-memory runtime of an execution changed from outside (stop, redrive); one
        being driven stops at its budget's next check (an evaluation that never returns, too)."""
        with self._mu:
            self.parked.pop(arn, None)
            # A call in flight reports to a fresh runtime, which finds the execution closed (or,
            # after a redrive, replays it) instead of going on with this one's stale state.
            for rt in (self._driving.get(arn), self.live.pop(arn, None)):
                if rt is not None:
                    rt.stopped = True

    def _load(self, arn: str) -> Runtime | None:
        row = self.store.get_execution(arn)
        if row is None or row["status"] != "RUNNING":
            return None
        history = History([event_from_row(r) for r in self.store.events(arn)], self.store.superseded(arn),
                          self.store.dispatched(arn))
        return Runtime(self, row, history, self.root)

    def fiber_events(self, arn: str, key: str) -> list[ev.Event]:
        """The recorded events of fiber `key` and its descendants, as a History replays them."""
        superseded = self.store.superseded(arn)
        return emission_order([e for e in (event_from_row(r) for r in self.store.events(arn))
                               if e.id not in superseded and (e.fiber == key or e.fiber.startswith(key + "."))])

    def submit_invoke(self, rt: Runtime, fib: Fiber, eff: Invoke) -> None:
        def handed_over(request_id: str | None) -> None:
            if self.draining:
                raise NotDispatched
            if eff.task_id is not None:
                # In the WAL before the worker or service sees the call, without waiting for its
                # fsync: a killed process leaves it in the file, and whatever the call then makes
                # durable in onceflow's store syncs it too (one WAL). Waiting for the fsync would
                # leave a window where a crash keeps the mark of a call never handed over.
                rt.clean = False
                with self.stack.db.deferred_sync(), self.stack.db.transaction() as conn:
                    self.store.mark_dispatched(conn, rt.arn, eff.task_id)
                rt.dispatched.add(eff.task_id)

        def run() -> None:
            value, exc = None, None
            token = HANDED_OVER.set(handed_over)
            task = TASK_CALL.set((rt.arn, eff.task_id) if eff.task_id is not None else None)
            try:
                if self.draining:
                    raise NotDispatched
                value = eff.call()
            except NotDispatched:
                return  # never started: the restart makes the call (the runtime is dropped meanwhile)
            except BaseException as e:
                exc = e
            finally:
                HANDED_OVER.reset(token)
                TASK_CALL.reset(task)
                with self._calls_mu:
                    self._calls -= 1
            rt.completions.append((fib, eff, value, exc))
            self.wake(rt.arn)

        with self._calls_mu:
            self._calls += 1
        try:
            self.invoke_pool.submit(run)
        except RuntimeError:  # shut down meanwhile: the call never started
            with self._calls_mu:
                self._calls -= 1

    # ------------------------------------------------------------------ task tokens
    def poll_token(self, eff: AwaitToken, now: float) -> Any:
        row = self.store.get_token(eff.token)
        if row is not None and row["status"] == "SUCCEEDED":
            return ("SUCCEEDED", row["output"])
        if row is not None and row["status"] == "FAILED":
            return ("FAILED", row["error"], row["cause"])
        if eff.due is not None and now >= eff.due:
            return ("TIMEOUT",)
        if eff.heartbeat is not None and row is not None and now >= row["heartbeat"] + eff.heartbeat:
            return ("HEARTBEAT",)
        return UNSET

    def heartbeat_due(self, eff: AwaitToken) -> float:
        row = self.store.get_token(eff.token)
        base = row["heartbeat"] if row is not None else self.clock.time()
        return base + (eff.heartbeat or 0)

    def insert_token(self, conn: sqlite3.Connection, token: str, arn: str, ts: float) -> None:
        self.store.insert_token(conn, token, arn, ts)

    def time_out_token(self, conn: sqlite3.Connection, token: str) -> None:
        """A late SendTask* answer now gets TaskTimedOut."""
        self.store.complete_token(conn, token, "TIMED_OUT", None, None, None)

    # ------------------------------------------------------------------ persistence
    def commit(self, rt: Runtime, timer: Any, final: bool) -> bool:
        """Append the runtime's events (and rows) in one transaction; False if it no longer runs.

        Only the closing commit waits for its fsync. The others (before a task call, when parking
        on a timer) are in the WAL at once, which a killed process keeps; the next synced commit
        of anyone (the call's own durable writes, this execution's close) syncs them too, as the
        WAL is written in order. Lost only with the machine's power, they are replayed from the
        last synced event: the one fsync of a Task's step was on every Task's critical path."""
        sync = nullcontext() if final else self.stack.db.deferred_sync()
        with sync, self.lock_for(rt.arn), self.stack.db.transaction() as conn:
            status = conn.execute("SELECT status, seq FROM sfn_executions WHERE arn=?", (rt.arn,)).fetchone()
            if status is None or status[0] != "RUNNING":
                return False
            self.store.append_events(conn, rt.arn, rt.pending, status[1])
            if rt.writes:
                rt.clean = False
                for write in rt.writes:
                    write(conn)
            if final:
                self._close(conn, rt.arn, rt.final or {"status": "FAILED"}, rt.last_ts, rt.row, rt.clean)
            elif timer is not UNSET:
                if timer is not None or not rt.clean:
                    rt.clean = False
                    self.store.set_timer(conn, rt.arn, timer)
        if final:
            self._notify_done()
            self._closed(rt.arn)
        elif timer is not UNSET and timer is not None:
            self.scheduler.add(rt.arn, timer)
        return True

    def _close(self, conn: sqlite3.Connection, arn: str, final: dict[str, Any], stop: float,
               row: Any = None, clean: bool = False) -> None:
        """Record the execution's end. `row`: the execution as its runtime holds it (its columns
        change only at a redrive, which drops the runtime), so the status-change event needs no
        read of the row back (its definition and input; a tenth of a Pass chain's closing commit).
        `clean`: its one runtime since StartExecution wrote no timer, token or hand-over mark, so
        there are none to remove (three statements of a short execution's closing commit)."""
        changes = {"status": final["status"], "output": final.get("output"), "error": final.get("error"),
                   "cause": final.get("cause"), "stop": stop}
        self.store.update_execution(conn, arn, changes)
        if not clean:
            self.store.set_timer(conn, arn, None)
            self.store.close_tokens(conn, arn)
            self.store.clear_dispatched(conn, arn)
        if (events := self.stack.ports.events.get()) is not None:  # "Execution Status Change" (events/)
            closed = {**dict(row), **changes} if row is not None else self.store.get_execution(arn)
            events.execution_changed(conn, closed)

    def terminate(self, arn: str, event_type: str, status: str, error: str | None, cause: str | None, *,
                  timed_out_at: float | None = None) -> bool:
        """Close a running execution from outside its runtime (StopExecution, internal failure).

        `timed_out_at`: the state machine's TimeoutSeconds ran out at that instant. AWS records
        ExecutionTimedOut then at the deadline itself, chained on no event (previousEventId 0),
        and DescribeExecution shows neither error nor cause (recorded on AWS, floci-io/floci#2733)."""
        with self.lock_for(arn), self.stack.db.transaction() as conn:
            row = conn.execute("SELECT status FROM sfn_executions WHERE arn=?", (arn,)).fetchone()
            if row is None or row[0] != "RUNNING":
                return False
            last = conn.execute("SELECT COALESCE(MAX(id), 0) FROM sfn_events WHERE exec_arn=?", (arn,)).fetchone()[0]
            now = self.clock.time() if timed_out_at is None else timed_out_at
            prev = last if timed_out_at is None else 0
            event = ev.Event(last + 1, prev, event_type, now, ev.error_cause(error, cause), "x")
            self.store.append_events(conn, arn, [event])
            summary = {"status": status, "error": error, "cause": cause} if timed_out_at is None else {"status": status}
            self._close(conn, arn, summary, now)
        self.forget(arn)
        self._notify_done()
        self._closed(arn)
        self.wake(arn)  # a live runtime notices on its next commit and stops
        return True

    def _closed(self, arn: str) -> None:
        for hook in self.on_closed:
            try:
                hook(arn)
            except Exception:  # a hook's failure must not undo the close that happened
                log.exception("close hook for %s failed", arn)

    def _notify_done(self) -> None:
        with self._done:
            self._done.notify_all()

    def wait_done(self, arn: str, timeout: float) -> None:
        """Block until the execution is no longer RUNNING (StartSyncExecution)."""
        deadline = time.monotonic() + timeout
        with self._done:
            while True:
                row = self.store.get_execution(arn)
                if row is None or row["status"] != "RUNNING" or self.draining:
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._done.wait(min(left, 0.5))
