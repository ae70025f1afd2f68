"""Where a parsed call runs, and its answer rendered: the last stages of the pipeline.

Handlers are plain functions; they run in a thread pool so a slow one (a Lambda invoke) never
blocks the event loop. Quick ones run on the loop (their @operation hint, registry.placement):
"loop" handlers always, "commit" handlers (single-item writes) when no other thread holds the
store's writers' lock; their answer waits for the fsync of their commit (`synced`). "bounded" ones
(reads whose work depends on the data: a Query) run on the loop within a budget; one that finds its
work past it raises registry.OverBudget before any effect and runs again in the thread pool. A role
session's or a user's authorization evaluates its policies, work that grows with them (25 ms per
call for a role as large as IAM allows): their calls never run on the loop. Calls that wait on user
code (wire/facts.py long_calls) get threads of their own: a handler's calls back into onceflow must
never queue behind the calls that wait for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.longpoll import LongPoll
from onceflow.registry import OverBudget, placement, run_bounded
from onceflow.stack import Stack
from onceflow.wire import errors, facts, protocols
from onceflow.wire.request import Response
from onceflow.wire.routing import Route
from onceflow.wire.specs import ServiceSpec
from onceflow.wire.sync_rounds import SyncRounds

log = logging.getLogger("onceflow.wire")


@dataclass(slots=True)
class Call:
    """A parsed call waiting for the thread pool."""

    found: Route
    handler: Any
    ctx: RequestContext
    params: dict[str, Any]


@dataclass(slots=True)
class Durable:
    """An answer to a write made on the loop: sent once commit `seq` is on disk."""

    seq: int
    response: Response


@dataclass(slots=True)
class Deferred:
    """Work of onceflow's own endpoints that may block: run in the thread pool."""

    fn: Callable[[], Response]


class Execution:
    """The thread pools and the rules for which of them (or the loop) runs a call."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="onceflow-call")
        self.long_executor = ThreadPoolExecutor(max_workers=512, thread_name_prefix="onceflow-long-call")
        # Waits for the fsync of commits made on the loop while other requests are in flight.
        self.sync_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="onceflow-sync")
        self.rounds = SyncRounds(stack.db, self.sync_executor)
        self.in_flight = 0  # requests between arrival and answer

    def place(self, call: Call) -> Response | Durable | Call:
        """Run `call` here on the loop when its hint and its caller allow, else hand it on."""
        quick = call.ctx.principal.kind in ("root", "service")
        where = placement(call.handler) if quick else "pool"
        if where == "loop":
            return self.answer(call)
        if where == "commit":
            return self.commit_on_loop(call) or call
        if where == "bounded":
            return self.within_budget(call)
        return call

    def invoke(self, call: Call) -> Any:
        """Authorize, then run the handler: the one place every HTTP call is authorized."""
        self.stack.authorize(call.ctx, call.params)
        try:
            return call.handler(call.ctx, call.params)
        except RecursionError:  # raised out of the handler's transaction, so nothing it wrote stays
            raise errors.nested_too_deeply(call.found.spec.protocol) from None

    def answer(self, call: Call) -> Response:
        """Run `call` on this thread and render what it returns or raises."""
        try:
            return render(call.found, self.invoke(call), call.ctx.request_id)
        except ServiceError as err:
            return protocols.error(call.found.spec, err, call.ctx.request_id)

    def executor_for(self, ctx: RequestContext) -> ThreadPoolExecutor:
        """The pool a handler runs in: calls that wait on user code get the long calls' own."""
        return self.long_executor if facts.is_long_call(ctx.service, ctx.operation) else self.executor

    async def finish(self, call: Call) -> Response:
        """Run a handler in the thread pool (it may block on a commit or a worker) and render."""
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(self.executor_for(call.ctx), self.invoke, call)
            if isinstance(result, LongPoll):  # waits on the loop, holding no thread (SQS ReceiveMessage)
                result = await result.run(self.executor)
            return render(call.found, result, call.ctx.request_id)
        except ServiceError as err:
            return protocols.error(call.found.spec, err, call.ctx.request_id)
        except Exception:
            return internal_failure(call.found, call.ctx.request_id)

    def within_budget(self, call: Call) -> Response | Call:
        """Run a "bounded" handler here on its budget; past it, hand the call on to the thread pool."""
        try:
            return run_bounded(lambda: self.answer(call))
        except OverBudget:
            return call

    def commit_on_loop(self, call: Call) -> Response | Durable | None:
        """Run a "commit" handler here if no other thread holds the writers' lock (None if one
        does: then it goes to the thread pool, so the loop never waits behind a long transaction)."""
        db = self.stack.db
        with db.writer_if_free() as free:
            if not free:
                return None
            with db.deferred_sync() as pending:
                response = self.answer(call)
        return Durable(pending.seq, response) if pending.seq and not db.in_memory else response

    async def synced(self, seq: int) -> None:
        """Wait until commit `seq` is on disk. A lone request syncs right here, on the loop, which
        saves two thread hand-offs; with others in flight, the sync thread does it, so that their
        commits share the fsync and the loop keeps serving them meanwhile. The yield first lets
        requests that arrived together start (and count) before this one decides.

        The sync thread's fsyncs are shared by every answer they cover (wire/sync_rounds.py)."""
        await asyncio.sleep(0)
        if self.in_flight <= 1 and not self.rounds.running:
            self.stack.db.sync(seq)
            return
        await self.rounds.wait(seq)

    async def deferred(self, work: Deferred) -> Response:
        return await asyncio.get_running_loop().run_in_executor(self.executor, work.fn)

    # The renderers, for the paths that run calls their own way (faults/wire.py).
    @staticmethod
    def render(found: Route, result: Any, request_id: str) -> Response:
        return render(found, result, request_id)

    @staticmethod
    def error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
        return protocols.error(spec, err, request_id)

    @staticmethod
    def failure(found: Route, request_id: str) -> Response:
        return internal_failure(found, request_id)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=False)
        self.sync_executor.shutdown(wait=True, cancel_futures=False)
        self.long_executor.shutdown(wait=True, cancel_futures=False)


def render(found: Route, result: Any, request_id: str) -> Response:
    return protocols.of(found.spec).render(found, result, request_id)


def internal_failure(found: Route, request_id: str) -> Response:
    """A handler's crash: logged with its trace, answered as AWS's 500 without one."""
    log.exception("internal failure in %s.%s", found.spec.name, found.operation_name)
    return protocols.error(found.spec, errors.internal_failure(), request_id)
