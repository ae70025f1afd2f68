"""A lean HTTP/1.1 server for the AWS endpoint: asyncio + httptools, straight into AwsApp.

Why not an ASGI server: for a call that costs onceflow ~0.05 ms, uvicorn's per-request machinery
(a task, scope and message dicts, header and body written separately) costs ~0.2 ms of CPU, and
writing the response in two segments adds a scheduling round trip on the client. Here a request
is parsed by httptools, handed to `AwsApp.begin` on the loop, and its response leaves in one write;
only calls that must wait (the thread pool, the console) get a task. Keep-alive and pipelining are
supported (responses go out in request order); bodies beyond the app's limit are refused with 413.

Shutdown: `shutdown()` stops accepting, closes idle connections, lets in-flight requests finish
(up to a timeout), then closes what is left and the app's thread pool.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from collections import deque
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from http import HTTPStatus
from typing import Any
from urllib.parse import unquote

import httptools

from onceflow.wire.app import AwsApp
from onceflow.wire.request import Request, Response

log = logging.getLogger("onceflow.http")

_REASONS = {s.value: s.phrase for s in HTTPStatus}
KEEP_ALIVE_TIMEOUT = 120.0  # seconds an idle keep-alive connection is kept open


def encode_response(response: Response, keep_alive: bool, date: bytes, head_only: bool = False) -> bytes:
    """Status line, headers and body as the one buffer written to the socket."""
    body = response.body
    status = response.status
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Unknown')}\r\n".encode("latin-1"), date]
    if status not in (204, 304) and not 100 <= status < 200:
        lines.append(b"Content-Type: " + response.content_type.encode("latin-1") + b"\r\n")
        lines.append(b"Content-Length: " + str(len(body)).encode() + b"\r\n")
    for name, value in response.headers:
        lines.append(f"{name}: {value}\r\n".encode("latin-1"))
    if not keep_alive:
        lines.append(b"Connection: close\r\n")
    lines.append(b"\r\n")
    if body and not head_only and status not in (204, 304):
        lines.append(body)
    return b"".join(lines)


class _Clock:
    """The Date header, formatted once per second."""

    def __init__(self) -> None:
        self.second = -1
        self.header = b""

    def date(self, loop: asyncio.AbstractEventLoop) -> bytes:
        now = int(loop.time())
        if now != self.second:
            self.second = now
            self.header = b"Date: " + formatdate(usegmt=True).encode() + b"\r\n"
        return self.header


class HttpProtocol(asyncio.Protocol):
    """One client connection. Requests are answered strictly in order."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.app = server.app
        self.loop = server.loop
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.client = ""
        self.queue: deque[tuple[Request, bool]] = deque()
        self.busy = False  # a response is being produced (on the loop or in a task)
        self.closing = False
        self.idle_timer: asyncio.TimerHandle | None = None
        self._reset()

    # ----------------------------------------------------------------- connection
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.client = peer[0] if isinstance(peer, tuple) else ""
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.connections.add(self)
        self.idle_timer = self.loop.call_later(KEEP_ALIVE_TIMEOUT, self.close_when_idle)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closing = True
        if self.idle_timer is not None:
            self.idle_timer.cancel()
        self.queue.clear()
        self.server.connections.discard(self)
        self.server.check_idle()

    def data_received(self, data: bytes) -> None:
        if self.idle_timer is not None:
            self.idle_timer.cancel()
            self.idle_timer = None
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail(400, b"Upgrade is not supported")
        except httptools.HttpParserError:  # also wraps exceptions raised in the callbacks below
            if self.too_large:
                self._fail(413, b'{"message":"Request entity too large"}')
            else:
                self._fail(400, b"Malformed HTTP request")

    def idle(self) -> bool:
        return not self.busy and not self.queue

    def close_when_idle(self) -> None:
        self.closing = True
        if self.idle() and self.transport is not None:
            self.transport.close()

    # ----------------------------------------------------------------- httptools callbacks
    def _reset(self) -> None:
        self.url = b""
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.size = 0
        self.too_large = False

    def on_message_begin(self) -> None:
        self._reset()

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        self.headers[key] = f"{self.headers[key]}, {text}" if key in self.headers else text

    def on_headers_complete(self) -> None:
        length = self.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.app.hard_limit:
            self.too_large = True
            raise _TooLarge()
        if self.headers.get("expect", "").lower() == "100-continue" and self.transport is not None:
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self.size += len(body)
        if self.size > self.app.hard_limit:
            self.too_large = True
            raise _TooLarge()
        self.body.append(body)

    def on_message_complete(self) -> None:
        raw_path, _, query = self.url.decode("latin-1").partition("?")
        request = Request(self.parser.get_method().decode("ascii"), unquote(raw_path), raw_path, query,
                          self.headers, b"".join(self.body), self.client)
        self.queue.append((request, self.parser.should_keep_alive()))
        if not self.busy:
            self._next()

    # ----------------------------------------------------------------- answering
    def _next(self) -> None:
        """Answer queued requests in order: inline when the app can, else in a task that resumes here."""
        while self.queue and not self.closing:
            request, keep_alive = self.queue.popleft()
            try:
                outcome = self.app.begin(request)
            except Exception:  # begin renders every error itself; this is a last resort
                log.exception("request failed")
                outcome = Response(500, b'{"message":"Internal server error"}')
            if isinstance(outcome, Response):
                self._write(request, outcome, keep_alive)
                continue
            self.busy = True
            task = self.loop.create_task(self._finish(request, outcome, keep_alive))
            self.server.tasks.add(task)
            task.add_done_callback(self.server.task_done)
            return
        if self.closing and self.transport is not None and not self.busy:
            self.transport.close()
        elif self.idle() and self.idle_timer is None:
            # Drop connections idle for long (clients reuse theirs within seconds; a long timeout keeps
            # the race between our close and a client's next request rare).
            self.idle_timer = self.loop.call_later(KEEP_ALIVE_TIMEOUT, self.close_when_idle)

    async def _finish(self, request: Request, outcome: Any, keep_alive: bool) -> None:
        try:
            response = await self.app.respond_later(request, outcome)
        except Exception:
            log.exception("request failed")
            response = Response(500, b'{"message":"Internal server error"}')
        self.busy = False
        if self.transport is not None and not self.transport.is_closing():
            self._write(request, response, keep_alive)
            self._next()

    def _write(self, request: Request, response: Response, keep_alive: bool) -> None:
        assert self.transport is not None
        keep_alive = keep_alive and not self.server.stopping
        data = encode_response(response, keep_alive, self.server.clock.date(self.loop), request.method == "HEAD")
        self.transport.write(data)
        if not keep_alive:
            self.closing = True
            self.queue.clear()
            self.transport.close()

    def _fail(self, status: int, body: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            response = Response(status, body, content_type="text/plain" if status != 413 else "application/json")
            self.transport.write(encode_response(response, False, self.server.clock.date(self.loop)))
            self.transport.close()
        self.closing = True


class _TooLarge(Exception):
    pass


class HttpServer:
    """Serves an AwsApp on listening sockets until `shutdown()`."""

    def __init__(self, app: AwsApp) -> None:
        self.app = app
        self.loop = asyncio.get_running_loop()
        self.connections: set[HttpProtocol] = set()
        self.tasks: set[asyncio.Task[None]] = set()
        self.clock = _Clock()
        self.stopping = False
        self._servers: list[asyncio.base_events.Server] = []
        self._idle = asyncio.Event()

    async def start(self, sock: socket.socket) -> None:
        server = await self.loop.create_server(lambda: HttpProtocol(self), sock=sock, backlog=2048)
        self._servers.append(server)

    def task_done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        self.check_idle()

    def check_idle(self) -> None:
        if self.stopping and all(c.idle() for c in self.connections) and not self.tasks:
            self._idle.set()

    async def shutdown(self, timeout: float = 30.0) -> None:
        """Stop accepting; let in-flight requests finish; close every connection; stop the thread pool."""
        self.stopping = True
        for server in self._servers:
            server.close()
        for conn in list(self.connections):
            conn.close_when_idle()
        self.check_idle()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("shutdown: %d requests still running after %.0fs", len(self.tasks), timeout)
        for conn in list(self.connections):
            if conn.transport is not None:
                conn.transport.close()
        for server in self._servers:
            await server.wait_closed()
        await self.loop.run_in_executor(None, self.app.close)


async def serve(app: AwsApp, sock: socket.socket, *, before_ready: Callable[[], Awaitable[None]] | None = None,
                ready: Callable[[], None] | None = None, shutdown_timeout: float = 30.0) -> None:
    """Serve on `sock` until SIGINT or SIGTERM, then shut down cleanly (in-flight requests finish).

    `before_ready` runs once the socket accepts (e.g. the stack's on_start hooks), then `ready`
    (e.g. print the ready line).
    """
    loop = asyncio.get_running_loop()
    server = HttpServer(app)
    await server.start(sock)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        if before_ready is not None:
            await before_ready()
        if ready is not None:
            ready()
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await server.shutdown(shutdown_timeout)
