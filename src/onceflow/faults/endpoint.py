"""`/_onceflow/faults`: GET the rules with their counts, POST a set (replaces it), PATCH rules onto
it, DELETE it (or, with a body, the rules given). The body is `{"rules": [...]}` or, as the Chaos
API's is, a bare list of rules. Runs in the thread pool (it writes the store)."""

from __future__ import annotations

import ipaddress
import json
from typing import Any
from urllib.parse import urlsplit

from onceflow.faults.engine import Faults
from onceflow.faults.rules import RuleError
from onceflow.wire.request import Request, Response

PATH = "/_onceflow/faults"


def answer(faults: Faults, request: Request) -> Response:
    method = request.method
    if method in ("GET", "HEAD"):
        return _json(200, {"rules": faults.views()})
    if method not in ("POST", "PUT", "PATCH", "DELETE"):
        return _json(405, {"message": f"{method} is not answered at {PATH}"})
    refused = _guard(request)
    if refused is not None:
        return refused
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


def _guard(request: Request) -> Response | None:
    """As for /_onceflow/reset: only the user's own tools on this machine change the rules, never
    a web page (a foreign Origin) nor a name that merely resolves here (DNS rebinding: the Host)."""
    if not _is_loopback(request.client_host) or not _loopback_name(request.headers.get("host", "")):
        return _json(403, {"message": "fault rules are only changed on loopback"})
    origin = request.headers.get("origin")
    if origin is not None and not _loopback_name(urlsplit(origin).netloc if "://" in origin else ""):
        return _json(403, {"message": f"fault rules are not changed for the web origin {origin}"})
    return None


def _loopback_name(host: str) -> bool:
    name = host.rsplit("]", 1)[0].lstrip("[") if host.startswith("[") else host.rsplit(":", 1)[0]
    return name == "localhost" or name.endswith(".localhost") or _is_loopback(name)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
