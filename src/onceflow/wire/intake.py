"""Reading request bodies within bounds: each service's size limit (checked on Content-Length before
a byte is read, then counted while streaming), a budget for all bodies in flight together, and a
deadline for each piece of a body (a half-sent request does not hold its connection forever)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from onceflow.wire.request import Request

# Bodies under this size skip the budget: they are bounded by the number of connections already,
# and a DynamoDB call should not pay for a lock.
SMALL_BODY = 1024 * 1024
# An oversized body up to this size is read and dropped before the 413 goes out: a client still
# sending when the server closes gets a reset instead of the answer. Bigger ones are cut off.
DRAIN_LIMIT = 256 * 1024 * 1024


class TooLarge(Exception):
    pass


class TimedOut(Exception):
    pass


class Busy(Exception):
    """No room in the budget for this body within the wait."""


class BodyBudget:
    """The bytes of request bodies held at once. A request takes its share before reading its body
    and gives it back once answered; one that does not fit waits (first come, first served)."""

    def __init__(self, total: int, wait_s: float = 30.0) -> None:
        self.total = total
        self.used = 0
        self.wait_s = wait_s
        self._changed: asyncio.Condition | None = None

    async def take(self, size: int) -> int:
        size = min(size, self.total)  # a body the size of the whole budget waits until it is alone
        if self.used + size <= self.total and self._changed is None:
            self.used += size
            return size
        if self._changed is None:
            self._changed = asyncio.Condition()
        async with self._changed:
            try:
                await asyncio.wait_for(self._changed.wait_for(lambda: self.used + size <= self.total), self.wait_s)
            except TimeoutError:
                raise Busy() from None
            self.used += size
        return size

    async def give_back(self, size: int) -> None:
        self.used -= size
        if self._changed is not None:
            async with self._changed:
                self._changed.notify_all()


async def read_body(receive: Callable[[], Awaitable[dict[str, Any]]], limit: int, timeout_s: float) -> bytes:
    """The whole body, or TooLarge as soon as it passes `limit`, or TimedOut when the client stops
    sending for `timeout_s` (the deadline moves on with each piece that arrives)."""
    chunks: list[bytes] = []
    size = 0
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            while True:
                message = await receive()
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise TooLarge()
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
                deadline.reschedule(loop.time() + timeout_s)
    except TimeoutError:
        raise TimedOut() from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def drain(receive: Callable[[], Awaitable[dict[str, Any]]], timeout_s: float) -> None:
    """Read what is left of a body and drop it (nothing is kept: memory stays flat)."""
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout_s) as deadline:
            while (await receive()).get("more_body"):
                deadline.reschedule(loop.time() + timeout_s)
    except TimeoutError:
        return


async def take(request: Request, length: int | None, receive: Callable[[], Awaitable[dict[str, Any]]], limit: int,
               budget: BodyBudget, timeout_s: float) -> int:
    """Read `request`'s body into it within `limit`, holding a share of `budget` while it is big;
    returns the share to give back once answered. Raises TooLarge (refused on its Content-Length
    before a byte is kept, or as it passes the limit), Busy or TimedOut, with no share held."""
    if length is not None and length > limit:
        if length <= DRAIN_LIMIT and "100-continue" not in request.headers.get("expect", ""):
            await drain(receive, timeout_s)
        raise TooLarge()
    chunked = length is None and "transfer-encoding" in request.headers
    expected = limit if chunked else (length or 0)
    share = await budget.take(expected) if expected > SMALL_BODY else 0
    if not expected:
        return share
    try:
        request.body = await read_body(receive, limit, timeout_s)
    except (TooLarge, TimedOut) as refused:
        if share:
            await budget.give_back(share)
        if isinstance(refused, TooLarge):
            await drain(receive, timeout_s)
        raise
    return share
