"""Connections that cannot be held forever: uvicorn's httptools protocol with a deadline for each
request's line and headers (uvicorn has none: a client that sends half a request line keeps its
connection, and its file descriptor, until it goes away) and a cap on open connections. Each
response's head and body leave in one write (wire/coalesce.py).

Idle kept-alive connections are uvicorn's own `timeout_keep_alive`; half-sent bodies are
wire/intake.py's per-piece deadline.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from onceflow.wire.coalesce import CoalescingTransport

log = logging.getLogger("onceflow.wire")


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard one (as servers do) and return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def guarded_protocol(header_timeout_s: float, max_connections: int) -> type[asyncio.Protocol]:
    """An HttpToolsProtocol class closing connections whose request head does not arrive within
    `header_timeout_s`, and refusing connections beyond `max_connections` (the rest of the file
    descriptors stay for the database, the workers and the clients already connected)."""

    class GuardedHttpTools(HttpToolsProtocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            # uvicorn keeps the transport it is given: every response then goes out in one segment.
            super().connection_made(CoalescingTransport(transport, self.loop))  # type: ignore[arg-type]  # duck-typed
            if len(self.connections) > max_connections:
                log.warning("refusing a connection: %d are open already", len(self.connections) - 1)
                transport.abort()
                return
            self._arm()

        def _arm(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_timeout_s, self._head_timed_out)

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            # A request's first bytes on a kept-alive connection: its head is due within the deadline.
            if self._head_timer is None and (self.cycle is None or self.cycle.response_complete):
                self._arm()
            super().data_received(data)

        def on_headers_complete(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().connection_lost(exc)

    return GuardedHttpTools
