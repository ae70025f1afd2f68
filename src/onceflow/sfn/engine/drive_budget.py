"""A drive's budget: every expression checks in with it, so the execution's TimeoutSeconds,
StopExecution and a shutdown end even an evaluation that never returns, and a long evaluation
gives up its pool seat, takes turns on the engine's long lane and lets the other fibers' due
timers through (`Runtime.service`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from onceflow.sfn.asl.budget import Budget, Interrupted
from onceflow.sfn.engine.lane import Lane

if TYPE_CHECKING:
    from onceflow.sfn.engine.runner import Runtime


class DriveBudget(Budget):
    """One runtime's budget, restarted at every drive."""

    SLICE = 0.1  # seconds a drive runs before it counts as long

    def __init__(self, rt: Runtime) -> None:
        super().__init__()
        self.rt = rt
        self.restart()

    TURN = 0.02  # seconds a long evaluation runs before it lets the next one on the lane

    def restart(self) -> None:
        self.started, self.long, self.next_service = self.rt.clock.monotonic(), False, 0.0
        self.lane: Lane | None = self.rt.engine.long_lane
        self.holding = False
        self.turn = 0.0

    def release(self) -> None:
        """The drive ends: give the lane back."""
        if self.holding and self.lane is not None:
            self.holding = False
            self.lane.release()

    def _ends(self) -> None:
        rt = self.rt
        if rt.stopped or rt.finished:
            raise Interrupted("stopped")
        if rt.engine.halting:
            raise Interrupted("shutdown")
        if rt.deadline is not None and rt.clock.time() >= rt.deadline:
            raise Interrupted("timeout")
        fib = rt.executing
        if fib is not None and fib.cancelled:
            raise Interrupted("cancelled")

    def _take_turn(self, now: float) -> None:
        """Long evaluations take turns on one lane: together they hold the GIL like one thread, so
        the other executions (and every API call) stay quick while some expressions run away."""
        if self.lane is None or (self.holding and now - self.turn < self.TURN):
            return
        self.release()
        try:
            while not self.lane.acquire(timeout=0.05):
                self._ends()
        except BaseException:
            self.lane.leave()  # stopped, timed out, shutting down: its place in the queue goes
            raise
        self.holding, self.turn = True, self.rt.clock.monotonic()

    def check(self) -> None:
        rt = self.rt
        self._ends()
        fib = rt.executing
        now = rt.clock.monotonic()
        if now - self.started < self.SLICE:
            return
        if not self.long:
            self.long = True
            rt.engine.release_seat()
        if rt.engine.draining:  # shutting down: a long evaluation is redone after the restart
            raise Interrupted("shutdown")
        # Only a step that itself ran long is preempted: in a long drive (a Map spawning thousands of
        # quick iterations) a fresh iteration's first check would otherwise restart it, and each
        # restart re-reads the whole history (quadratic).
        if fib is not None and now - rt.step_started >= self.SLICE and rt.preemptible(fib):
            raise Interrupted("preempt")
        self._take_turn(now)
        if now >= self.next_service and not rt.servicing:
            self.next_service = now + self.SLICE
            rt.service()
            if rt.stopped or rt.finished:
                raise Interrupted("stopped")
            if fib is not None and fib.cancelled:
                raise Interrupted("cancelled")
