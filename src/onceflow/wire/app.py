"""The ASGI application: the whole request pipeline, in order, on one screen.

    read body -> route (target / REST path / query Action) -> parse against the model
    -> identify the caller (access key -> principal, scope -> region) -> authorize -> handler
    -> render the result or the error in the protocol's shape

Handlers are plain functions; they run in a thread pool so a slow one (a Lambda invoke) never
blocks the event loop. Quick ones run on the loop: `inline` handlers always, `commits` handlers
(single-item writes) when no other thread holds the store's writers' lock; their answer waits
for the fsync of their commit (see `_synced`). `/_onceflow/*` are onceflow's own endpoints; GET pages without AWS
credentials go to the console app when one is installed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from onceflow import __version__
from onceflow.context import Principal, RequestContext
from onceflow.errors import NotImplementedOperation, ServiceError
from onceflow.faults import endpoint as faults_endpoint
from onceflow.faults import wire as faults_wire
from onceflow.longpoll import LongPoll
from onceflow.stack import Stack
from onceflow.wire import json_rpc, query, rest_json, sigv4
from onceflow.wire import mock_config as mock_config_endpoint
from onceflow.wire import time_scale as time_scale_endpoint
from onceflow.wire.authenticate import Authenticator
from onceflow.wire.guard import FrontDoor, host_message, origin_message, refusal
from onceflow.wire.intake import DRAIN_LIMIT, SMALL_BODY, BodyBudget, Busy, TimedOut, TooLarge, drain, read_body
from onceflow.wire.json_calls import VALIDATION_CODES
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import UNSIGNED_SNS, NotAnAwsRequest, Route, route
from onceflow.wire.s3_path import S3Path, claims_s3
from onceflow.wire.sigv4 import Scope, Signed
from onceflow.wire.specs import ServiceSpec, Specs, first_segment

log = logging.getLogger("onceflow.wire")

ASGIApp = Callable[[dict[str, Any], Callable[..., Awaitable[Any]], Callable[..., Awaitable[Any]]], Awaitable[None]]

# A handler registered with `operation(name, inline=True)` is quick and never blocks (no waiting
# on a commit, a worker or another request): it runs on the event loop. A thread-pool hop costs
# about 0.1 ms of CPU and 0.2 ms of latency, more than such a handler itself.
INLINE_ATTRIBUTE = "_aws_inline"
# A handler registered with `operation(name, commits=True)` runs on the loop too when no other
# thread holds the store's writers' lock; its commit is made durable before the answer is sent.
COMMITS_ATTRIBUTE = "_aws_commits"

LONG_CALLS = {("lambda", "Invoke"), ("lambda", "InvokeAsync"), ("lambda", "InvokeWithResponseStream"),
              ("stepfunctions", "StartSyncExecution"),
              ("stepfunctions", "GetActivityTask")}  # GetActivityTask long-polls for up to a minute
BODY_LIMITS = {"lambda": 80 * 1024 * 1024}
# A body larger than this is routed and parsed (and any inline handler run) in the thread pool:
# the parse of a large form or JSON document takes milliseconds that every other client would wait.
PARSE_OFF_LOOP = 64 * 1024


class AwsApp:
    def __init__(self, stack: Stack, specs: Specs, console: ASGIApp | None = None) -> None:
        self.stack = stack
        self.specs = specs
        self.console = console
        self.faults = stack.services.get("faults")  # fault injection rules (onceflow.faults), if set up
        self.executor = ThreadPoolExecutor(max_workers=64, thread_name_prefix="onceflow-call")
        # Calls that wait on user code (a Lambda handler, a synchronous execution) get threads of their
        # own: a handler's calls back into onceflow must never queue behind the calls that wait for it.
        self.long_executor = ThreadPoolExecutor(max_workers=512, thread_name_prefix="onceflow-long-call")
        # Waits for the fsync of commits made on the loop while other requests are in flight.
        self.sync_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="onceflow-sync")
        self.in_flight = 0  # requests between arrival and answer
        settings = stack.settings
        self.max_body = settings.max_body_bytes
        self.door = FrontDoor(settings, stack.handler_uid)  # asked per request: Lambda may be set up later
        self.auth = Authenticator(settings, stack.credential_resolvers)
        self.budget = BodyBudget(settings.max_bodies_in_flight_bytes)
        self.body_timeout = settings.body_timeout_s
        # S3 streams its bodies in and out (wire/s3_path.py) instead of reading them whole; its
        # tables are built on the first S3 request, not at start-up.
        self.serves_s3 = "s3" in specs.services

    @cached_property
    def s3(self) -> S3Path:
        return S3Path(self)

    # ------------------------------------------------------------------ entries
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """ASGI entry: uvicorn calls this for every HTTP request and the lifespan."""
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        self.in_flight += 1
        share = 0
        try:
            request = _head(scope)
            early = self.screen(request)
            if early is not None:
                await _send(send, early)
                return
            if self.serves_s3 and claims_s3(request):
                await self.s3.serve(request, receive, send, new_request_id())
                return
            length, limit = _content_length(request.headers), self._limit_of_head(request)
            if length is not None and length > limit:  # refused before any of the body is kept
                if length <= DRAIN_LIMIT and "100-continue" not in request.headers.get("expect", ""):
                    await drain(receive, self.body_timeout)
                await _send(send, self._too_large(request, limit), _CLOSE)
                return
            chunked = length is None and "transfer-encoding" in request.headers
            expected = limit if chunked else (length or 0)
            if expected > SMALL_BODY:
                try:
                    share = await self.budget.take(expected)
                except Busy:
                    await _send(send, self._busy(request), _CLOSE)
                    return
            if expected:
                try:
                    request.body = await read_body(receive, limit, self.body_timeout)
                except TooLarge:
                    await drain(receive, self.body_timeout)
                    await _send(send, self._too_large(request, limit), _CLOSE)
                    return
                except TimedOut:
                    await _send(send, self._timed_out(request), _CLOSE)
                    return
            if len(request.body) > PARSE_OFF_LOOP:  # parsing it is CPU work the loop must not wait for
                outcome = await asyncio.get_running_loop().run_in_executor(self.executor, self.begin, request)
            else:
                outcome = self.begin(request)
            if isinstance(outcome, faults_wire.FaultedCall):
                outcome.receive = receive  # a `timeout` fault holds the call until the client goes
            if outcome is CONSOLE:
                await self.console(scope, _replay(request.body), send)  # type: ignore[misc]
                return
            response = await self.complete(outcome)  # type: ignore[arg-type]  # CONSOLE returned above
            origin = self.door.allowed_origin(request.headers) if self.door.cors_origins else None
            await _send(send, response, self.door.cors_headers(origin) if origin else ())
        finally:
            self.in_flight -= 1
            if share:
                await self.budget.give_back(share)

    async def complete(self, outcome: Response | Call | Deferred | Durable | faults_wire.FaultedCall) -> Response:
        """The rest of the answer for an outcome of `begin` that is not a console page."""
        if isinstance(outcome, Response):
            return outcome
        if isinstance(outcome, faults_wire.FaultedCall):
            assert self.faults is not None  # FaultedCall exists only where faults are on
            return await faults_wire.run(self, outcome, self.faults)
        if isinstance(outcome, Durable):
            await self._synced(outcome.seq)
            return outcome.response
        if isinstance(outcome, Deferred):
            return await asyncio.get_running_loop().run_in_executor(self.executor, outcome.fn)
        return await self.finish(outcome)

    async def _synced(self, seq: int) -> None:
        """Wait until commit `seq` is on disk. A lone request syncs right here, on the loop, which
        saves two thread hand-offs; with others in flight, the sync thread does it, so that their
        commits share the fsync and the loop keeps serving them meanwhile. The yield first lets
        requests that arrived together start (and count) before this one decides."""
        await asyncio.sleep(0)
        if self.in_flight <= 1:
            self.stack.db.sync(seq)
        else:
            await asyncio.get_running_loop().run_in_executor(self.sync_executor, self.stack.db.sync, seq)

    async def handle(self, request: Request) -> Response:
        """The whole answer to one request, console pages aside (tests call this without ASGI)."""
        early = self.screen(request)
        if early is not None:
            return early
        outcome = self.begin(request)
        return _NOT_AWS if outcome is CONSOLE else await self.complete(outcome)  # type: ignore[arg-type]

    def begin(self, request: Request) -> Response | Call | Deferred | Durable | object:
        """Everything that can be done on the event loop: route, parse, identify and, for handlers
        marked inline (or commits, when the writers' lock is free), the call itself. Returns the
        Response, a Durable answer waiting for its sync, a Call for the thread pool, or CONSOLE."""
        urls = self.stack.loaded("lambda_urls")  # Lambda function URLs (lambda_/urls.py), once Lambda is set up
        if urls is not None and urls.addressed(request.headers.get("host", ""), request.path):
            return self._function_url(urls, request)
        if request.path.startswith("/_onceflow/") or _moto_reset(request):
            return self._own_endpoint(request)
        signed: Signed | sigv4.Malformed | None
        try:
            signed = sigv4.read(request.headers, request.query_string)
            scope = signed.scope if signed else None
        except sigv4.Malformed as exc:
            signed, scope = exc, sigv4.credential_scope(request.headers, request.query_string)
        request_id = new_request_id()
        try:
            found = route(self.specs, request, scope)
        except NotAnAwsRequest:
            ok = self.console is not None and request.method in ("GET", "HEAD", "POST")
            return CONSOLE if ok else _NOT_AWS
        except ServiceError as err:  # an UnservedService brings the spec of the service it names
            return self._error(getattr(err, "spec", None) or self._guess_spec(request, scope), err, request_id)
        try:
            foreign = self.door.foreign_origin(request.headers)
            if foreign is not None:
                raise refusal(found.spec.protocol, origin_message(foreign))
            ctx = self._context(found, scope, signed, request, request_id)
            # Input is checked before the operation is looked up: AWS validates before it dispatches.
            params = self._parse(found, request) if found.operation is not None else {}
            handler = self._handler(found)
            if self.faults is not None and self.faults.watches(ctx.service, ctx.operation):
                return faults_wire.FaultedCall(Call(found, handler, ctx, params))
            # A role session's or a user's authorization evaluates its policies, work that grows
            # with them (25 ms per call for a role as large as IAM allows): never on the loop.
            quick = ctx.principal.kind in ("root", "service")
            if quick and getattr(handler, INLINE_ATTRIBUTE, False):
                return self._render(found, self._call(handler, ctx, params), request_id)
            call = Call(found, handler, ctx, params)
            if quick and getattr(handler, COMMITS_ATTRIBUTE, False):
                return self._commit_on_loop(call) or call
            return call
        except ServiceError as err:
            return self._error(found.spec, err, request_id)
        except Exception:
            return self._internal_failure(found, request_id)

    def executor_for(self, ctx: RequestContext) -> ThreadPoolExecutor:
        """The pool a handler runs in: calls that wait on user code get the long calls' own."""
        return self.long_executor if (ctx.service, ctx.operation) in LONG_CALLS else self.executor

    async def finish(self, call: Call) -> Response:
        """Run a handler in the thread pool (it may block on a commit or a worker) and render."""
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(self.executor_for(call.ctx), self._call, call.handler, call.ctx,
                                                call.params)
            if isinstance(result, LongPoll):  # waits on the loop, holding no thread (SQS ReceiveMessage)
                result = await result.run(self.executor)
            return self._render(call.found, result, call.ctx.request_id)
        except ServiceError as err:
            return self._error(call.found.spec, err, call.ctx.request_id)
        except Exception:
            return self._internal_failure(call.found, call.ctx.request_id)

    def _commit_on_loop(self, call: Call) -> Response | Durable | None:
        """Run a commits=True handler here if no other thread holds the writers' lock (None if one
        does: then it goes to the thread pool, so the loop never waits behind a long transaction)."""
        db = self.stack.db
        with db.writer_if_free() as free:
            if not free:
                return None
            with db.deferred_sync() as pending:
                try:
                    response = self._render(call.found, self._call(call.handler, call.ctx, call.params),
                                            call.ctx.request_id)
                except ServiceError as err:
                    response = self._error(call.found.spec, err, call.ctx.request_id)
        return Durable(pending.seq, response) if pending.seq and not db.in_memory else response

    def _internal_failure(self, found: Route, request_id: str) -> Response:
        log.exception("internal failure in %s.%s", found.spec.name, found.operation_name)
        err = ServiceError("InternalFailure", "The request processing has failed because of an unknown "
                           "error, exception or failure.", 500, sender_fault=False)
        return self._error(found.spec, err, request_id)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=False)
        self.sync_executor.shutdown(wait=True, cancel_futures=False)
        self.long_executor.shutdown(wait=True, cancel_futures=False)

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
        limit = self.body_limit(spec)
        if len(request.body) > limit:
            raise ServiceError("RequestEntityTooLargeException", "Request must be smaller than "
                               f"{limit} bytes for the {op.name} operation", 413)
        code = VALIDATION_CODES.get(spec.name, "ValidationException")
        if spec.protocol == "json":
            return json_rpc.parse(spec, op, request, code)
        if spec.protocol == "query":
            return query.parse(spec, op, found.form or {}, code)
        return rest_json.parse(spec, op, request, found.labels, code)

    def _context(self, found: Route, scope: Scope | None, signed: Signed | sigv4.Malformed | None,
                 request: Request, request_id: str) -> RequestContext:
        region = scope.region if scope else self.stack.settings.default_region
        if signed is None and found.spec.name == "sns" and found.operation_name in UNSIGNED_SNS:
            # A SubscribeURL visited: anyone holding the token may confirm (AWS asks for no signature).
            principal = Principal(self.stack.settings.account_id, "service", "anonymous", "anonymous")
        elif signed is None and found.operation is not None and found.operation.auth_type == "none":
            # Operations the model marks unauthenticated (STS's AssumeRoleWithWebIdentity and
            # AssumeRoleWithSAML): the token in the request is the proof, checked by the service.
            principal = Principal(self.stack.settings.account_id, "service", "", "anonymous")
        else:
            principal = self.auth.principal(request, signed, found.spec.protocol, found.spec.name)
        return RequestContext(found.spec.name, found.operation_name, principal.account, region, principal,
                              request_id=request_id, source_ip=request.client_host)

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

    def _function_url(self, urls: Any, request: Request) -> Deferred:
        """A call to a function URL: unsigned, or signed and then verified here (AWS_IAM); the
        function's service decides the rest and invokes, in the thread pool."""

        def caller() -> Any:
            try:
                signed: Signed | sigv4.Malformed | None = sigv4.read(request.headers, request.query_string)
            except sigv4.Malformed as exc:
                signed = exc
            if signed is None:
                return None
            try:
                return self.auth.principal(request, signed, "rest-json", "lambda")
            except ServiceError as err:
                return err

        def answer() -> Response:
            status, body, headers, content_type = urls.serve(request, caller)
            return Response(status, body, headers, content_type)

        return Deferred(answer)

    # ------------------------------------------------------------------ onceflow's own endpoints
    def _own_endpoint(self, request: Request) -> Response | Deferred:
        if request.path == "/_onceflow/health" and request.method in ("GET", "HEAD"):
            services = {name: "running" for name in self.specs.services}
            body = {"status": "running", "version": __version__, "services": services}
            return Response(200, json.dumps(body).encode())
        if request.path == "/_onceflow/reset" or _moto_reset(request):
            # It wipes everything: only the user's own tools on this machine may ask, never a web page.
            if request.method != "POST":
                return Response(405, b'{"message":"reset takes POST"}', [("allow", "POST")])
            refused = self.door.own_tool_refusal(request, "reset")
            if refused is not None:
                return Response(403, json.dumps({"message": refused}).encode())
            return Deferred(self._reset)  # reset hooks may wait (workers stopping): not on the loop
        if request.path == faults_endpoint.PATH and self.faults is not None:
            faults = self.faults
            return Deferred(lambda: faults_endpoint.answer(faults, request, self.door))
        if request.path == time_scale_endpoint.PATH:
            if request.method not in ("GET", "HEAD"):
                refused = self.door.own_tool_refusal(request, "the time scale")
                if refused is not None:
                    return Response(403, json.dumps({"message": refused}).encode())
            return Deferred(lambda: time_scale_endpoint.answer(self.stack, request))
        if request.path == mock_config_endpoint.PATH:
            if request.method not in ("GET", "HEAD"):
                refused = self.door.own_tool_refusal(request, "the mock configuration")
                if refused is not None:
                    return Response(403, json.dumps({"message": refused}).encode())
            return Deferred(lambda: mock_config_endpoint.answer(self.stack, request))
        return Response(404, b'{"message":"Unknown onceflow endpoint"}')

    def _reset(self) -> Response:
        self.stack.reset()
        return Response(200, b'{"reset":true}')

    # ------------------------------------------------------------------ plumbing
    # ------------------------------------------------------------------ the front door
    def screen(self, request: Request) -> Response | None:
        """What is answered from the headers alone: a foreign Host (DNS rebinding) and CORS preflights."""
        host = request.headers.get("host", "")
        if not self.door.host_allowed(host):
            return self._refuse(request, host_message(host))
        if request.method == "OPTIONS" and "access-control-request-method" in request.headers:
            # A function URL's preflight is its own (url_cors.py); `loaded`: looking must not set Lambda up
            # (a URL exists only once Lambda is set up, at start when it has state).
            urls = self.stack.loaded("lambda_urls")
            if urls is None or not urls.addressed(host, request.path):
                status, headers = self.door.preflight(request.headers)
                return Response(status, b"", headers)
        return None

    def body_limit(self, spec: ServiceSpec | None) -> int:
        return BODY_LIMITS.get(spec.name, self.max_body) if spec is not None else self.max_body

    def _limit_of_head(self, request: Request) -> int:
        # Only Lambda has a limit of its own, and its requests are REST ones: the path is enough.
        rest = self.specs.rest_prefixes.get(first_segment(request.raw_path))
        return max(BODY_LIMITS.get(spec.name, self.max_body) for spec in rest) if rest else self.max_body

    def _spec_of_head(self, request: Request) -> ServiceSpec | None:
        """The service a request is for, from its headers and path alone (its body not read yet)."""
        if request.path.startswith("/_onceflow/"):
            return None
        target = request.headers.get("x-amz-target")
        if target:
            return self.specs.by_target_prefix.get(target.rpartition(".")[0])
        rest = self.specs.rest_prefixes.get(first_segment(request.raw_path)) or self.specs.rest_prefixes.get("{")
        if rest:
            return rest[0]
        if "x-www-form-urlencoded" in request.headers.get("content-type", "") or "Action=" in request.query_string:
            scope = sigv4.credential_scope(request.headers, request.query_string)
            spec = self.specs.by_signing_name.get(scope.service) if scope else None
            return spec if spec is not None and spec.protocol == "query" else self.specs.services["iam"]
        return None

    def _refuse(self, request: Request, message: str) -> Response:
        spec = self._spec_of_head(request)
        if spec is None:
            return Response(403, json.dumps({"message": message}).encode())
        return self._error(spec, refusal(spec.protocol, message), new_request_id())

    def _too_large(self, request: Request, limit: int) -> Response:
        spec = self._spec_of_head(request) or self.specs.services["dynamodb"]
        operation = ""
        if spec.protocol != "query":
            try:
                operation = f" for the {route(self.specs, request, None).operation_name} operation"
            except (ServiceError, NotAnAwsRequest):
                pass
        err = ServiceError("RequestEntityTooLargeException", f"Request must be smaller than {limit} bytes{operation}",
                           413)
        return self._error(spec, err, new_request_id())

    def _busy(self, request: Request) -> Response:
        spec = self._spec_of_head(request) or self.specs.services["dynamodb"]
        code = "ServiceUnavailable" if spec.protocol == "query" else "ServiceUnavailableException"
        err = ServiceError(code, "onceflow is reading other large requests; retry shortly", 503, sender_fault=False)
        return self._error(spec, err, new_request_id())  # SDKs retry a 503 with backoff

    def _timed_out(self, request: Request) -> Response:
        spec = self._spec_of_head(request) or self.specs.services["dynamodb"]
        err = ServiceError("RequestTimeout", "Your socket connection to the server was not read from or written to "
                           "within the timeout period.", 408)
        return self._error(spec, err, new_request_id())

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            try:
                message = await receive()
            except asyncio.CancelledError:
                return  # a second Ctrl-C: uvicorn exits at once; nothing of ours to tidy here
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


@dataclass(slots=True)
class Call:
    """A parsed call waiting for the thread pool."""

    found: Route
    handler: Any
    ctx: RequestContext
    params: dict[str, Any]


@dataclass(slots=True)
class Durable:
    """An answer to a write made on the loop: sent once commit `seq` is on disk."""

    seq: int
    response: Response


@dataclass(slots=True)
class Deferred:
    """Work of onceflow's own endpoints that may block: run in the thread pool."""

    fn: Callable[[], Response]


CONSOLE = object()  # begin(): not an AWS request; the console answers it
_NOT_AWS = Response(404, b'{"message":"Not an AWS API request"}')


def new_request_id() -> str:
    """A random (version 4) UUID as text, as AWS request ids are; cheaper than str(uuid.uuid4())."""
    h = bytearray(os.urandom(16))
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def _replay(body: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


_CLOSE = (("connection", "close"),)  # after a body left unread: the connection cannot carry another request


def _head(scope: dict[str, Any]) -> Request:
    """The request as its headers describe it; the body is read later, within bounds."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    client = scope.get("client") or ("", 0)
    server = scope.get("server") or ("", 0)
    raw_path = scope.get("raw_path") or scope["path"].encode()
    return Request(scope["method"], scope["path"], raw_path.decode("latin-1"),
                   scope.get("query_string", b"").decode("latin-1"), headers, b"", client[0], client[1] or 0,
                   server[1] or 0)


def _content_length(headers: dict[str, str]) -> int | None:
    value = headers.get("content-length")
    if value is None:
        return None
    try:
        return max(int(value), 0)
    except ValueError:
        return None  # h11/httptools refuse a malformed length before we see the request


async def _send(send: Any, response: Response, extra: tuple[tuple[str, str], ...] | list[tuple[str, str]] = ()) -> None:
    # A 204 has no body and no Content-Length (RFC 9110 6.4.1, 8.6): a client reads none, so any byte
    # sent (DeleteFunction's "{}") would be read as the start of the next response on the connection.
    if response.status == 204:
        response = Response(204, b"", response.headers, response.content_type)
    headers = [(b"content-type", response.content_type.encode())]
    if response.status != 204:
        headers.append((b"content-length", str(len(response.body)).encode()))
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in extra]
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})


MOTO_RESET = "/moto-api/reset"


def _moto_reset(request: Request) -> bool:
    """moto's server-mode test harness resets its server with an unsigned POST /moto-api/reset before
    each test: answered as /_onceflow/reset, so suites written for moto run against onceflow as they
    are. Signed requests to that path stay S3 calls (a bucket may be named moto-api)."""
    return (request.path == MOTO_RESET and "authorization" not in request.headers
            and "X-Amz-Signature" not in request.query_string)
