"""A private onceflow for one proof: the user's store copied into memory with SQLite's backup API
(a consistent snapshot even while their server writes to it; the source is opened read-only), the
whole stack built on the copy and served on a free loopback port from a thread, with time scaled
so waits, retry intervals and backoffs cost nothing. Nothing of it is written back."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import uvicorn

from onceflow.config import Settings
from onceflow.prove.ledger import Ledger
from onceflow.prove.model import TIME_SCALE, ProveError
from onceflow.stack import Stack
from onceflow.store.db import Database

CLIENT_CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=300,
                                       connect_timeout=10)


def copy_store(source: Path) -> Database:
    """An in-memory Database holding a snapshot of `source` (never opened for writing)."""
    if not source.is_file():
        raise ProveError(f"no onceflow store at {source}")
    db = Database(":memory:")
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise ProveError(f"cannot open {source}: {exc}") from None
    try:
        src.backup(db._conn)  # the Database's one connection: in-memory stores have no readers
    except sqlite3.Error as exc:
        raise ProveError(f"cannot copy {source}: {exc}") from None
    finally:
        src.close()
    return db


class Sandbox:
    """Start with `Sandbox(path).start()`; `close()` stops its workers and drops the copy."""

    def __init__(self, source: Path, *, time_scale: float = TIME_SCALE, account_id: str = "000000000000",
                 region: str = "us-east-1") -> None:
        self.source = source
        self.settings = Settings(port=0, in_memory=True, account_id=account_id, default_region=region,
                                 time_scale=time_scale)
        self.stack: Stack | None = None
        self.ledger: Ledger | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._clients: dict[str, Any] = {}

    @property
    def url(self) -> str:
        return self.settings.endpoint_url

    def start(self) -> Sandbox:
        from onceflow.server import SETUPS, bind, build_app

        # The proof's own injected faults are its plan, reported per run: not a warning each.
        logging.getLogger("onceflow.faults").setLevel(logging.ERROR)
        db = copy_store(self.source)
        sock = bind(self.settings)
        self.settings = replace(self.settings, port=sock.getsockname()[1])
        stack = Stack(self.settings, db)
        for setup in SETUPS:
            setup(stack)
        self.stack = stack
        self.ledger = stack.services["ledger"]  # installed by the setups, as in `onceflow serve`
        self.ledger.collect()
        app = build_app(stack)
        config = uvicorn.Config(app, log_level="error", lifespan="on", loop="asyncio", access_log=False,
                                proxy_headers=False, server_header=False, timeout_graceful_shutdown=5)
        self._server = uvicorn.Server(config)
        ready = threading.Event()
        failed: list[BaseException] = []

        def serve() -> None:
            try:
                asyncio.run(self._serve(sock, ready))
            except BaseException as exc:  # reported by start(), not lost in the thread
                failed.append(exc)
                ready.set()

        self._thread = threading.Thread(target=serve, name="onceflow-prove-server", daemon=True)
        self._thread.start()
        ready.wait(60)
        if failed or not ready.is_set():
            self.close()
            raise ProveError(f"the private server did not start: {failed[0] if failed else 'timeout'}")
        for hook in stack.on_start:
            hook()
        self._warm_lambda(stack)
        return self

    @staticmethod
    def _warm_lambda(stack: Stack) -> None:
        """Start the Lambda zygotes now, not in the background: the baseline's first invocation
        must not pay a second of interpreter start inside a Task timeout the time scale shortened."""
        lam = stack.ports.functions.get()
        if lam is None:
            return
        invoker = lam.invoker
        for runtime in invoker.service.store.runtimes_in_use():
            try:
                invoker.pool.warm_up(invoker.interpreters.get(runtime))
            except Exception:  # the first invocation starts it and reports the failure as Lambda would
                pass

    async def _serve(self, sock: Any, ready: threading.Event) -> None:
        assert self._server is not None
        task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.005)
        ready.set()
        await task

    def client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = boto3.session.Session().client(
                service, endpoint_url=self.url, region_name=self.settings.default_region, aws_access_key_id="test",
                aws_secret_access_key="test", config=CLIENT_CONFIG)
        return self._clients[service]

    def close(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(30)
        if self.stack is not None:
            for hook in reversed(self.stack.on_shutdown):
                try:
                    hook()
                except Exception:
                    pass  # a worker that will not stop must not hide the proof's result
            self.stack.db.close()
            self.stack = None
