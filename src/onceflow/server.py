"""The composition root: open the store, build every service, serve the ASGI app with uvicorn."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import uvicorn

from onceflow.config import Settings
from onceflow.stack import ServiceSetup, Stack
from onceflow.store.db import Database
from onceflow.wire.app import AwsApp
from onceflow.wire.connections import guarded_protocol, raise_fd_limit
from onceflow.wire.json_calls import make_json_caller
from onceflow.wire.specs import Specs

log = logging.getLogger("onceflow")

# Run in this order when all run at start (later services look up earlier ones in stack.services).
# A setup with names waits for the first lookup of one of them (stack.py, Stack.defer) while its
# tables hold no row (in memory, a new data folder, a service never used): a request imports and
# migrates only the services it uses. A service with state is set up at start, so that executions,
# deliveries, schedules and pollers resume then. Those without names always run at start: IAM and STS
# (every request's credentials and authorization), fault rules (every call), the ledger (wraps
# handlers as they register), the console.
SETUPS: list[ServiceSetup] = [
    ServiceSetup("onceflow.iam"),
    ServiceSetup("onceflow.sts"),  # on the ports IAM publishes: after it
    ServiceSetup("onceflow.logs", ("logs",), "logs_"),
    ServiceSetup("onceflow.ddb", ("dynamodb",), "ddb_"),
    ServiceSetup("onceflow.ddbstreams", ("dynamodbstreams",), "ddb_"),
    ServiceSetup("onceflow.s3", ("s3",), "s3_"),
    ServiceSetup("onceflow.lambda_", ("lambda", "lambda_urls"), "lambda_"),
    ServiceSetup("onceflow.sqs", ("sqs",), "sqs_"),
    ServiceSetup("onceflow.sns", ("sns",), "sns_"),
    ServiceSetup("onceflow.sfn", ("stepfunctions",), "sfn_"),
    ServiceSetup("onceflow.faults"),
    ServiceSetup("onceflow.prove.ledger"),
    ServiceSetup("onceflow.events", ("events", "events_clock"), "events_"),
    ServiceSetup("onceflow.scheduler", ("scheduler",), "scheduler_"),
    ServiceSetup("onceflow.cloudformation", ("cloudformation",), "cfn_"),
    ServiceSetup("onceflow.console"),
]


class StartupError(Exception):
    """A problem the user can fix (port in use, unusable data folder); printed without a trace."""


def build_stack(settings: Settings, *, lazy: bool = True) -> Stack:
    """The stack with every service; `lazy` defers the setups of services without state (SETUPS)."""
    if not settings.in_memory and settings.data_dir is not None:
        try:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            settings.data_dir.chmod(0o700)  # the database holds secret keys: the server's eyes only
        except OSError as exc:
            raise StartupError(f"cannot create the data folder {settings.data_dir}: {exc}") from exc
    stack = Stack(settings, Database(settings.database_path))
    with_rows = stack.db.tables_with_rows() if lazy else set()
    for setup in SETUPS:
        if lazy and setup.provides and not setup.has_state(with_rows):
            stack.defer(setup)
        else:
            setup(stack)
    return stack


def build_app(stack: Stack) -> AwsApp:
    specs = Specs()
    stack.call_from_json = make_json_caller(stack, specs)
    return AwsApp(stack, specs, console=stack.services.get("console_app"))


def bind(settings: Settings) -> socket.socket:
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it Nagle holds the body back behind the headers
    # and the client's delayed ACK adds ~40 ms to every call on a kept-alive connection.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        raise StartupError(f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}") from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def run_loop(main: Coroutine[Any, Any, None], event_loop: str) -> None:
    """Run the server's coroutine on asyncio's own loop or, with `--event-loop uvloop`, on uvloop's
    (libuv: fewer Python frames per request and per socket event; the same asyncio API)."""
    if event_loop == "uvloop":
        import uvloop  # the CLI checked it is installed

        uvloop.run(main)
    else:
        asyncio.run(main)


class Server:
    """One running onceflow: `run()` blocks until SIGINT/SIGTERM, then shuts down cleanly."""

    def __init__(self, settings: Settings, on_ready: Callable[[Settings, Stack], None] | None = None) -> None:
        self.settings = settings
        self.on_ready = on_ready or _print_ready

    def run(self) -> None:
        sock, stack, server = self._prepare()
        # uvicorn re-raises the signal it caught once it has drained; make that a no-op so the
        # cleanup below always runs (the default SIGTERM action would kill us mid-way).
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: None)
        try:
            run_loop(self._serve(server, sock, stack), self.settings.event_loop)
        finally:
            _clean_up(stack, sock)

    def _prepare(self) -> tuple[socket.socket, Stack, uvicorn.Server]:
        sock = bind(self.settings)
        port = sock.getsockname()[1]
        if port != self.settings.port:
            from dataclasses import replace

            self.settings = replace(self.settings, port=port)
        try:
            stack = build_stack(self.settings)
        except BaseException:
            sock.close()
            raise
        app = self.app = build_app(stack)
        # No proxy headers: onceflow is called directly, and a client must not choose its own source
        # IP (aws:SourceIp) with X-Forwarded-For; skipping the middleware also saves ~0.03 ms a call.
        # Connections are bounded (wire/connections.py): a deadline for each request's head, uvicorn's
        # keep-alive timeout for idle ones, and a cap that leaves file descriptors for everything else.
        files = raise_fd_limit()
        protocol = guarded_protocol(self.settings.header_timeout_s, max(64, min(files - 256, files * 9 // 10)))
        config = uvicorn.Config(app, log_level="warning", lifespan="on", http=protocol, loop="asyncio",
                                access_log=False, timeout_graceful_shutdown=30, proxy_headers=False,
                                server_header=False,
                                timeout_keep_alive=self.settings.keep_alive_s)  # type: ignore[arg-type]  # a float works
        return sock, stack, uvicorn.Server(config)

    async def _serve(self, server: uvicorn.Server, sock: socket.socket, stack: Stack) -> None:
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.002)  # uvicorn sets `started` without an event to wait on
        loop = asyncio.get_running_loop()
        for hook in stack.start():
            await loop.run_in_executor(None, hook)
        self.on_ready(self.settings, stack)
        while not task.done() and not server.should_exit:
            await asyncio.wait({task}, timeout=0.05)
        if not task.done():  # a signal: uvicorn drains connections; tell the parts that must end work
            for hook in stack.on_stopping:
                loop.run_in_executor(None, _logged(hook))
        await task


class ThreadedServer(Server):
    """A server on a daemon thread of the calling process (the testing API's in-process mode: no
    interpreter to start, no second import of onceflow). It installs no signal handlers; `stop()`
    drains it as a signal would and runs the same shutdown hooks."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, on_ready=lambda *_: self._ready.set())
        self._ready = threading.Event()
        self._failed: list[BaseException] = []
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 60.0) -> str:
        """Serve and return the endpoint once the server answers (raises StartupError)."""
        sock, stack, server = self._prepare()
        self._server = server

        def serve() -> None:
            try:
                run_loop(self._serve(server, sock, stack), self.settings.event_loop)
            except BaseException as exc:  # reported by start(), not lost in the thread
                self._failed.append(exc)
            finally:
                _clean_up(stack, sock)
                self._ready.set()

        self._thread = threading.Thread(target=serve, name="onceflow-server", daemon=True)
        self._thread.start()
        self._ready.wait(timeout)
        if self._failed or not self._ready.is_set() or not self._thread.is_alive():
            self.stop()
            why = self._failed[0] if self._failed else f"no answer within {timeout:g} s"
            raise StartupError(f"the onceflow server did not start: {why}")
        return self.settings.endpoint_url

    def stop(self, timeout: float = 30.0) -> None:
        if self._server is not None:
            self._server.should_exit = True  # _serve then runs the stopping hooks, uvicorn drains
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


def _clean_up(stack: Stack, sock: socket.socket) -> None:
    for hook in reversed(stack.on_shutdown):
        try:
            hook()
        except Exception:
            log.exception("shutdown hook failed")
    stack.db.close()
    sock.close()


def _logged(hook: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            hook()
        except Exception:
            log.exception("stopping hook failed")
    return run


def _print_ready(settings: Settings, stack: Stack) -> None:
    where = "in memory" if settings.in_memory else str(settings.data_dir)
    print(f"onceflow ready at {settings.endpoint_url} (data: {where})", flush=True)
    sys.stdout.flush()
