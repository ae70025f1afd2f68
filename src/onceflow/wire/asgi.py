"""The ASGI edge: a request's head from the scope, an answer onto the socket, the lifespan."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from onceflow.wire.request import Request, Response

ASGIApp = Callable[[dict[str, Any], Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]]
Headers = tuple[tuple[str, str], ...] | list[tuple[str, str]]

CLOSE = (("connection", "close"),)  # after a body left unread: the connection cannot carry another request


def head(scope: dict[str, Any]) -> Request:
    """The request as its headers describe it; the body is read later, within bounds."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    client = scope.get("client") or ("", 0)
    server = scope.get("server") or ("", 0)
    raw_path = scope.get("raw_path") or scope["path"].encode()
    return Request(scope["method"], scope["path"], raw_path.decode("latin-1"),
                   scope.get("query_string", b"").decode("latin-1"), headers, b"", client[0], client[1] or 0,
                   server[1] or 0)


def content_length(headers: dict[str, str]) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    try:
        return max(int(value), 0)
    except ValueError:
        return None  # h11/httptools refuse a malformed length before we see the request


async def send_response(send: Any, response: Response, extra: Headers = ()) -> None:
    # A 204 has no body and no Content-Length (RFC 9110 6.4.1, 8.6): a client reads none, so any byte
    # sent (DeleteFunction's "{}") would be read as the start of the next response on the connection.
    if response.status == 204:
        response = Response(204, b"", response.headers, response.content_type)
    headers = [(b"content-type", response.content_type.encode())]
    if response.status != 204:
        headers.append((b"content-length", str(len(response.body)).encode()))
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


def replay(body: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
    """An ASGI receive that hands over a body already read (for the console app)."""
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def lifespan(receive: Any, send: Any, on_shutdown: Callable[[], None]) -> None:
    while True:
        try:
            message = await receive()
        except asyncio.CancelledError:
            return  # a second Ctrl-C: uvicorn exits at once; nothing of ours to tidy here
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            on_shutdown()
            await send({"type": "lifespan.shutdown.complete"})
            return
