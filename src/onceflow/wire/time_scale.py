"""`/_onceflow/time-scale`: change `--time-scale` at run time, or skip waits, for tests.

GET answers `{"timeScale": x, "skipWaits": bool}`. POST takes either or both members:
`timeScale` (> 0) divides Step Functions' waits, retry intervals and timeouts, Lambda's
asynchronous retry delays and DynamoDB's point-in-time recovery lag, as `serve --time-scale`
does; `skipWaits: true` makes Wait states, Retry intervals and Lambda's asynchronous retry delays
end at once while timeouts keep their (scaled) length, so skipping a one-hour Wait does not time
out the task after it. Executions asleep are woken to time their wait again. Loopback only, as
reset (app.py checks it before calling here).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

from onceflow.stack import Stack
from onceflow.wire.request import Request, Response

PATH = "/_onceflow/time-scale"
# Lambda's asynchronous retry delays are divided by this while waits are skipped (1 minute -> 60 ns).
_SKIP_FACTOR = 1e9


def answer(stack: Stack, request: Request) -> Response:
    if request.method in ("GET", "HEAD"):
        return _json(200, state(stack))
    if request.method != "POST":
        return Response(405, b'{"message":"the time scale takes GET or POST"}', [("allow", "GET, POST")])
    try:
        body = json.loads(request.body or b"{}")
    except ValueError as exc:
        return _json(400, {"message": f"the body is not JSON: {exc}"})
    if not isinstance(body, dict) or not body or set(body) - {"timeScale", "skipWaits"}:
        return _json(400, {"message": 'the body is {"timeScale": number > 0, "skipWaits": boolean}'})
    scale = body.get("timeScale")
    skip = body.get("skipWaits")
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, int | float)
                              or not math.isfinite(scale) or scale <= 0):
        return _json(400, {"message": f"timeScale must be a number greater than 0, not {scale!r}"})
    if skip is not None and not isinstance(skip, bool):
        return _json(400, {"message": f"skipWaits must be true or false, not {skip!r}"})
    set_time_scale(stack, float(scale) if scale is not None else None, skip)
    return _json(200, state(stack))


def state(stack: Stack) -> dict[str, Any]:
    # Without setting Step Functions up: until something sets the scale, it would skip no waits.
    engine = getattr(stack.loaded("stepfunctions"), "engine", None)
    return {"timeScale": stack.settings.time_scale, "skipWaits": bool(getattr(engine, "skip_waits", False))}


def set_time_scale(stack: Stack, scale: float | None, skip_waits: bool | None) -> None:
    old = stack.settings.time_scale
    if scale is not None:
        stack.settings = replace(stack.settings, time_scale=scale)  # internal.call reads it per call
        if (clock := stack.ports.clock.get()) is not None:  # EventBridge's and Scheduler's waits
            clock.rescale(old, scale)
    engine = _engine(stack)
    if engine is not None:
        engine.set_time_scale(scale, skip_waits)
    lambda_api = stack.ports.functions.get()
    invoker = lambda_api.invoker if lambda_api is not None else None
    if invoker is not None:
        skipping = bool(getattr(engine, "skip_waits", False))
        invoker.time_scale = stack.settings.time_scale * (_SKIP_FACTOR if skipping else 1.0)


def _engine(stack: Stack) -> Any:
    return getattr(stack.services.get("stepfunctions"), "engine", None)


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(status, json.dumps(body).encode())
