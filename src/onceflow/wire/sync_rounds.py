"""Answers made on the event loop waiting for the fsync of their commit, on one sync thread.

The thread syncs while some answer waits for a commit not yet on disk, each fsync covering every
commit made before it started, and after each one wakes (one hand-off to the loop) every answer it
covered; it goes on at once while answers committed during that fsync wait, so consecutive fsyncs
are not spaced by a round trip through a busy loop. Whether the thread runs is decided on the loop
only (`_finished` runs there), so an answer never waits for a thread that has just stopped.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from onceflow.store.db import Database


class SyncRounds:
    def __init__(self, db: Database, executor: ThreadPoolExecutor) -> None:
        self.db = db
        self.executor = executor
        self.waiting: list[tuple[int, asyncio.Future[None]]] = []  # touched on the loop only
        self.wanted = 0  # the highest commit awaited: written on the loop, read by the thread
        self.running = False  # the sync thread is at work (loop only)

    async def wait(self, seq: int) -> None:
        """Return once commit `seq` is on disk, sharing the sync thread's fsyncs."""
        if self.db.is_synced(seq):
            return
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self.waiting.append((seq, fut))
        self.wanted = max(self.wanted, seq)
        if not self.running:
            self._start(loop)
        await fut

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.running = True
        self.executor.submit(self._run, loop)

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:  # on the sync thread
        try:
            while not self.db.is_synced(self.wanted):
                self.db.sync_all()
                loop.call_soon_threadsafe(self._wake, None)
        except BaseException as err:  # a failed fsync fails every answer waiting on it
            loop.call_soon_threadsafe(self._wake, err)
        finally:
            loop.call_soon_threadsafe(self._finished, loop)

    def _wake(self, err: BaseException | None) -> None:
        still = []
        for seq, fut in self.waiting:
            if err is None and not self.db.is_synced(seq):
                still.append((seq, fut))
            elif not fut.done():
                if err is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(err)
        self.waiting = still

    def _finished(self, loop: asyncio.AbstractEventLoop) -> None:
        self.running = False
        self._wake(None)
        if self.waiting:  # committed after the thread's last look
            self._start(loop)
