"""`/_onceflow/faults`: GET the rules with their counts, POST a set (replaces it), PATCH rules onto
it, DELETE it (or, with a body, the rules given). The body is `{"rules": [...]}` or, as the Chaos
API's is, a bare list of rules. Runs in the thread pool (it writes the store)."""

from __future__ import annotations

import json
from typing import Any

from onceflow.faults.engine import Faults
from onceflow.faults.rules import RuleError
from onceflow.wire.guard import FrontDoor
from onceflow.wire.request import Request, Response

PATH = "/_onceflow/faults"


def answer(faults: Faults, request: Request, door: FrontDoor) -> Response:
    method = request.method
    if method in ("GET", "HEAD"):
        return _json(200, {"rules": faults.views()})
    if method not in ("POST", "PUT", "PATCH", "DELETE"):
        return _json(405, {"message": f"{method} is not answered at {PATH}"})
    refused = door.own_tool_refusal(request, "fault rules")  # as for /_onceflow/reset
    if refused is not None:
        return _json(403, {"message": refused})
    body: Any = None
    if request.body.strip():
        try:
            body = json.loads(request.body)
        except ValueError as exc:
            return _json(400, {"message": f"the body is not JSON: {exc}", "field": "rules"})
    try:
        if method == "DELETE":
            if body is None:
                faults.clear()
            else:
                faults.remove(body)
        elif method == "PATCH":
            faults.add(body if body is not None else [])
        else:
            faults.replace(body if body is not None else [])
    except RuleError as exc:
        return _json(400, {"message": exc.message, "field": exc.field})
    return _json(200, {"rules": faults.views()})


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(status, json.dumps(body).encode())


