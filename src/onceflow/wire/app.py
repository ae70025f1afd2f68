"""The ASGI application: the whole request pipeline, in order, on one screen.

    read body -> route (target / REST path / query Action) -> parse against the model
    -> identify the caller (access key -> principal, scope -> region) -> authorize -> handler
    -> render the result or the error in the protocol's shape

Handlers are plain functions; they run in a thread pool so a slow one (a Lambda invoke) never
blocks the event loop. `/_onceflow/*` are onceflow's own endpoints; GET pages without AWS
credentials go to the console app when one is installed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from onceflow import __version__
from onceflow.context import Principal, RequestContext
from onceflow.errors import NotImplementedOperation, ServiceError
from onceflow.stack import Stack
from onceflow.wire import json_rpc, query, rest_json
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import NotAnAwsRequest, Route, route
from onceflow.wire.sigv4 import Scope, credential_scope
from onceflow.wire.specs import ServiceSpec, Specs

log = logging.getLogger("onceflow.wire")

ASGIApp = Callable[[dict[str, Any], Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]]

VALIDATION_CODES = {"iam": "ValidationError", "sts": "ValidationError", "logs": "InvalidParameterException"}
BODY_LIMITS = {"lambda": 80 * 1024 * 1024}


class AwsApp:
    def __init__(self, stack: Stack, specs: Specs, console: ASGIApp | None = None) -> None:
        self.stack = stack
        self.specs = specs
        self.console = console
        self.executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="onceflow-call")
        self.max_body = stack.settings.max_body_bytes

    # ------------------------------------------------------------------ ASGI entry
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        request = await self._read(scope, receive)
        if request is None:
            await _send(send, Response(413, b'{"message":"Request entity too large"}'))
            return
        if request.path.startswith("/_onceflow/"):
            await _send(send, self._own_endpoint(request))
            return
        try:
            response = await self.handle(request)
        except NotAnAwsRequest:
            if self.console is not None and request.method in ("GET", "HEAD", "POST"):
                await self.console(scope, _replay(request.body), send)
                return
            response = Response(404, b'{"message":"Not an AWS API request"}')
        await _send(send, response)

    async def handle(self, request: Request) -> Response:
        scope = credential_scope(request.headers, request.query_string)
        try:
            found = route(self.specs, request, scope)
        except ServiceError as err:
            spec = self._guess_spec(request, scope)
            return self._error(spec, err, "-")
        ctx = self._context(found, scope, request)
        try:
            # Input is checked before the operation is looked up: AWS validates before it dispatches.
            if found.operation is not None:
                params = self._parse(found, request)
            handler = self._handler(found)
            result = await asyncio.get_running_loop().run_in_executor(self.executor, self._call, handler, ctx, params)
            return self._render(found, result, ctx.request_id)
        except ServiceError as err:
            return self._error(found.spec, err, ctx.request_id)
        except Exception:
            log.exception("internal failure in %s.%s", found.spec.name, found.operation_name)
            err = ServiceError("InternalFailure", "The request processing has failed because of an unknown "
                               "error, exception or failure.", 500, sender_fault=False)
            return self._error(found.spec, err, ctx.request_id)

    # ------------------------------------------------------------------ steps
    def _handler(self, found: Route) -> Any:
        if found.operation is None:
            if found.spec.protocol == "query":
                version = found.spec.model.api_version
                raise ServiceError("InvalidAction", f"Could not find operation {found.operation_name} for "
                                   f"version {version}", 400)
            raise ServiceError("UnknownOperationException", "", 400, namespace="com.amazon.coral.service")
        handler = self.stack.registry.get(found.spec.name, found.operation_name)
        if handler is None:
            raise NotImplementedOperation(found.spec.name, found.operation_name)
        return handler

    def _parse(self, found: Route, request: Request) -> dict[str, Any]:
        spec, op = found.spec, found.operation
        assert op is not None
        limit = BODY_LIMITS.get(spec.name, self.max_body)
        if len(request.body) > limit:
            raise ServiceError("RequestEntityTooLargeException", "Request must be smaller than "
                               f"{limit} bytes for the {op.name} operation", 413)
        code = VALIDATION_CODES.get(spec.name, "ValidationException")
        if spec.protocol == "json":
            return json_rpc.parse(spec, op, request, code)
        if spec.protocol == "query":
            return query.parse(spec, op, found.form or {}, code)
        return rest_json.parse(spec, op, request, found.labels, code)

    def _context(self, found: Route, scope: Scope | None, request: Request) -> RequestContext:
        settings = self.stack.settings
        region = scope.region if scope else settings.default_region
        principal = self._principal(scope.access_key if scope else None)
        return RequestContext(found.spec.name, found.operation_name, principal.account, region, principal,
                              source_ip=request.client_host)

    def _principal(self, access_key: str | None) -> Principal:
        if access_key:
            for resolve in self.stack.credential_resolvers:
                principal = resolve(access_key)
                if principal is not None:
                    return principal  # type: ignore[no-any-return]
            if len(access_key) == 12 and access_key.isdigit():
                return Principal.root(access_key, access_key)
        return Principal.root(self.stack.settings.account_id, access_key)

    def _call(self, handler: Any, ctx: RequestContext, params: dict[str, Any]) -> Any:
        self.stack.authorize(ctx, params)
        return handler(ctx, params)

    def _render(self, found: Route, result: Any, request_id: str) -> Response:
        spec, op = found.spec, found.operation
        assert op is not None
        if spec.protocol == "json":
            return json_rpc.render(spec, result, request_id)
        if spec.protocol == "query":
            return query.render(spec, op, result, request_id)
        return rest_json.render(spec, op, result, request_id)

    def _error(self, spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
        if spec.protocol == "json":
            return json_rpc.render_error(spec, err, request_id)
        if spec.protocol == "query":
            return query.render_error(spec, err, request_id)
        return rest_json.render_error(spec, err, request_id)

    def _guess_spec(self, request: Request, scope: Scope | None) -> ServiceSpec:
        if scope and scope.service in self.specs.by_signing_name:
            return self.specs.by_signing_name[scope.service]
        return self.specs.services["dynamodb"]

    # ------------------------------------------------------------------ onceflow's own endpoints
    def _own_endpoint(self, request: Request) -> Response:
        if request.path == "/_onceflow/health" and request.method == "GET":
            services = {name: "running" for name in self.specs.services}
            body = {"status": "running", "version": __version__, "services": services}
            return Response(200, json.dumps(body).encode())
        if request.path == "/_onceflow/reset" and request.method == "POST":
            if not _is_loopback(request.client_host):
                return Response(403, b'{"message":"reset is only answered on loopback"}')
            self.stack.reset()
            return Response(200, b'{"reset":true}')
        return Response(404, b'{"message":"Unknown onceflow endpoint"}')

    # ------------------------------------------------------------------ plumbing
    async def _read(self, scope: dict[str, Any], receive: Any) -> Request | None:
        chunks, size = [], 0
        hard_limit = max(self.max_body, *BODY_LIMITS.values()) + 1024
        while True:
            message = await receive()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > hard_limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client = scope.get("client") or ("", 0)
        raw_path = scope.get("raw_path") or scope["path"].encode()
        return Request(scope["method"], scope["path"], raw_path.decode("latin-1"),
                       scope.get("query_string", b"").decode("latin-1"), headers, b"".join(chunks), client[0])

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.executor.shutdown(wait=True, cancel_futures=False)
                await send({"type": "lifespan.shutdown.complete"})
                return


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _replay(body: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


async def _send(send: Any, response: Response) -> None:
    headers = [(b"content-type", response.content_type.encode()), (b"content-length", str(len(response.body)).encode())]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})
