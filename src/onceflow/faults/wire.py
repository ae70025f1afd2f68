"""Faults on HTTP calls: what wire/execution.py runs instead of its usual path for a call that some
rule may match. The decision and the handler run in the thread pool (they write the store);
waits (`latency_ms`, `timeout`) are asyncio sleeps, so other clients are served meanwhile.

- before: the fault answers first (after its latency); the handler never runs.
- after: the handler runs and commits (a thread's commit is synced when it ends), then the
  latency, then the rule's error replaces the answer - a lost response.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.faults.engine import HTTP_HOLD_S, Fire
from onceflow.longpoll import LongPoll

if TYPE_CHECKING:
    from onceflow.faults.ports import FaultRules
    from onceflow.wire.execution import Call, Execution
    from onceflow.wire.request import Response


@dataclass(slots=True)
class FaultedCall:
    """begin()'s outcome for a call with candidate rules: complete() hands it to `run`."""

    call: Call
    receive: Any = None  # the ASGI receive: it reports the client's disconnect


async def run(app: Execution, faulted: FaultedCall, faults: FaultRules) -> Response:
    call = faulted.call
    ctx = call.ctx
    loop = asyncio.get_running_loop()
    fire: Fire | None = await loop.run_in_executor(app.executor, faults.decide, ctx, call.params)
    if fire is None:
        return await app.finish(call)
    rule = fire.rule
    if rule.when == "before":
        await _wait(rule.latency_ms / 1000, rule.timeout, faulted.receive)
        err = fire.error()
        if err is not None:
            return app.error(call.found.spec, err, ctx.request_id)
        return await app.finish(call)
    executor = app.executor_for(ctx)

    def effect() -> Any:
        return fire.after_effect(lambda: app.invoke(call))

    try:
        result = await loop.run_in_executor(executor, effect)
        if isinstance(result, LongPoll):  # an SQS long poll waits on the loop, as in Execution.finish
            result = await result.run(app.executor)
    except ServiceError as own:  # the call failed by itself: its own error is the answer
        return app.error(call.found.spec, own, ctx.request_id)
    except Exception:
        return app.failure(call.found, ctx.request_id)
    await _wait(rule.latency_ms / 1000, rule.timeout, faulted.receive)
    err = fire.error()
    if err is not None:
        return app.error(call.found.spec, err, ctx.request_id)
    return app.render(call.found, result, ctx.request_id)


async def _wait(latency_s: float, hold: bool, receive: Any) -> None:
    if latency_s > 0:
        await asyncio.sleep(latency_s)
    if hold:  # until the client gives up (its read timeout): the answer then goes nowhere
        try:
            await asyncio.wait_for(_gone(receive), HTTP_HOLD_S)
        except TimeoutError:
            pass


async def _gone(receive: Any) -> None:
    """Return once the client has closed the connection (the body was read already)."""
    if receive is None:  # called without ASGI (AwsApp.handle): nothing tells; hold the whole time
        await asyncio.sleep(HTTP_HOLD_S)
        return
    while (await receive()).get("type") != "http.disconnect":
        pass
