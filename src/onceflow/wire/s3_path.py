"""The S3 request's path through the app: bodies streamed in and out instead of read whole.

    address (path-style /bucket/key or virtual-hosted bucket.localhost) -> route (rest_xml) ->
    identify the caller (SigV4 header or presigned query) -> parse headers, query and any XML body
    -> authorize -> handler in the thread pool, reading an upload from the connection as it goes
    -> the answer, a GetObject body sent piece by piece as the handler's iterator yields it

Other protocols keep app.py's path (the whole body read under its limits, then parsed). An S3
request is recognised from its head alone (`claims`): a credential scope naming s3, or a Host
`<bucket>.localhost`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.faults import wire as faults_wire
from onceflow.wire import rest_xml, s3_errors, s3_sigv2, sigv4
from onceflow.wire.guard import CONTENT_SANDBOX, hostname, origin_message
from onceflow.wire.intake import TimedOut, TooLarge, read_body
from onceflow.wire.request import Request, Response
from onceflow.wire.s3_body import STREAMING, ChunkedBody, PlainBody, Source
from onceflow.wire.sigv4 import Signed

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel
    from onceflow.wire.app import AwsApp

log = logging.getLogger("onceflow.s3")

_SCOPE_IN_HEADER = "/s3/aws4_request"
_SCOPE_IN_QUERY = "%2Fs3%2Faws4_request"
PIECE = 1024 * 1024  # what a streamed answer sends at a time
SMALL_UPLOAD = 64 * 1024  # an upload up to this size is read on the loop before its handler runs

def host_bucket(host: str) -> str | None:
    """The bucket of a virtual-hosted-style Host (`my-bucket.localhost:4566`), else None."""
    name = hostname(host)
    # A Lambda function URL's host is not a bucket.
    if name is None or not name.endswith(".localhost") or ".lambda-url." in name:
        return None
    bucket = name[: -len(".localhost")]
    bucket = bucket[:-3] if bucket.endswith(".s3") else bucket
    return bucket if bucket and bucket != "s3" else None


def claims_s3(request: Request) -> bool:
    """Whether a request is S3's, from its head (cheap enough for every request): a SigV4 scope
    naming s3, S3's older presigned query, a `<bucket>.localhost` Host, or - unsigned - the
    x-amz-content-sha256 header only S3 requires."""
    auth = request.headers.get("authorization")
    if auth is not None:
        return _SCOPE_IN_HEADER in auth
    query = request.query_string
    if "X-Amz-Credential" in query:
        return _SCOPE_IN_QUERY in query or _SCOPE_IN_HEADER in query
    if "AWSAccessKeyId=" in query and "Signature=" in query:
        return True
    return host_bucket(request.headers.get("host", "")) is not None or "x-amz-content-sha256" in request.headers


def _signed_query(query: str) -> bool:
    """Whether a query string carries a signature (SigV4's presigned or S3's older SigV2)."""
    return "X-Amz-Credential" in query or "AWSAccessKeyId=" in query


class S3Path:
    def __init__(self, app: AwsApp) -> None:
        self.app = app
        self.spec = app.specs.services["s3"]
        self.router = rest_xml.Router(self.spec)

    async def serve(self, request: Request, receive: Any, send: Any, request_id: str) -> None:
        head = request.method == "HEAD"
        try:
            rendered, unread = await self._answer(request, receive, request_id)
        except ServiceError as err:
            await _send_plain(send, rest_xml.render_error(err, request_id, head), _has_body(request))
            return
        except Exception:
            log.exception("internal failure in s3")
            failure = s3_errors.internal_error()
            await _send_plain(send, rest_xml.render_error(failure, request_id, head), _has_body(request))
            return
        if isinstance(rendered, Response):
            await _send_plain(send, rendered, unread)
        else:
            await self._send_rendered(send, rendered, head, unread, receive)

    async def _answer(self, request: Request, receive: Any,
                      request_id: str) -> tuple[Response | rest_xml.Rendered, bool]:
        app = self.app
        # A bucket's own pages may load its public objects; a signed call from them is refused (a page
        # holding the default keys would otherwise copy any bucket's objects into its own and read them).
        anonymous = "authorization" not in request.headers and not _signed_query(request.query_string)
        foreign = app.door.foreign_origin(request.headers, content=anonymous)
        if foreign is not None:
            raise s3_errors.access_denied(origin_message(foreign))
        vhost = host_bucket(request.headers.get("host", ""))
        bucket, key = rest_xml.split_path(request.raw_path, vhost)
        if key is not None and len(key.encode()) > 1024:
            raise s3_errors.key_too_long(len(key.encode()))
        query = rest_xml.query_of(request.query_string)
        op = self.router.match(request.method, bucket, key, query, request.headers)
        if op is None:
            raise s3_errors.method_not_allowed(request.method, "OBJECT" if key else "BUCKET")
        v2 = s3_sigv2.read(query)
        if v2 is not None:
            signed, principal = None, self._v2_principal(request, v2, vhost)
        else:
            signed = self._signature(request)
            principal = self._principal(request, signed)
        labels = {k: v for k, v in (("Bucket", bucket), ("Key", key)) if v is not None}
        handler = app.stack.registry.get("s3", op.name)
        if handler is None:
            raise s3_errors.not_implemented(op.name)
        region = signed.scope.region if signed else app.stack.settings.default_region
        ctx = RequestContext("s3", op.name, principal.account, region, principal, request_id=request_id,
                             source_ip=request.client_host)
        loop = asyncio.get_running_loop()
        streamed = _streams_in(op)
        pull: _Pull | _Given | None = None
        if streamed:
            params = rest_xml.parse(op, labels, query, request.headers, None)
            length = request.headers.get("content-length", "")
            if length.isdigit() and int(length) <= SMALL_UPLOAD and "content-encoding" not in request.headers:
                # A small body is read here on the loop: no hop to it from the handler's thread.
                pull = _Given(await self._read_small(request, receive, check=False))
            else:
                pull = _Pull(receive, loop, app.body_timeout)
            params["Body"] = self._body(request, Source(pull), signed)
        else:
            body = await self._read_small(request, receive)
            params = rest_xml.parse(op, labels, query, request.headers, body)
        params = {k: v for k, v in params.items() if v is not None}

        def call() -> Any:
            app.stack.authorize(ctx, params)
            return handler(ctx, params)

        # A handler that reads an upload from the connection waits on the client: it gets a thread
        # of the long calls' pool, so slow uploads never hold the threads every other call needs.
        executor = app.long_executor if streamed else app.executor
        if app.faults is not None and app.faults.watches("s3", op.name):
            result = await self._faulted(ctx, params, call, executor, receive)
        else:
            result = await loop.run_in_executor(executor, call)
        rendered = rest_xml.render(op, result, request_id)
        if op.name == "GetObject" and vhost is None:  # an object served at onceflow's own origin
            rendered.headers.append(CONTENT_SANDBOX)
        return rendered, bool(pull is not None and not pull.ended)

    async def _faulted(self, ctx: RequestContext, params: dict[str, Any], call: Any, executor: Any,
                       receive: Any) -> Any:
        """A call some fault rule may match (onceflow.faults), as faults/wire.py runs the others':
        `before` answers the rule's error instead of the call, `after` lets the call happen first."""
        loop = asyncio.get_running_loop()
        assert self.app.faults is not None  # only calls a rule may match come here
        fire = await loop.run_in_executor(self.app.executor, self.app.faults.decide, ctx, params)
        if fire is None:
            return await loop.run_in_executor(executor, call)
        rule = fire.rule
        result = None
        if rule.when != "before":
            result = await loop.run_in_executor(executor, fire.after_effect, call)
        await faults_wire._wait(rule.latency_ms / 1000, rule.timeout, receive)  # the same waits as theirs
        err = fire.error()
        if err is not None:
            if isinstance(result, dict) and not isinstance(result.get("Body", b""), bytes):
                _close(result["Body"])
            raise err
        return result if rule.when != "before" else await loop.run_in_executor(executor, call)

    def _signature(self, request: Request) -> Signed | None:
        try:
            signed = sigv4.read(request.headers, request.query_string)
        except sigv4.Malformed as exc:
            raise s3_errors.malformed_signature("authorization" in request.headers, str(exc)) from None
        if signed is None:
            return None
        if signed.presigned:
            # An expired URL is refused whoever signed it: the expiry needs no secret to check.
            if signed.expires_s is not None and not 1 <= signed.expires_s <= 604800:
                raise s3_errors.expires_too_late()
            try:
                sigv4.check_time(signed, datetime.now(UTC))
            except sigv4.Stale as exc:
                message = "Request has expired" if "expired" in str(exc) else str(exc)
                raise s3_errors.access_denied(message, **{"X-Amz-Expires": signed.expires_s}) from None
        elif "x-amz-content-sha256" not in request.headers:
            raise s3_errors.missing_content_sha256()
        return signed

    def _v2_principal(self, request: Request, v2: s3_sigv2.QuerySignature, vhost: str | None) -> Any:
        if s3_sigv2.expired(v2):
            raise s3_errors.access_denied("Request has expired", Expires=v2.expires)
        secret = self.app.auth.secret_for(v2.access_key)
        if secret is not None:
            text = s3_sigv2.string_to_sign(request.method, request.raw_path, vhost, request.query_string,
                                           request.headers, v2.expires)
            if not s3_sigv2.valid(secret, v2, text):
                raise s3_errors.signature_mismatch(AWSAccessKeyId=v2.access_key, StringToSign=text)
        try:
            return self.app.auth.key_principal(v2.access_key, v2.session_token, "rest-xml", "s3")
        except ServiceError as err:
            raise s3_errors.in_s3_words(err) from None

    def _principal(self, request: Request, signed: Signed | None) -> Any:
        try:
            return self.app.auth.principal(request, signed, "rest-xml", "s3")
        except ServiceError as err:
            raise s3_errors.in_s3_words(err) from None

    def _body(self, request: Request, source: Source, signed: Signed | None) -> PlainBody | ChunkedBody:
        headers = request.headers
        claimed = headers.get("x-amz-content-sha256", "")
        if claimed in STREAMING or "aws-chunked" in headers.get("content-encoding", ""):
            decoded = headers.get("x-amz-decoded-content-length")
            secret = self.app.auth.secret_for(signed.scope.access_key) if signed is not None else None
            body = ChunkedBody(source, claimed or "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                               int(decoded) if decoded and decoded.isdigit() else None, signed, secret)
            # The checksums the trailer will carry: computed from the first byte on.
            body.announced = tuple(name.strip()[len("x-amz-checksum-"):].upper()
                                   for name in headers.get("x-amz-trailer", "").split(",")
                                   if name.strip().lower().startswith("x-amz-checksum-"))
            return body
        length = headers.get("content-length")
        if length is None or not length.isdigit():
            raise s3_errors.missing_content_length()
        return PlainBody(source, int(length), claimed if _is_hex(claimed) else None)

    async def _read_small(self, request: Request, receive: Any, check: bool = True) -> bytes:
        length = request.headers.get("content-length")
        if (length is None or length == "0") and "transfer-encoding" not in request.headers:
            return b""
        limit = self.app.max_body
        if length is not None and length.isdigit() and int(length) > limit:
            raise s3_errors.too_big()
        try:
            body = await read_body(receive, limit, self.app.body_timeout)
        except TooLarge:
            raise s3_errors.too_big() from None
        except TimedOut:
            raise s3_errors.request_timeout() from None
        claimed = request.headers.get("x-amz-content-sha256", "")
        if check and _is_hex(claimed):
            if hashlib.sha256(body).hexdigest() != claimed:
                raise s3_errors.content_sha256_mismatch()
        return body

    async def _send_rendered(self, send: Any, rendered: rest_xml.Rendered, head: bool, unread: bool,
                             receive: Any) -> None:
        headers = [(b"content-type", rendered.content_type.encode())]
        if rendered.status != 204 and rendered.length is not None:
            headers.append((b"content-length", str(rendered.length).encode()))
        headers += [(k.encode("latin-1"), _latin(v)) for k, v in rendered.headers]
        if unread:
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": rendered.status, "headers": headers})
        body = rendered.body
        if isinstance(body, bytes) or head or rendered.status == 204:
            if not isinstance(body, bytes):
                _close(body)
            await send({"type": "http.response.body", "body": b"" if head else body})
            return
        loop = asyncio.get_running_loop()
        pieces: Iterator[bytes] = iter(body)
        gone = asyncio.ensure_future(_disconnected(receive))  # uvicorn drops what is sent after it
        try:
            while not gone.done():
                piece = await loop.run_in_executor(self.app.long_executor, next, pieces, None)
                if piece is None:
                    break
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        finally:
            gone.cancel()
            _close(pieces)


async def _disconnected(receive: Any) -> None:
    """Returns once the client has gone (a download it dropped is not read to its end)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _has_body(request: Request) -> bool:
    """Whether a body may be left unread on the connection (it must then be closed)."""
    return request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers


def _streams_in(op: OperationModel) -> bool:
    shape = op.input_shape
    if shape is None:
        return False
    payload = shape.serialization.get("payload")
    return bool(payload and shape.members[payload].type_name == "blob")


def _is_hex(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _latin(value: str) -> bytes:
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:  # user metadata may hold any text; S3 sends it as UTF-8 bytes
        return value.encode("utf-8")


def _close(body: Iterable[bytes]) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


class _Given:
    """A `pull()` over a body already read."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.ended = True

    def __call__(self) -> bytes:
        data, self.data = self.data, b""
        return data


class _Pull:
    """A blocking `pull()` for the handler's thread: the next piece of the body from the loop."""

    def __init__(self, receive: Any, loop: asyncio.AbstractEventLoop, timeout_s: float) -> None:
        self.receive = receive
        self.loop = loop
        self.timeout_s = timeout_s
        self.ended = False  # the request has no more body (all of it read, or the client went)

    async def _piece(self) -> bytes:
        while True:
            message = await asyncio.wait_for(self.receive(), self.timeout_s)
            if message["type"] == "http.disconnect":
                self.ended = True
                return b""
            data: bytes = message.get("body", b"")
            if not message.get("more_body"):
                self.ended = True
            if data or self.ended:
                return data

    def __call__(self) -> bytes:
        if self.ended:
            return b""
        try:
            return asyncio.run_coroutine_threadsafe(self._piece(), self.loop).result()
        except TimeoutError:
            raise s3_errors.request_timeout() from None


async def _send_plain(send: Any, response: Response, close: bool) -> None:
    headers = [(b"content-type", response.content_type.encode()),
               (b"content-length", str(len(response.body)).encode())]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body})
