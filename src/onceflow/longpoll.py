"""Long polls: a handler that has nothing to answer yet hands the wire layer a `LongPoll`, which
waits on the event loop (no thread held) until a producer notifies its key or its deadline
passes, then asks the handler's `attempt` again in the thread pool.

`Waiters` is the meeting point: a consumer registers a `Watch` *before* it looks for work, so a
notification between its look and its wait is never lost. In-process callers (Step Functions'
`aws-sdk:sqs:receiveMessage`) have no event loop: `LongPoll.run_blocking` waits on a thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any


class Watch:
    """One waiting consumer: fired once, by a producer's notify (from any thread) or by a stop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fired = False
        self._event = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._future: asyncio.Future[None] | None = None

    def fire(self) -> None:
        with self._lock:
            if self._fired:
                return
            self._fired = True
            loop, future = self._loop, self._future
        self._event.set()
        if loop is not None and future is not None:
            loop.call_soon_threadsafe(_resolve, future)

    async def wait_async(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._fired:
                return
            self._loop, self._future = loop, loop.create_future()
            future = self._future
        try:
            await asyncio.wait_for(asyncio.shield(future), max(timeout, 0.0))
        except TimeoutError:
            pass

    def wait_blocking(self, timeout: float) -> None:
        self._event.wait(max(timeout, 0.0))


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class Waiters:
    """Watches by key (a queue): `notify(key)` fires every watch registered on it so far."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[Hashable, set[Watch]] = {}
        self.stopping = False

    def watch(self, key: Hashable) -> Watch:
        watch = Watch()
        with self._lock:
            if self.stopping:
                watch.fire()
            else:
                self._by_key.setdefault(key, set()).add(watch)
        return watch

    def forget(self, key: Hashable, watch: Watch) -> None:
        with self._lock:
            watches = self._by_key.get(key)
            if watches is not None:
                watches.discard(watch)
                if not watches:
                    del self._by_key[key]

    def notify(self, key: Hashable) -> None:
        with self._lock:
            watches = self._by_key.pop(key, None)
        for watch in watches or ():
            watch.fire()

    def stop(self) -> None:
        """Shutting down: every poll answers now (with what it has) instead of at its deadline."""
        with self._lock:
            self.stopping = True
            everything = [w for ws in self._by_key.values() for w in ws]
            self._by_key.clear()
        for watch in everything:
            watch.fire()

    def waiting(self) -> int:
        with self._lock:
            return sum(len(ws) for ws in self._by_key.values())


# attempt() -> (result or None when there is nothing yet, seconds until something may become
# ready without a notification - a delayed message, a visibility timeout running out - or None)
Attempt = Callable[[], tuple[Any, float | None]]


@dataclass
class LongPoll:
    """What a handler returns when it must wait: the wire layer awaits `run`, which answers
    `attempt`'s first result, or `empty` at the deadline (a monotonic time)."""

    waiters: Waiters
    key: Hashable
    deadline: float
    attempt: Attempt
    empty: Any

    async def run(self, executor: Executor) -> Any:
        loop = asyncio.get_running_loop()
        while True:
            watch = self.waiters.watch(self.key)
            try:
                result, ready_in = await loop.run_in_executor(executor, self.attempt)
                if result is not None:
                    return result
                left = self.deadline - time.monotonic()
                if left <= 0 or self.waiters.stopping:
                    return self.empty
                await watch.wait_async(min(left, ready_in) if ready_in is not None else left)
            finally:
                self.waiters.forget(self.key, watch)

    def run_blocking(self) -> Any:
        while True:
            watch = self.waiters.watch(self.key)
            try:
                result, ready_in = self.attempt()
                if result is not None:
                    return result
                left = self.deadline - time.monotonic()
                if left <= 0 or self.waiters.stopping:
                    return self.empty
                watch.wait_blocking(min(left, ready_in) if ready_in is not None else left)
            finally:
                self.waiters.forget(self.key, watch)
