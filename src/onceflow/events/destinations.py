"""Connections and API destinations: HTTP endpoints as targets, with the connection's
authorization (Basic or API key) and HTTP parameters.

onceflow delivers API destinations to loopback endpoints only (127.0.0.0/8, ::1, localhost): a
local server must not be made to call out to the network by whoever can create a rule. OAuth
client-credentials connections are stored but their deliveries fail plainly (onceflow does not
fetch tokens). A connection's secrets stay in the store (as AWS keeps them in Secrets Manager);
Describe shows only the user name / key name, as AWS does. The request is as AWS sends it: the
target's input as the body (none for GET/HEAD), `*` in the endpoint replaced by the target's
PathParameterValues, the connection's then the target's headers and query parameters, a 5 s
timeout; 429 and 5xx are retried, other answers are not.
"""

from __future__ import annotations

import base64
import ipaddress
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.events import store
from onceflow.events.paging import paginate
from onceflow.outbound import mark_delivery

if TYPE_CHECKING:
    import sqlite3

    from onceflow.events.service import EventsService

Key = tuple[str, str]
TIMEOUT_S = 5.0
class HttpFailure(Exception):
    def __init__(self, code: str, message: str, retriable: bool) -> None:
        super().__init__(message)
        self.code, self.message, self.retriable = code, message, retriable


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def _connection_missing(name: str, describing: bool = False) -> ServiceError:
    # Describe* lead with what failed (LocalStack's AWS-recorded test_api_destinations_and_connection
    # snapshots, 2024-12); the other operations' words are moto's record.
    lead = "Failed to describe the connection(s). " if describing else ""
    return ServiceError("ResourceNotFoundException", f"{lead}Connection '{name}' does not exist.", 400)


def _destination_missing(name: str, describing: bool = False) -> ServiceError:
    lead = "Failed to describe the api-destination(s). " if describing else ""
    return ServiceError("ResourceNotFoundException", f"{lead}An api-destination '{name}' does not exist.", 400)


_TIMES = ("CreationTime", "LastModifiedTime", "LastAuthorizedTime")


def _out(body: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: (_when(body[k]) if k in _TIMES else body[k]) for k in keys if body.get(k) is not None}


def _redacted(auth: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "BasicAuthParameters" in auth:
        out["BasicAuthParameters"] = {"Username": auth["BasicAuthParameters"].get("Username")}
    if "ApiKeyAuthParameters" in auth:
        out["ApiKeyAuthParameters"] = {"ApiKeyName": auth["ApiKeyAuthParameters"].get("ApiKeyName")}
    if "OAuthParameters" in auth:
        oauth = auth["OAuthParameters"]
        out["OAuthParameters"] = {k: v for k, v in oauth.items() if k != "ClientParameters"}
        out["OAuthParameters"]["ClientParameters"] = {"ClientID": (oauth.get("ClientParameters") or {}).get("ClientID")}
    if "InvocationHttpParameters" in auth:
        out["InvocationHttpParameters"] = auth["InvocationHttpParameters"]
    return out


class Destinations:
    def __init__(self, events: EventsService) -> None:
        self.db = events.db

    # ------------------------------------------------------------------ connections
    def create_connection(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name, now = p["Name"], time.time()
        with self.db.transaction() as conn:
            if store.json_get(conn, "events_connections", key, name) is not None:
                raise ServiceError("ResourceAlreadyExistsException", f"Connection {name} already exists.", 400)
            suffix = uuid.uuid4()
            home = f"{partition(key[1])}:{{}}:{key[1]}:{key[0]}"  # partition, service, region, account
            body = {
                "ConnectionArn": f"arn:{home.format('events')}:connection/{name}/{suffix}", "Name": name,
                "Description": p.get("Description"), "ConnectionState": "AUTHORIZED",
                "AuthorizationType": p["AuthorizationType"], "AuthParameters": p["AuthParameters"],
                "SecretArn": f"arn:{home.format('secretsmanager')}:secret:events!connection/{name}/{suffix}",
                "CreationTime": now, "LastModifiedTime": now, "LastAuthorizedTime": now,
            }
            store.json_put(conn, "events_connections", key, name, body)
        return _out(body, ("ConnectionArn", "ConnectionState", "CreationTime", "LastModifiedTime"))

    def _connection(self, conn: sqlite3.Connection, key: Key, name: str, describing: bool = False) -> dict[str, Any]:
        body = store.json_get(conn, "events_connections", key, name)
        if body is None:
            raise _connection_missing(name, describing)
        return body

    def describe_connection(self, key: Key, name: str) -> dict[str, Any]:
        body = self.db.read(lambda c: self._connection(c, key, name, describing=True))
        out = _out(body, ("ConnectionArn", "Name", "Description", "ConnectionState", "AuthorizationType", "SecretArn",
                          "CreationTime", "LastModifiedTime", "LastAuthorizedTime"))
        out["AuthParameters"] = _redacted(body["AuthParameters"])
        return out

    def list_connections(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        bodies = self.db.read(lambda c: store.json_all(c, "events_connections", key))
        found = [_out(b, ("ConnectionArn", "Name", "ConnectionState", "AuthorizationType", "CreationTime",
                          "LastModifiedTime", "LastAuthorizedTime")) for b in bodies
                 if b["Name"].startswith(p.get("NamePrefix") or "")
                 and p.get("ConnectionState", b["ConnectionState"]) == b["ConnectionState"]]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"Connections": page, **({"NextToken": token} if token else {})}

    def update_connection(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        with self.db.transaction() as conn:
            body = self._connection(conn, key, p["Name"])
            for k in ("Description", "AuthorizationType"):
                if k in p:
                    body[k] = p[k]
            if "AuthParameters" in p:
                merged = dict(body["AuthParameters"])
                for k, v in p["AuthParameters"].items():
                    merged[k] = {**merged.get(k, {}), **v} if isinstance(v, dict) else v
                body["AuthParameters"] = merged
            body["LastModifiedTime"] = time.time()
            body["ConnectionState"] = "AUTHORIZED"
            store.json_put(conn, "events_connections", key, p["Name"], body)
        return _out(body, ("ConnectionArn", "ConnectionState", "CreationTime", "LastModifiedTime",
                           "LastAuthorizedTime"))

    def deauthorize_connection(self, key: Key, name: str) -> dict[str, Any]:
        with self.db.transaction() as conn:
            body = self._connection(conn, key, name)
            body.update({"ConnectionState": "DEAUTHORIZED", "LastModifiedTime": time.time()})
            store.json_put(conn, "events_connections", key, name, body)
        return _out(body, ("ConnectionArn", "ConnectionState", "CreationTime", "LastModifiedTime",
                           "LastAuthorizedTime"))

    def delete_connection(self, key: Key, name: str) -> dict[str, Any]:
        with self.db.transaction() as conn:
            body = self._connection(conn, key, name)
            store.json_delete(conn, "events_connections", key, name)
        body["ConnectionState"] = "DELETING"
        return _out(body, ("ConnectionArn", "ConnectionState", "CreationTime", "LastModifiedTime",
                           "LastAuthorizedTime"))

    # ------------------------------------------------------------------ API destinations
    def _connection_by_arn(self, conn: sqlite3.Connection, key: Key, arn: str) -> dict[str, Any]:
        parts = arn.split(":connection/", 1)
        name = parts[1].split("/", 1)[0] if len(parts) == 2 else arn
        body = store.json_get(conn, "events_connections", key, name)
        if body is None or body["ConnectionArn"] != arn:
            raise _connection_missing(name)
        return body

    def create_destination(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        # InvocationEndpoint is held to the model's pattern only (the wire checks it): AWS recorded no
        # other refusal of one (LocalStack's test_create_api_destination_invalid_parameters), and moto's
        # suite creates "www.google.com". Delivery goes to loopback http(s) URLs only (send()).
        name, now = p["Name"], time.time()
        with self.db.transaction() as conn:
            if store.json_get(conn, "events_destinations", key, name) is not None:
                raise ServiceError("ResourceAlreadyExistsException", f"An api-destination '{name}' already exists.",
                                   400)
            self._connection_by_arn(conn, key, p["ConnectionArn"])
            body = {
                "ApiDestinationArn": f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}"
                                     f":api-destination/{name}/{uuid.uuid4()}",
                "Name": name, "Description": p.get("Description"), "ApiDestinationState": "ACTIVE",
                "ConnectionArn": p["ConnectionArn"], "InvocationEndpoint": p["InvocationEndpoint"],
                "HttpMethod": p["HttpMethod"],
                "InvocationRateLimitPerSecond": p.get("InvocationRateLimitPerSecond", 300),
                "CreationTime": now, "LastModifiedTime": now,
            }
            store.json_put(conn, "events_destinations", key, name, body)
        return _out(body, ("ApiDestinationArn", "ApiDestinationState", "CreationTime", "LastModifiedTime"))

    def _destination(self, conn: sqlite3.Connection, key: Key, name: str, describing: bool = False) -> dict[str, Any]:
        body = store.json_get(conn, "events_destinations", key, name)
        if body is None:
            raise _destination_missing(name, describing)
        return body

    def describe_destination(self, key: Key, name: str) -> dict[str, Any]:
        body = self.db.read(lambda c: self._destination(c, key, name, describing=True))
        return _out(body, ("ApiDestinationArn", "Name", "Description", "ApiDestinationState", "ConnectionArn",
                           "InvocationEndpoint", "HttpMethod", "InvocationRateLimitPerSecond", "CreationTime",
                           "LastModifiedTime"))

    def list_destinations(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        bodies = self.db.read(lambda c: store.json_all(c, "events_destinations", key))
        found = [_out(b, ("ApiDestinationArn", "Name", "ApiDestinationState", "ConnectionArn", "InvocationEndpoint",
                          "HttpMethod", "InvocationRateLimitPerSecond", "CreationTime", "LastModifiedTime"))
                 for b in bodies if b["Name"].startswith(p.get("NamePrefix") or "")
                 and p.get("ConnectionArn", b["ConnectionArn"]) == b["ConnectionArn"]]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"ApiDestinations": page, **({"NextToken": token} if token else {})}

    def update_destination(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        with self.db.transaction() as conn:
            body = self._destination(conn, key, p["Name"])
            if "ConnectionArn" in p:
                self._connection_by_arn(conn, key, p["ConnectionArn"])
            for k in ("Description", "ConnectionArn", "InvocationEndpoint", "HttpMethod",
                      "InvocationRateLimitPerSecond"):
                if k in p:
                    body[k] = p[k]
            body["LastModifiedTime"] = time.time()
            store.json_put(conn, "events_destinations", key, p["Name"], body)
        return _out(body, ("ApiDestinationArn", "ApiDestinationState", "CreationTime", "LastModifiedTime"))

    def delete_destination(self, key: Key, name: str) -> None:
        with self.db.transaction() as conn:
            self._destination(conn, key, name)
            store.json_delete(conn, "events_destinations", key, name)

    # ------------------------------------------------------------------ delivery
    def resolve(self, key: Key, arn: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """(destination, connection) for a target ARN; HttpFailure when either is gone."""
        name = arn.split(":api-destination/", 1)[-1].split("/", 1)[0]
        with self.db.reading() as conn:
            dest = store.json_get(conn, "events_destinations", key, name)
            if dest is None or dest["ApiDestinationArn"] != arn:
                raise HttpFailure("ResourceNotFoundException", f"An api-destination '{name}' does not exist.", False)
            parts = dest["ConnectionArn"].split(":connection/", 1)[-1].split("/", 1)[0]
            connection = store.json_get(conn, "events_connections", key, parts)
        if connection is None:
            raise HttpFailure("ResourceNotFoundException", f"Connection '{parts}' does not exist.", False)
        return dest, connection


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _pairs(params: dict[str, Any] | None, kind: str) -> list[tuple[str, str]]:
    return [(p["Key"], p["Value"]) for p in (params or {}).get(kind) or [] if "Key" in p and "Value" in p]


def send(dest: dict[str, Any], connection: dict[str, Any], target: dict[str, Any], body: str) -> dict[str, Any]:
    """Make the HTTP call of one delivery; HttpFailure with AWS's retry decision."""
    if connection["ConnectionState"] != "AUTHORIZED":
        raise HttpFailure("ConnectionNotAuthorized", f"Connection {connection['Name']} is "
                          f"{connection['ConnectionState']}.", False)
    url = dest["InvocationEndpoint"]
    for value in (target.get("HttpParameters") or {}).get("PathParameterValues") or []:
        url = url.replace("*", urllib.parse.quote(value, safe=""), 1)
    parsed = urllib.parse.urlsplit(url)
    if not loopback(parsed.hostname or ""):
        raise HttpFailure("EndpointNotAllowed", f"onceflow delivers API destinations to loopback endpoints only, "
                          f"not {parsed.hostname}", False)
    auth = connection["AuthParameters"]
    conn_http = auth.get("InvocationHttpParameters") or {}
    target_http = target.get("HttpParameters") or {}
    headers = {"Content-Type": "application/json; charset=utf-8", "User-Agent": "Amazon/EventBridge/ApiDestinations"}
    headers.update(dict(_pairs(conn_http, "HeaderParameters")))
    headers.update(target_http.get("HeaderParameters") or {})
    kind = connection["AuthorizationType"]
    if kind == "BASIC":
        basic = auth.get("BasicAuthParameters") or {}
        token = base64.b64encode(f"{basic.get('Username', '')}:{basic.get('Password', '')}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    elif kind == "API_KEY":
        key = auth.get("ApiKeyAuthParameters") or {}
        headers[key.get("ApiKeyName", "x-api-key")] = key.get("ApiKeyValue", "")
    else:
        raise HttpFailure("UnsupportedAuthorization", "onceflow does not fetch OAuth tokens for API destinations",
                          False)
    query = urllib.parse.parse_qsl(parsed.query) + _pairs(conn_http, "QueryStringParameters") + \
        list((target_http.get("QueryStringParameters") or {}).items())
    url = urllib.parse.urlunsplit(parsed._replace(query=urllib.parse.urlencode(query)))
    method = dest["HttpMethod"]
    data = None if method in ("GET", "HEAD") else body.encode()
    request = mark_delivery(urllib.request.Request(url, data=data, headers=headers, method=method))
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # loopback only, checked above
            return {"StatusCode": answer.status}
    except urllib.error.HTTPError as e:
        e.close()
        raise HttpFailure(f"HTTP{e.code}", f"the endpoint answered {e.code}", e.code == 429 or e.code >= 500) from None
    except (urllib.error.URLError, OSError) as e:
        raise HttpFailure("ConnectionFailed", f"the endpoint could not be reached: {e}", True) from None
