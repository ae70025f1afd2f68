"""The ASGI application: the whole request pipeline, in order, on one screen.

`__call__` is the path of one request from the socket and back, `begin` what runs on the event
loop between reading its body and answering; each line names a stage, each stage is a module:

    asgi.head          the request's head from the ASGI scope
    guard (screen)     a foreign Host refused, a CORS preflight answered
    s3_path            S3 streams its bodies: the rest of its path is its own
    intake.take        the body read within its service's limit and the budget for big bodies
    urls               a Lambda function URL (its service answers it)
    own_endpoints      /_onceflow/* and moto's reset
    identify           the signature read; routing.route: service and operation
    guard (origin)     a request from a web page refused
    identify.context   the principal its credentials stand for, its region
    protocols          the parameters parsed and checked against the model
    registry           the operation's handler
    faults             a call some fault rule may match takes faults/wire.py's path
    execution          on the loop, or in a pool; authorized, called, rendered
    asgi.send_response the answer, with CORS headers for an allowed origin

A request whose body is large is routed and parsed in the thread pool (its parse takes
milliseconds that every other client would wait). GET pages without AWS credentials go to the
console app when one is installed.
"""

from __future__ import annotations

import asyncio
import os
from functools import cached_property
from typing import Any

from onceflow.errors import NotImplementedOperation, ServiceError
from onceflow.faults import wire as faults_wire
from onceflow.stack import Stack
from onceflow.wire import errors, facts, identify, intake, own_endpoints, protocols
from onceflow.wire.asgi import CLOSE, ASGIApp, content_length, head, lifespan, replay, send_response
from onceflow.wire.authenticate import Authenticator
from onceflow.wire.execution import Call, Deferred, Durable, Execution, internal_failure
from onceflow.wire.guard import CONTENT_SANDBOX, FrontDoor, host_message, is_content_host, origin_message
from onceflow.wire.head import body_limit, refuse, refuse_body
from onceflow.wire.intake import BodyBudget, Busy, TimedOut, TooLarge
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import NotAnAwsRequest, Route, route
from onceflow.wire.s3_path import S3Path, claims_s3
from onceflow.wire.sigv4 import Scope
from onceflow.wire.specs import ServiceSpec, Specs

# A body larger than this is routed and parsed (and any inline handler run) in the thread pool:
# the parse of a large form or JSON document takes milliseconds that every other client would wait.
PARSE_OFF_LOOP = 64 * 1024

Outcome = Response | Call | Deferred | Durable | faults_wire.FaultedCall  # what `begin` leaves to `complete`


class AwsApp:
    def __init__(self, stack: Stack, specs: Specs, console: ASGIApp | None = None) -> None:
        self.stack = stack
        self.specs = specs
        self.console = console
        self.faults = stack.ports.faults.get()  # fault injection rules (onceflow.faults), if set up
        self.calls = Execution(stack)
        self.executor = self.calls.executor
        self.long_executor = self.calls.long_executor
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

    # ------------------------------------------------------------------ the pipeline
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """ASGI entry: uvicorn calls this for every HTTP request and the lifespan."""
        if scope["type"] == "lifespan":
            return await lifespan(receive, send, self.close)
        if scope["type"] != "http":
            return
        self.calls.in_flight += 1
        share = 0
        try:
            request = head(scope)
            early = self.screen(request)
            if early is not None:
                return await send_response(send, early)
            if self.serves_s3 and claims_s3(request):
                return await self.s3.serve(request, receive, send, new_request_id())
            limit = body_limit(self.specs, request, self.max_body)
            try:
                share = await intake.take(request, content_length(request.headers), receive, limit, self.budget,
                                          self.body_timeout)
            except (TooLarge, Busy, TimedOut) as refused:
                return await send_response(send, refuse_body(self.specs, request, refused, limit, new_request_id()),
                                           CLOSE)
            outcome = await self._begin_where_cheap(request)
            if isinstance(outcome, faults_wire.FaultedCall):
                outcome.receive = receive  # a `timeout` fault holds the call until the client goes
            if isinstance(outcome, Console):
                assert self.console is not None  # begin answers CONSOLE only when there is one
                return await self.console(scope, replay(request.body), send)
            response = await self.complete(outcome)
            origin = self.door.allowed_origin(request.headers) if self.door.cors_origins else None
            await send_response(send, response, self.door.cors_headers(origin) if origin else ())
        finally:
            self.calls.in_flight -= 1
            if share:
                await self.budget.give_back(share)

    def begin(self, request: Request) -> Outcome | Console:
        """Everything that can be done on the event loop: route, parse, identify and, for handlers
        whose hint allows it, the call itself. Returns the Response, a Durable answer waiting for
        its sync, a Call for the thread pool, a FaultedCall, Deferred work, or CONSOLE."""
        urls = self.stack.loaded("lambda_urls")  # Lambda function URLs (lambda_/urls.py), once Lambda is set up
        if urls is not None and urls.addressed(request.headers.get("host", ""), request.path):
            return self._function_url(urls, request)
        if own_endpoints.claims(request):
            return own_endpoints.answer(self.stack, list(self.specs.services), self.door, self.faults, request)
        signed, scope = identify.signature(request)
        request_id = new_request_id()
        try:
            found = route(self.specs, request, scope)
        except NotAnAwsRequest:
            ok = self.console is not None and request.method in ("GET", "HEAD", "POST")
            return CONSOLE if ok else _NOT_AWS
        except ServiceError as err:  # an UnservedService brings the spec of the service it names
            return protocols.error(getattr(err, "spec", None) or self._guess_spec(scope), err, request_id)
        try:
            foreign = self.door.foreign_origin(request.headers)
            if foreign is not None:
                raise errors.access_denied(found.spec.protocol, origin_message(foreign))
            ctx = identify.context(self.stack.settings, self.auth, found, scope, signed, request, request_id)
            # Input is checked before the operation is looked up: AWS validates before it dispatches.
            params = self._parse(found, request) if found.operation is not None else {}
            call = Call(found, self._handler(found), ctx, params)
            if self.faults is not None and self.faults.watches(ctx.service, ctx.operation):
                return faults_wire.FaultedCall(call)
            return self.calls.place(call)
        except ServiceError as err:
            return protocols.error(found.spec, err, request_id)
        except Exception:
            return internal_failure(found, request_id)

    async def complete(self, outcome: Outcome) -> Response:
        """The rest of the answer for an outcome of `begin` that is not a console page."""
        if isinstance(outcome, Response):
            return outcome
        if isinstance(outcome, faults_wire.FaultedCall):
            assert self.faults is not None  # FaultedCall exists only where faults are on
            return await faults_wire.run(self.calls, outcome, self.faults)
        if isinstance(outcome, Durable):
            await self.calls.synced(outcome.seq)
            return outcome.response
        if isinstance(outcome, Deferred):
            return await self.calls.deferred(outcome)
        return await self.calls.finish(outcome)

    async def handle(self, request: Request) -> Response:
        """The whole answer to one request, console pages aside (tests call this without ASGI)."""
        early = self.screen(request)
        if early is not None:
            return early
        outcome = self.begin(request)
        return _NOT_AWS if isinstance(outcome, Console) else await self.complete(outcome)

    # ------------------------------------------------------------------ stages
    def screen(self, request: Request) -> Response | None:
        """What is answered from the headers alone: a foreign Host (DNS rebinding) and CORS preflights."""
        host = request.headers.get("host", "")
        if not self.door.host_allowed(host):
            return refuse(self.specs, request, host_message(host), new_request_id())
        if request.method == "OPTIONS" and "access-control-request-method" in request.headers:
            # A function URL's preflight is its own (url_cors.py); `loaded`: looking must not set Lambda up
            # (a URL exists only once Lambda is set up, at start when it has state).
            urls = self.stack.loaded("lambda_urls")
            if urls is None or not urls.addressed(host, request.path):
                status, headers = self.door.preflight(request.headers)
                return Response(status, b"", headers)
        return None

    async def _begin_where_cheap(self, request: Request) -> Outcome | Console:
        if len(request.body) > PARSE_OFF_LOOP:  # parsing it is CPU work the loop must not wait for
            return await asyncio.get_running_loop().run_in_executor(self.executor, self.begin, request)
        return self.begin(request)

    def _parse(self, found: Route, request: Request) -> dict[str, Any]:
        spec = found.spec
        limit = self.body_limit(spec)
        if len(request.body) > limit:
            raise errors.too_large(limit, found.operation_name)
        return protocols.of(spec).parse(found, request, facts.validation_code(spec.name, found.operation))

    def _handler(self, found: Route) -> Any:
        if found.operation is None:
            if found.spec.protocol == "query":
                raise errors.invalid_action(found.operation_name, found.spec.model.api_version)
            raise errors.unknown_operation()
        handler = self.stack.registry.get(found.spec.name, found.operation_name)
        if handler is None:
            raise NotImplementedOperation(found.spec.name, found.operation_name)
        return handler

    def body_limit(self, spec: ServiceSpec | None) -> int:
        return facts.body_limit(spec.name, self.max_body) if spec is not None else self.max_body

    def _guess_spec(self, scope: Scope | None) -> ServiceSpec:
        if scope and scope.service in self.specs.by_signing_name:
            return self.specs.by_signing_name[scope.service]
        return self.specs.services["dynamodb"]

    def _function_url(self, urls: Any, request: Request) -> Deferred:
        """A call to a function URL: unsigned, or signed and then verified here (AWS_IAM); the
        function's service decides the rest and invokes, in the thread pool."""

        def caller() -> Any:
            signed, _ = identify.signature(request)
            if signed is None:
                return None
            try:
                return self.auth.principal(request, signed, "rest-json", "lambda")
            except ServiceError as err:
                return err

        def answer() -> Response:
            status, body, headers, content_type = urls.serve(request, caller)
            if not is_content_host(request.headers.get("host", "")):  # /_onceflow/lambda-url/: the console's origin
                headers = [*headers, CONTENT_SANDBOX]
            return Response(status, body, headers, content_type)

        return Deferred(answer)

    def close(self) -> None:
        self.calls.close()


class Console:
    """begin(): not an AWS request; the console answers it."""


CONSOLE = Console()
_NOT_AWS = Response(404, b'{"message":"Not an AWS API request"}')


def new_request_id() -> str:
    """A random (version 4) UUID as text, as AWS request ids are; cheaper than str(uuid.uuid4())."""
    h = bytearray(os.urandom(16))
    h[6] = (h[6] & 0x0F) | 0x40
    h[8] = (h[8] & 0x3F) | 0x80
    x = h.hex()
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"
