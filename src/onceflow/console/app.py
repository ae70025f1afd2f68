"""The console's ASGI app: parse the request, route it, run the view in a thread, answer.

The wire layer forwards here every request that is not an AWS API call. Views are plain
functions (page: View) -> Response that read through the AWS APIs (console/aws.py) and render a
Jinja2 template with autoescaping. Nothing here changes state: the console only answers GET/HEAD,
so there is no form a cross-site request could abuse. Every answer carries a strict
Content-Security-Policy (scripts only from /static/), and the console only answers requests whose
Host the front door allows (wire/guard.py: loopback names and --allow-host), which stops
DNS-rebinding pages from reading it.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from onceflow.console import render
from onceflow.console.aws import Aws, NotFound, Unavailable
from onceflow.errors import ServiceError
from onceflow.stack import Stack
from onceflow.wire.guard import FrontDoor

log = logging.getLogger("onceflow.console")

ACCOUNT = re.compile(r"^\d{12}$")
REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d{1,2}$")
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [("content-security-policy", CSP), ("x-content-type-options", "nosniff"),
                    ("referrer-policy", "no-referrer"), ("x-frame-options", "DENY")]


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)


class HttpError(Exception):
    """A page-level answer other than 200: 400 for a bad parameter, 404 for a missing resource."""

    def __init__(self, status: int, title: str, detail: str = "") -> None:
        super().__init__(title)
        self.status, self.title, self.detail = status, title, detail


@dataclass
class View:
    """One console request, as a view sees it."""

    stack: Stack
    method: str
    path: str
    params: dict[str, str]
    aws: Aws
    match: dict[str, str]
    notes: list[str] = field(default_factory=list)  # "not available" notes shown on the page

    @property
    def account(self) -> str:
        return self.aws.account

    @property
    def region(self) -> str:
        return self.aws.region

    def arg(self, name: str, default: str = "") -> str:
        return self.params.get(name, default)

    def url(self, path: str, **query: Any) -> str:
        return render.url_for(self, path, **query)

    def page(self, template: str, http_status: int = 200, **context: Any) -> Response:
        body = render.page(self, template, **context)
        return Response(http_status, body.encode("utf-8"))

    def json(self, value: Any) -> Response:
        return Response(200, render.json_bytes(value), "application/json")

    def optional(self, fn: Callable[..., Any], default: Any = None) -> Any:
        """Run fn; when it needs an operation onceflow lacks, note that and return default."""
        try:
            return fn()
        except Unavailable as exc:
            note = f"{exc.service} {exc.operation} is not available in this onceflow yet"
            if note not in self.notes:
                self.notes.append(note)
            return default


Handler = Callable[[View], Response]


class ConsoleApp:
    def __init__(self, stack: Stack, routes: list[tuple[str, Handler]]) -> None:
        self.stack = stack
        self.routes = [(re.compile(f"^{pattern}$"), handler) for pattern, handler in routes]
        self.static = _static_files()
        self.door = FrontDoor(stack.settings)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        response = await self.respond(scope)
        if scope["method"] == "HEAD":
            response = Response(response.status, b"", response.content_type, response.headers)
        await _send(send, response)

    async def respond(self, scope: dict[str, Any]) -> Response:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if not self.door.host_allowed(headers.get("host", "")):
            return _plain(403, "This console only answers requests addressed to a loopback host name or a name "
                               "allowed with --allow-host.")
        path = scope.get("path", "/")
        if scope["method"] not in ("GET", "HEAD"):
            return Response(405, b"The console is read-only: it answers GET and HEAD only.", "text/plain",
                            [("allow", "GET, HEAD")])
        if path.startswith("/static/"):
            return self._static(path.removeprefix("/static/"))
        query = scope.get("query_string", b"").decode("latin-1")
        started = time.perf_counter()
        response = await asyncio.to_thread(self._dispatch, path, query)
        # Server-Timing lets the browser's devtools and bench/ read the time spent building the page.
        response.headers.append(("server-timing", f"app;dur={(time.perf_counter() - started) * 1000:.1f}"))
        return response

    def _dispatch(self, path: str, query: str) -> Response:
        params = {k: v[0] for k, v in parse_qs(query, keep_blank_values=True, errors="replace").items()}
        settings = self.stack.settings
        account = params.get("account") or settings.account_id
        region = params.get("region") or settings.default_region
        view = View(self.stack, "GET", path, params, Aws(self.stack, account, region), {})
        try:
            if not ACCOUNT.match(account):
                raise HttpError(400, "Bad account", "An account id is 12 digits.")
            if not REGION.match(region):
                raise HttpError(400, "Bad region", "A region looks like us-east-1.")
            for pattern, handler in self.routes:
                found = pattern.match(path)
                if found:
                    view.match = found.groupdict()  # the ASGI path is already percent-decoded
                    return handler(view)
            raise HttpError(404, "Page not found", f"There is no console page at {path}.")
        except HttpError as exc:
            return view.page("error.html", exc.status, title=exc.title, detail=exc.detail)
        except NotFound as exc:
            return view.page("error.html", 404, title="Not found", detail=str(exc))
        except Unavailable as exc:
            return view.page("error.html", 501, title="Not available", detail=str(exc))
        except ServiceError as exc:
            status = exc.status if 400 <= exc.status < 500 else 502
            return view.page("error.html", status, title=exc.code, detail=exc.message)
        except Exception:
            log.exception("console page %s failed", path)
            return view.page("error.html", 500, title="Internal error",
                             detail="The page could not be built; the server log has the details.")

    def _static(self, name: str) -> Response:
        body = self.static.get(name)
        if body is None:
            return _plain(404, "No such static file.")
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype == "application/javascript":
            ctype += "; charset=utf-8"
        return Response(200, body, ctype, [("cache-control", "max-age=300")])


def _static_files() -> dict[str, bytes]:
    """Every file shipped in console/static/, read once: the console needs no build and no network."""
    root = resources.files("onceflow.console") / "static"
    return {f.name: f.read_bytes() for f in root.iterdir() if f.is_file()}


def _plain(status: int, text: str) -> Response:
    return Response(status, text.encode(), "text/plain; charset=utf-8")


async def _send(send: Any, response: Response) -> None:
    headers = [(b"content-type", response.content_type.encode()),
               (b"content-length", str(len(response.body)).encode())]
    names = {name for name, _ in response.headers}
    extra = list(response.headers) + [(k, v) for k, v in SECURITY_HEADERS if k not in names]
    if "cache-control" not in names:
        extra.append(("cache-control", "no-store"))
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})
