"""A transport that sends a response's head and body in one segment.

uvicorn writes a response's status line and headers as soon as the app starts the response, then
the body in a second write: two send() calls, two TCP segments, and the client woken twice for one
answer (on a busy machine each wake-up can cost the server its CPU for milliseconds). Here the
first write is held and goes out with the next one, or at the end of the event loop's current
step if none follows (a streamed response's head, a 100 Continue), so nothing waits longer.
"""

from __future__ import annotations

import asyncio
from typing import Any

# Past this a later write goes out on its own after the held bytes: a copy to join it costs more
# than the extra send() saves.
JOIN_LIMIT = 64 * 1024


class CoalescingTransport:
    """Wraps an asyncio transport; everything but the writes is the wrapped transport's."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        held = self._held
        if held is None:
            self._held = bytes(data)
            self._loop.call_soon(self._flush)
            return
        self._held = None
        if len(data) > JOIN_LIMIT:
            self._transport.write(held)
            self._transport.write(data)
        else:
            self._transport.write(held + data)

    def writelines(self, lines: Any) -> None:
        for data in lines:
            self.write(data)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def write_eof(self) -> None:
        self._flush()
        self._transport.write_eof()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def __getattr__(self, name: str) -> Any:  # set_protocol, is_reading, write buffer limits...
        return getattr(self._transport, name)
