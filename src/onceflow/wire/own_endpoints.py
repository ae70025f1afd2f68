"""onceflow's own endpoints under /_onceflow/ (health, reset, faults, time scale, mock config) and
moto's reset path. Anything that changes state answers only the user's own tools on this machine
(guard.py own_tool_refusal), never a web page; work that may block is Deferred to the thread pool."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from onceflow import __version__
from onceflow.faults import endpoint as faults_endpoint
from onceflow.stack import Stack
from onceflow.wire import mock_config, time_scale
from onceflow.wire.execution import Deferred
from onceflow.wire.guard import FrontDoor
from onceflow.wire.request import Request, Response

PREFIX = "/_onceflow/"
MOTO_RESET = "/moto-api/reset"
# Settings anyone may read and only the user's own tools may change: path -> (what, endpoint).
SETTINGS: dict[str, tuple[str, Callable[[Stack, Request], Response]]] = {
    time_scale.PATH: ("the time scale", time_scale.answer),
    mock_config.PATH: ("the mock configuration", mock_config.answer),
}


def claims(request: Request) -> bool:
    return request.path.startswith(PREFIX) or moto_reset(request)


def moto_reset(request: Request) -> bool:
    """moto's server-mode test harness resets its server with an unsigned POST /moto-api/reset before
    each test: answered as /_onceflow/reset, so suites written for moto run against onceflow as they
    are. Signed requests to that path stay S3 calls (a bucket may be named moto-api)."""
    return (request.path == MOTO_RESET and "authorization" not in request.headers
            and "X-Amz-Signature" not in request.query_string)


def answer(stack: Stack, services: list[str], door: FrontDoor, faults: Any, request: Request) -> Response | Deferred:
    """`faults` is the fault injection rules (onceflow.faults) when set up, else None."""
    if request.path == "/_onceflow/health" and request.method in ("GET", "HEAD"):
        body = {"status": "running", "version": __version__, "services": {name: "running" for name in services}}
        return Response(200, json.dumps(body).encode())
    if request.path == "/_onceflow/reset" or moto_reset(request):
        if request.method != "POST":
            return Response(405, b'{"message":"reset takes POST"}', [("allow", "POST")])
        refused = door.own_tool_refusal(request, "reset")  # it wipes everything
        if refused is not None:
            return _forbidden(refused)
        return Deferred(lambda: _reset(stack))  # reset hooks may wait (workers stopping): not on the loop
    if request.path == faults_endpoint.PATH and faults is not None:
        return Deferred(lambda: faults_endpoint.answer(faults, request, door))
    settings = SETTINGS.get(request.path)
    if settings is not None:
        what, serve = settings
        if request.method not in ("GET", "HEAD"):
            refused = door.own_tool_refusal(request, what)
            if refused is not None:
                return _forbidden(refused)
        return Deferred(lambda: serve(stack, request))
    return Response(404, b'{"message":"Unknown onceflow endpoint"}')


def _forbidden(message: str) -> Response:
    return Response(403, json.dumps({"message": message}).encode())


def _reset(stack: Stack) -> Response:
    stack.reset()
    return Response(200, b'{"reset":true}')
