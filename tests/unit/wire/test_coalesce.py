"""The coalescing transport: a response's head and body leave in one write, a lone write at the
end of the loop's step, and nothing held is lost or reordered when the connection closes."""

from __future__ import annotations

import asyncio
from typing import Any

from onceflow.wire.coalesce import JOIN_LIMIT, CoalescingTransport


class Recorder:
    """The wrapped transport: records what it is asked to send and whether it was closed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5)}.get(name, default)


def run(steps: Any) -> Recorder:
    async def main() -> Recorder:
        inner = Recorder()
        await steps(CoalescingTransport(inner, asyncio.get_running_loop()), inner)  # type: ignore[arg-type]
        return inner

    return asyncio.run(main())


def test_head_and_body_written_together_go_out_as_one_write() -> None:
    async def steps(t: CoalescingTransport, inner: Recorder) -> None:
        t.write(b"HTTP/1.1 200 OK\r\n\r\n")
        assert inner.writes == []
        assert t.get_write_buffer_size() == 19
        t.write(b"{}")
        assert inner.writes == [b"HTTP/1.1 200 OK\r\n\r\n{}"]
        await asyncio.sleep(0)

    assert run(steps).writes == [b"HTTP/1.1 200 OK\r\n\r\n{}"]


def test_a_lone_write_leaves_at_the_end_of_the_loop_step() -> None:
    async def steps(t: CoalescingTransport, inner: Recorder) -> None:
        t.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await asyncio.sleep(0)
        assert inner.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
        t.write(b"a")
        t.write(b"b")
        t.write(b"c")
        await asyncio.sleep(0)

    assert run(steps).writes == [b"HTTP/1.1 100 Continue\r\n\r\n", b"ab", b"c"]


def test_a_large_body_is_not_copied_onto_the_head() -> None:
    body = b"x" * (JOIN_LIMIT + 1)

    async def steps(t: CoalescingTransport, inner: Recorder) -> None:
        t.write(b"head")
        t.write(body)

    assert run(steps).writes == [b"head", body]


def test_close_sends_what_is_held_first_and_abort_drops_it() -> None:
    async def closing(t: CoalescingTransport, inner: Recorder) -> None:
        t.write(b"last words")
        t.close()
        assert inner.writes == [b"last words"] and inner.closed
        await asyncio.sleep(0)

    assert run(closing).writes == [b"last words"]

    async def aborting(t: CoalescingTransport, inner: Recorder) -> None:
        t.write(b"never sent")
        t.abort()
        await asyncio.sleep(0)

    inner = run(aborting)
    assert inner.writes == [] and inner.aborted


def test_everything_else_is_the_wrapped_transports() -> None:
    async def steps(t: CoalescingTransport, inner: Recorder) -> None:
        assert t.get_extra_info("peername") == ("127.0.0.1", 5)
        assert t.get_extra_info("socket") is None
        assert t.is_closing() is False

    run(steps)
