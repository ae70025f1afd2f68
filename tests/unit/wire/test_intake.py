"""Reading bodies within bounds (wire/intake.py): the size limit while streaming, the per-piece
deadline, and the budget shared by all bodies in flight."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from onceflow.wire.intake import BodyBudget, Busy, TimedOut, TooLarge, drain, read_body


def pieces(*chunks: bytes, stall: bool = False) -> Callable[[], Awaitable[dict[str, Any]]]:
    """An ASGI receive handing out `chunks`, then (stall=True) never sending the rest."""
    queue = list(chunks)
    given: list[int] = []

    async def receive() -> dict[str, Any]:
        if not queue:
            if stall:
                await asyncio.Event().wait()
            return {"type": "http.disconnect"}
        chunk = queue.pop(0)
        given.append(len(chunk))
        return {"type": "http.request", "body": chunk, "more_body": bool(queue) or stall}

    receive.given = given  # type: ignore[attr-defined]
    return receive


def test_a_body_is_read_whole_within_its_limit() -> None:
    assert asyncio.run(read_body(pieces(b"ab", b"cd", b"e"), 5, 1.0)) == b"abcde"
    assert asyncio.run(read_body(pieces(b"whole"), 5, 1.0)) == b"whole"


def test_reading_stops_as_soon_as_the_limit_is_passed() -> None:
    receive = pieces(b"aaaa", b"bbbb", b"cccc", b"dddd")
    with pytest.raises(TooLarge):
        asyncio.run(read_body(receive, 6, 1.0))
    assert receive.given == [4, 4]  # type: ignore[attr-defined]  # the rest was never asked for


def test_a_half_sent_body_times_out() -> None:
    with pytest.raises(TimedOut):
        asyncio.run(read_body(pieces(b"{", stall=True), 100, 0.05))


def test_drain_drops_the_rest_and_stops_at_the_end_or_the_deadline() -> None:
    receive = pieces(b"a", b"b", b"c")
    asyncio.run(drain(receive, 1.0))
    assert receive.given == [1, 1, 1]  # type: ignore[attr-defined]
    asyncio.run(drain(pieces(b"a", stall=True), 0.05))  # returns instead of waiting forever


def test_the_budget_makes_a_body_that_does_not_fit_wait_for_room() -> None:
    async def scenario() -> list[str]:
        budget, events = BodyBudget(100, wait_s=5), []
        first = await budget.take(70)

        async def second() -> None:
            share = await budget.take(50)
            events.append(f"second got {share} with {budget.used} used")

        waiting = asyncio.create_task(second())
        await asyncio.sleep(0.01)
        events.append(f"second waiting: {not waiting.done()}")
        await budget.give_back(first)
        await waiting
        return events

    assert asyncio.run(scenario()) == ["second waiting: True", "second got 50 with 50 used"]


def test_the_budget_gives_up_after_its_wait_and_caps_a_share_at_the_whole() -> None:
    async def scenario() -> tuple[int, bool]:
        budget = BodyBudget(100, wait_s=0.05)
        whole = await budget.take(500)  # larger than the budget: it takes it all, alone
        try:
            await budget.take(1)
            refused = False
        except Busy:
            refused = True
        return whole, refused

    assert asyncio.run(scenario()) == (100, True)
