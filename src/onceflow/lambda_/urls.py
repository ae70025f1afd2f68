"""Function URLs: their configuration (Create/Get/Update/Delete/ListFunctionUrlConfigs) and the
HTTP calls made to them, turned into invocations with the payload format 2.0 (the request event
and the response a handler returns, as API Gateway HTTP APIs and Lambda URLs use it).

A URL is served at `http://<url-id>.lambda-url.<region>.localhost:<port>/...` (the AWS form, with
onceflow's own domain) and at `http://<endpoint>/_onceflow/lambda-url/<url-id>/...`. wire/app.py
hands such requests here before AWS routing, with the caller's verified principal (or None when
unsigned) or the authentication error; everything else about the call is decided here:
AWS_IAM needs a signed caller allowed `lambda:InvokeFunctionUrl` and `lambda:InvokeFunction` (by
its own policies in the function's account, else by the function's resource policy); NONE needs
resource policy statements for both, as on AWS for URLs created since October 2025 (docs: "Control
access to Lambda function URLs"; CreateFunctionUrlConfig adds neither, the console does). Every
onceflow URL counts as new. The Cors configuration is applied as url_cors.py says.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import string
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import code_location, errors, names, paging, policy, url_cors
from onceflow.lambda_.invoke import Invoker
from onceflow.lambda_.service import LambdaService

PATH_PREFIX = "/_onceflow/lambda-url/"
# A trailing dot names the same host (as wire/guard.hostname reads it): `...localhost.:4566`.
# the region as the model writes one, (eusc-)? included
_HOST = re.compile(
    r"([a-z0-9]{32})\.lambda-url\.((?:eusc-)?[a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d)\.localhost\.?(?::\d+)?"
)
_PATH = re.compile(r"/_onceflow/lambda-url/([a-z0-9]{32})(/.*)?")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript",
               "application/x-www-form-urlencoded", "+json", "+xml")  # fmt: skip

# A call the URL's auth type or policy refuses (recorded on AWS 2025-11, test_lambda_permission_url_invocation).
FORBIDDEN = ("Forbidden. For troubleshooting Function URL authorization issues, see: "
             "https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html")
# Both are needed to call a URL created since October 2025, whatever its AuthType.
_URL_ACTIONS = ("lambda:InvokeFunctionUrl", "lambda:InvokeFunction")
# (status, body, headers, content type): what wire turns into its Response
Answer = tuple[int, bytes, list[tuple[str, str]], str]
Caller = Callable[[], "Principal | ServiceError | None"]


class FunctionUrls:
    def __init__(
        self, service: LambdaService, invoker: Invoker, endpoint_url: str,
        authorize: Callable[[RequestContext, dict[str, Any]], None],
    ) -> None:  # fmt: skip
        self.service = service
        self.store = service.store
        self.invoker = invoker
        self.endpoint = urlsplit(endpoint_url)
        self.authorize = authorize  # the stack's IAM authorization, for AWS_IAM callers

    # ------------------------------------------------------------------ configuration
    def _target(
        self, ctx: RequestContext, params: dict[str, Any], *, checked: bool = True
    ) -> tuple[names.FunctionRef, str]:
        """The function and qualifier a call names; `checked=False` (a read, a delete) does not look them
        up: AWS answers a missing function's URL config as any missing one."""
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        if ref.qualifier is not None and ref.qualifier.isdigit():  # a URL is for $LATEST or an alias
            raise errors.invalid(f"Function URLs are not supported for published versions: {ref.qualifier}")
        if not checked:
            return ref, self.service.stored_qualifier(ref)
        try:
            return ref, self.service.existing_qualifier(ref)
        except ServiceError as err:  # a missing function or alias, in the words AWS records for writes
            if err.code != "ResourceNotFoundException":
                raise
            raise errors.not_found("Function does not exist") from None

    def create(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._target(ctx, params)
        if self.store.get_url(ref.key, qualifier) is not None:
            raise errors.conflict(
                f"Failed to create function url config for [functionArn = {ref.arn(qualifier or None)}]. "
                "Error message:  FunctionUrlConfig exists for this Lambda function"
            )
        url_id = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(32))
        now = _now()
        config = {
            "FunctionUrl": self._url(url_id, ref.region),
            "FunctionArn": ref.arn(qualifier or None),
            "AuthType": params["AuthType"],
            "Cors": params.get("Cors"),
            "CreationTime": now,
            "LastModifiedTime": now,
            "InvokeMode": params.get("InvokeMode") or "BUFFERED",
            "_invoke_mode_given": "InvokeMode" in params,
        }
        with self.store.db.transaction() as conn:
            self.store.put_url(conn, ref.key, qualifier, url_id, config)
        out = _render(config)
        del out["LastModifiedTime"]  # not a member of CreateFunctionUrlConfig's answer
        if "InvokeMode" not in params:  # the answer echoes InvokeMode only when it was given (recorded)
            out.pop("InvokeMode", None)
        return out

    @staticmethod
    def _echoes_mode(config: dict[str, Any], params: dict[str, Any]) -> bool:
        """Whether a write's answer shows InvokeMode: once it has been given, at create or since
        (recorded: an update without it, after a create with BUFFERED, answers RESPONSE_STREAM as set
        by the update before; after a create without it, none)."""
        return "InvokeMode" in params or bool(config.get("_invoke_mode_given"))

    def get(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._target(ctx, params, checked=False)
        return _render(self._stored(ref, qualifier))

    def update(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier = self._target(ctx, params)
        config = self._stored(ref, qualifier)
        for member in ("AuthType", "Cors", "InvokeMode"):
            if member in params:
                config[member] = params[member]
        config["_invoke_mode_given"] = self._echoes_mode(config, params)
        config["LastModifiedTime"] = _now()
        url_id = _url_id(config["FunctionUrl"])
        with self.store.db.transaction() as conn:
            self.store.put_url(conn, ref.key, qualifier, url_id, config)
        out = _render(config)
        if not config["_invoke_mode_given"]:  # as CreateFunctionUrlConfig's answer (recorded)
            out.pop("InvokeMode", None)
        return out

    def delete(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref, qualifier = self._target(ctx, params, checked=False)
        self._stored(ref, qualifier)
        with self.store.db.transaction() as conn:
            self.store.delete_url(conn, ref.key, qualifier)

    def list(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        if self.store.get_function(ref.key) is None:  # recorded in these words
            raise errors.not_found("Function does not exist")
        rendered = [_render(c) for c in self.store.list_urls(ref.key)]
        return paging.page(rendered, params.get("Marker"), params.get("MaxItems") or 50, "FunctionUrlConfigs",
                           lambda c: c)

    def _stored(self, ref: names.FunctionRef, qualifier: str) -> dict[str, Any]:
        config = self.store.get_url(ref.key, qualifier)
        if config is None:
            raise errors.not_found("The resource you requested does not exist.")
        return config

    def _url(self, url_id: str, region: str) -> str:
        port = f":{self.endpoint.port}" if self.endpoint.port else ""
        return f"{self.endpoint.scheme}://{url_id}.lambda-url.{region}.localhost{port}/"

    # ------------------------------------------------------------------ HTTP calls
    @staticmethod
    def addressed(host: str, path: str) -> bool:
        """Whether a request is for a function URL or a Code.Location (cheap: every request is asked)."""
        return path.startswith((PATH_PREFIX, code_location.PATH_PREFIX)) or ".lambda-url." in host

    def serve(self, request: Any, caller: Caller) -> Answer:
        """One HTTP call to a function URL. `request`: wire's Request (method, path, raw_path,
        query_string, headers, body, client_host)."""
        host = request.headers.get("host", "").lower()
        if request.path.startswith(code_location.PATH_PREFIX) and ".lambda-url." not in host:
            status, body, content_type = self.service.code_locations.serve(request.path, request.query_string)
            return status, body, [], content_type
        found = _HOST.fullmatch(host)
        raw_path = request.raw_path
        if found is not None:
            url_id = found.group(1)
        else:
            by_path = _PATH.fullmatch(request.path)
            if by_path is None:
                return _message(404, "Not Found")
            url_id = by_path.group(1)
            raw_path = raw_path[len(PATH_PREFIX) + len(url_id):] or "/"
        stored = self.store.url_by_id(url_id)
        if stored is None:
            return _no_url()
        key, qualifier, config = stored
        cors, origin = config.get("Cors"), request.headers.get("origin")
        if url_cors.is_preflight(request.method, request.headers, cors):
            return 200, b"", url_cors.preflight(cors or {}, origin), "application/json"
        status, body, headers, content_type = self._call(request, raw_path, url_id, config, key, qualifier, caller)
        return status, body, url_cors.response(cors, origin, headers), content_type

    def _call(
        self, request: Any, raw_path: str, url_id: str, config: dict[str, Any], key: tuple[str, str, str],
        qualifier: str, caller: Caller,
    ) -> Answer:  # fmt: skip
        account, region, name = key
        principal = caller()
        refused = self._refusal(config, account, region, name, qualifier, principal)
        if refused is not None:
            return refused
        request_id = str(uuid.uuid4())
        event = _event(request, raw_path, url_id, account, region, request_id, principal)
        try:
            out = self.invoker.invoke(
                account, region, name, json.dumps(event).encode(), "RequestResponse",
                qualifier or None, request_id=request_id,
            )  # fmt: skip
        except ServiceError as err:
            if err.status == 429:
                return _message(429, "Rate Exceeded.")
            return _failed()
        if out.get("FunctionError"):
            return _failed()
        return _response(bytes(out.get("Payload") or b""), request_id)

    def _refusal(
        self, config: dict[str, Any], account: str, region: str, name: str, qualifier: str,
        principal: Principal | ServiceError | None,
    ) -> Answer | None:  # fmt: skip
        auth = config["AuthType"]
        found = self.store.get_policy((account, region, name), qualifier)
        doc = found[0] if found else None
        # what the resource policy's conditions see: the URL's auth type, and that it is a URL call
        context = {"lambda:FunctionUrlAuthType": auth, "lambda:InvokedViaFunctionUrl": "true"}
        if auth == "NONE":
            who = ("AWS", principal.arn) if isinstance(principal, Principal) else ("AWS", "*")
            if all(policy.allows(doc, action, who, context) for action in _URL_ACTIONS):
                return None
            return _message(403, FORBIDDEN)
        if not isinstance(principal, Principal):
            return _message(403, FORBIDDEN)
        arn = errors.function_arn(region, account, name, qualifier or None)
        for action in _URL_ACTIONS:
            by_identity = principal.account == account and self._identity_allows(principal, action, arn, region)
            if not by_identity and not policy.allows(doc, action, ("AWS", principal.arn), context):
                return _message(403, FORBIDDEN)
        return None

    def _identity_allows(self, principal: Principal, action: str, arn: str, region: str) -> bool:
        """The caller's own policies (boundary and session policies too, through the stack's
        authorizer), which see the URL's condition keys (authorization_requests)."""
        ctx = RequestContext("lambda", _URL_OPERATIONS[action], principal.account, region, principal)
        try:
            self.authorize(ctx, {"FunctionName": arn, "FunctionUrlAuthType": "AWS_IAM"})
        except ServiceError:
            return False
        return True


# The authorizer's operation for each action a URL call needs: names no API call has, so that only
# a URL call gets the URL's condition keys.
_URL_OPERATIONS = {"lambda:InvokeFunctionUrl": "InvokeFunctionUrl", "lambda:InvokeFunction": "InvokeViaFunctionUrl"}
_URL_ACTION_OF = {operation: action for action, operation in _URL_OPERATIONS.items()}


def authorization_requests(
    ctx: RequestContext, params: dict[str, Any], resources: Callable[[RequestContext, dict[str, Any]], list[str]]
) -> list[tuple[str, str, dict[str, list[str]]]] | None:
    """The stack's action resolver for Lambda: a URL call's actions carry lambda:FunctionUrlAuthType
    and lambda:InvokedViaFunctionUrl, as on AWS (identity policies may require them); any other call
    is the operation's own action (None)."""
    action = _URL_ACTION_OF.get(ctx.operation)
    if action is None:
        return None
    keys = {"lambda:functionurlauthtype": [str(params["FunctionUrlAuthType"])],
            "lambda:invokedviafunctionurl": ["true"]}  # fmt: skip
    return [(action, resource, keys) for resource in resources(ctx, params)]


def _event(
    request: Any, raw_path: str, url_id: str, account: str, region: str, request_id: str,
    principal: Principal | ServiceError | None,
) -> dict[str, Any]:  # fmt: skip
    """The payload format 2.0 request event."""
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for key, value in request.headers.items():
        if key == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
        else:
            headers[key] = value
    query: dict[str, str] = {}
    for key, value in parse_qsl(request.query_string, keep_blank_values=True):
        query[key] = f"{query[key]},{value}" if key in query else value
    now = time.time()
    body, encoded = _body(request.body, headers.get("content-type", ""))
    domain = f"{url_id}.lambda-url.{region}.on.aws"
    authorizer = None
    if isinstance(principal, Principal):
        authorizer = {"iam": {
            "accessKey": principal.access_key, "accountId": principal.account, "callerId": principal.name,
            "cognitoIdentity": None, "principalOrgId": None, "userArn": principal.arn, "userId": principal.name,
        }}  # fmt: skip
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": raw_path.split("?", 1)[0] or "/",
        "rawQueryString": request.query_string,
        "headers": headers,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        event["queryStringParameters"] = query
    context: dict[str, Any] = {
        "accountId": "anonymous" if principal is None else account,
        "apiId": url_id,
        "domainName": domain,
        "domainPrefix": url_id,
        "http": {
            "method": request.method, "path": raw_path.split("?", 1)[0] or "/", "protocol": "HTTP/1.1",
            "sourceIp": request.client_host, "userAgent": headers.get("user-agent", ""),
        },
        "requestId": request_id,
        "routeKey": "$default",
        "stage": "$default",
        "time": datetime.fromtimestamp(now, UTC).strftime("%d/%b/%Y:%H:%M:%S +0000"),
        "timeEpoch": int(now * 1000),
    }  # fmt: skip
    if authorizer is not None:
        context["authorizer"] = authorizer
    event["requestContext"] = context
    if body is not None:
        event["body"] = body
    event["isBase64Encoded"] = encoded
    return event


def _body(data: bytes, content_type: str) -> tuple[str | None, bool]:
    if not data:
        return None, False
    if any(t in content_type.lower() for t in _TEXT_TYPES):
        try:
            return data.decode(), False
        except UnicodeDecodeError:
            pass
    return base64.b64encode(data).decode(), True


def _response(payload: bytes, request_id: str) -> Answer:
    """The HTTP answer for a handler's result: a {statusCode, headers, body, cookies,
    isBase64Encoded} object, or any other JSON value as a 200 application/json body."""
    try:
        result = json.loads(payload) if payload else None
    except ValueError:
        return 200, payload, [("x-amzn-requestid", request_id)], "application/json"
    extra = [("x-amzn-requestid", request_id)]
    if not (isinstance(result, dict) and "statusCode" in result):
        # written again as compact JSON (recorded: {"hello":"world"} is 17 bytes, ["hello",3,true] 16)
        text = result if isinstance(result, str) else _compact(result)
        return 200, text.encode(), extra, "application/json"
    headers = {str(k).lower(): str(v) for k, v in (result.get("headers") or {}).items()}
    content_type = headers.pop("content-type", "application/json")
    raw = result.get("body")
    text = raw if isinstance(raw, str) else ("" if raw is None else _compact(raw))
    body: bytes = base64.b64decode(text) if result.get("isBase64Encoded") else text.encode()
    out = [*headers.items(), *(("set-cookie", str(c)) for c in result.get("cookies") or []), *extra]
    try:
        status = int(result["statusCode"])
    except (TypeError, ValueError):
        return _failed()
    return status, body, out, content_type


def _message(status: int, message: str) -> Answer:
    return status, json.dumps({"Message": message}).encode(), [], "application/json"


def _compact(value: Any) -> str:
    """JSON as the URL front end writes it again (Jackson: no spaces, non-ASCII as is; the latter UNCONFIRMED)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _failed() -> Answer:
    """A function error or an answer that is no HTTP response: 502 with the bare words (recorded:
    test_lambda_url_invocation_exception's body is 'Internal Server Error'; the type UNCONFIRMED)."""
    return 502, b"Internal Server Error", [], "application/json"


def _no_url() -> Answer:
    """A URL id no config has: AWS answers 403 {"Message":null} as an AccessDeniedException
    (LocalStack's AWS-validated test_lambda_url_non_existing_url)."""
    return 403, b'{"Message":null}', [("x-amzn-ErrorType", "AccessDeniedException")], "application/json"


def _render(config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "FunctionUrl": config["FunctionUrl"],
        "FunctionArn": config["FunctionArn"],
        "AuthType": config["AuthType"],
    }
    if config.get("Cors"):
        out["Cors"] = config["Cors"]
    out["CreationTime"] = config["CreationTime"]
    out["LastModifiedTime"] = config["LastModifiedTime"]
    out["InvokeMode"] = config.get("InvokeMode", "BUFFERED")
    return out


def _url_id(url: str) -> str:
    return urlsplit(url).hostname.split(".", 1)[0]  # type: ignore[union-attr]


def _now() -> str:
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}Z"
