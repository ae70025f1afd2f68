"""`arn:aws:states:::http:invoke`: the HTTP Task, authorized by an EventBridge connection.

The request is ApiEndpoint + QueryParameters with Method, Headers and RequestBody (JSON, or
form-encoded with Transform.RequestBodyEncoding URL_ENCODED), plus what the connection adds: its
Basic or API-key authorization and its InvocationHttpParameters (headers, query string, body
fields). The result is {Headers (lists of values), ResponseBody (parsed JSON when it is JSON),
StatusCode, StatusText}; an answer of 400 or more fails with States.Http.StatusCode.<code>, an
endpoint that cannot be reached with States.Http.Socket. As for API destinations
(events/destinations.py), onceflow calls loopback endpoints only.

TestState at inspectionLevel TRACE gets the request and the response (`TRACE`, a context
variable the in-memory engine's inline calls see); without revealSecrets, what the connection
added is left out of the request shown, as AWS does.
"""

from __future__ import annotations

import base64
import contextvars
import json
import urllib.error
import urllib.parse
import urllib.request
from http.client import responses
from typing import Any

from onceflow.events import store as events_store
from onceflow.events.destinations import loopback
from onceflow.outbound import mark_delivery
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import handed_over
from onceflow.stack import Stack

TIMEOUT_S = 60.0  # AWS: an HTTP Task's request times out after 60 seconds
# [(request, response)] of the HTTP calls TestState traces, and whether secrets are shown.
TRACE: contextvars.ContextVar[tuple[list[dict[str, Any]], bool] | None] = contextvars.ContextVar(
    "sfn_http_trace", default=None)


def _runtime(message: str) -> StatesError:
    return StatesError("States.Runtime", message)


def _pairs(params: dict[str, Any], kind: str) -> list[tuple[str, str]]:
    return [(str(p["Key"]), str(p["Value"])) for p in params.get(kind) or [] if "Key" in p and "Value" in p]


def _connection(stack: Stack, account: str, region: str, arn: str) -> dict[str, Any]:
    events = stack.ports.events.get()
    name = arn.split(":connection/", 1)[-1].split("/", 1)[0]
    body = None
    if events is not None:
        body = events.db.read(lambda conn: events_store.json_get(conn, "events_connections", (account, region), name))
    if body is None or body.get("ConnectionArn") != arn:
        raise StatesError("States.Runtime", f"The connection {arn} does not exist")  # UNCONFIRMED wording
    return body


def _auth(connection: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str]], list[tuple[str, str]]]:
    """(headers, query pairs, body pairs) the connection adds to every request."""
    if connection.get("ConnectionState") != "AUTHORIZED":
        raise StatesError("States.Http.Socket", f"The connection {connection['Name']} is "
                          f"{connection.get('ConnectionState')}")
    params = connection["AuthParameters"]
    extra = params.get("InvocationHttpParameters") or {}
    headers = dict(_pairs(extra, "HeaderParameters"))
    kind = connection.get("AuthorizationType")
    if kind == "BASIC":
        basic = params.get("BasicAuthParameters") or {}
        token = base64.b64encode(f"{basic.get('Username', '')}:{basic.get('Password', '')}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    elif kind == "API_KEY":
        key = params.get("ApiKeyAuthParameters") or {}
        headers[key.get("ApiKeyName", "x-api-key")] = key.get("ApiKeyValue", "")
    else:
        raise StatesError("States.Http.Socket", "onceflow does not fetch OAuth tokens for HTTP Tasks")
    return headers, _pairs(extra, "QueryStringParameters"), _pairs(extra, "BodyParameters")


def _body(params: dict[str, Any], extra: list[tuple[str, str]]) -> tuple[str | None, str]:
    """(the body text, its content type)."""
    body = params.get("RequestBody")
    encoding = ((params.get("Transform") or {}).get("RequestBodyEncoding")) or "NONE"
    if encoding == "URL_ENCODED":
        pairs = list(body.items()) if isinstance(body, dict) else []
        return urllib.parse.urlencode([(k, v if isinstance(v, str) else json.dumps(v)) for k, v in pairs + extra]), \
            "application/x-www-form-urlencoded"
    if extra:
        body = {**(body if isinstance(body, dict) else {}), **dict(extra)}
    if body is None:
        return None, "application/json; charset=UTF-8"
    return (body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))), \
        "application/json; charset=UTF-8"


def _headers_text(headers: dict[str, Any]) -> str:
    return json.dumps(headers, separators=(",", ":"))


def call(stack: Stack, account: str, region: str, params: Any) -> dict[str, Any]:
    if not isinstance(params, dict):
        raise _runtime("The HTTP Task needs Parameters (ApiEndpoint, Method, Authentication)")
    endpoint, method = params.get("ApiEndpoint"), params.get("Method")
    arn = (params.get("Authentication") or {}).get("ConnectionArn")
    if not isinstance(endpoint, str) or not isinstance(method, str) or not isinstance(arn, str):
        raise _runtime("The HTTP Task requires the fields ApiEndpoint, Method and Authentication.ConnectionArn")
    conn_headers, conn_query, conn_body = _auth(_connection(stack, account, region, arn))
    parsed = urllib.parse.urlsplit(endpoint)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise _runtime(f"The ApiEndpoint {endpoint} is not an HTTP(S) URL")
    if not loopback(parsed.hostname):
        raise StatesError("States.Http.Socket", f"onceflow calls loopback endpoints only, not {parsed.hostname}")
    query = urllib.parse.parse_qsl(parsed.query) + [
        (k, v if isinstance(v, str) else json.dumps(v)) for k, v in (params.get("QueryParameters") or {}).items()]
    body, content_type = _body(params, conn_body)
    headers = {"Content-Type": content_type, "User-Agent": "Amazon|StepFunctions|HttpInvoke|" + region}
    headers.update({k: str(v) for k, v in (params.get("Headers") or {}).items()})
    shown_url = urllib.parse.urlunsplit(parsed._replace(query=urllib.parse.urlencode(query)))
    shown_headers, shown_body = dict(headers), _body(params, [])[0]
    headers.update(conn_headers)
    url = urllib.parse.urlunsplit(parsed._replace(query=urllib.parse.urlencode(query + conn_query)))
    trace = TRACE.get()
    if trace is not None and trace[1]:  # revealSecrets: the request as sent
        shown_url, shown_headers, shown_body = url, dict(headers), body
    request = mark_delivery(urllib.request.Request(url, data=None if body is None else body.encode(),
                                                   headers=headers, method=method.upper()))
    handed_over()
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # loopback only, checked above
            status, reason, raw, answer_headers = answer.status, answer.reason, answer.read(), answer.headers
    except urllib.error.HTTPError as e:
        status, reason, raw, answer_headers = e.code, e.reason, e.read(), e.headers
        e.close()
    except (urllib.error.URLError, OSError) as e:
        raise StatesError("States.Http.Socket", f"The endpoint could not be reached: {e}") from None
    text = raw.decode("utf-8", "replace")
    lists: dict[str, list[str]] = {}
    for k, v in answer_headers.items():
        lists.setdefault(k.lower(), []).append(v)
    try:
        response_body: Any = json.loads(text) if text else text
    except ValueError:
        response_body = text
    reason = reason or responses.get(status, "")
    if trace is not None:
        trace[0].append({
            "request": {"protocol": parsed.scheme, "method": method.upper(), "url": shown_url,
                        "headers": _headers_text(shown_headers), "body": shown_body or ""},
            "response": {"protocol": parsed.scheme, "statusCode": str(status), "statusMessage": reason,
                         "headers": _headers_text(lists), "body": text},
        })
    result = {"Headers": lists, "ResponseBody": response_body, "StatusCode": status, "StatusText": reason}
    if status >= 400:
        raise StatesError(f"States.Http.StatusCode.{status}", json.dumps(result, separators=(",", ":")))
    return result


__all__ = ["TRACE", "call"]
