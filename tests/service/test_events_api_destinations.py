"""EventBridge connections and API destinations: a rule calling an HTTP endpoint on loopback with
the connection's authorization and the target's HTTP parameters; AWS's errors for bad input."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class Hook:
    """A loopback HTTP endpoint that records requests and fails the first `fail` of them with 500."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fail = 0
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                hook.requests.append({"path": self.path, "headers": dict(self.headers), "body": body.decode()})
                status = 500 if hook.fail > 0 else 200
                hook.fail -= 1
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, count: int, timeout: float = 30) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.requests


@pytest.fixture
def hook() -> Iterator[Hook]:
    h = Hook()
    yield h
    h.server.shutdown()
    h.server.server_close()


def error(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as info:
        call()
    return info.value.response["Error"]["Code"], info.value.response["Error"]["Message"]


def role(aws: Callable[..., Any], allowed: bool = True) -> str:
    name = uid("apidest")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    arn = aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    if allowed:
        aws("iam").put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=json.dumps({
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "events:InvokeApiDestination", "Resource": "*"}]}))
    return arn


def test_a_rule_calls_an_api_destination(aws: Callable[..., Any], hook: Hook) -> None:
    events = aws("events")
    name = uid("conn")
    conn = events.create_connection(Name=name, AuthorizationType="BASIC", AuthParameters={
        "BasicAuthParameters": {"Username": "ops", "Password": "s3cret"},
        "InvocationHttpParameters": {"HeaderParameters": [{"Key": "x-team", "Value": "orders"}]}})
    assert conn["ConnectionState"] == "AUTHORIZED"
    described = events.describe_connection(Name=name)
    assert described["AuthParameters"]["BasicAuthParameters"] == {"Username": "ops"}  # no password shown
    dest = events.create_api_destination(Name=uid("dest"), ConnectionArn=conn["ConnectionArn"], HttpMethod="POST",
                                         InvocationEndpoint=f"{hook.url}/orders/*")["ApiDestinationArn"]
    source = uid("com.shop")
    rule = uid("rule")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": [source]}))
    events.put_targets(Rule=rule, Targets=[{
        "Id": "hook", "Arn": dest, "RoleArn": role(aws), "InputPath": "$.detail",
        "HttpParameters": {"PathParameterValues": ["o-1"], "QueryStringParameters": {"v": "2"},
                           "HeaderParameters": {"x-extra": "yes"}}}])
    hook.fail = 1  # the first call gets a 500: EventBridge retries it
    events.put_events(Entries=[{"Source": source, "DetailType": "Order", "Detail": '{"id": "o-1"}'}])
    got = hook.wait(2)
    assert len(got) == 2 and got[0] == got[1]
    request = got[1]
    assert request["path"] == "/orders/o-1?v=2"
    assert json.loads(request["body"]) == {"id": "o-1"}
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["authorization"] == "Basic " + base64.b64encode(b"ops:s3cret").decode()
    assert (headers["x-team"], headers["x-extra"]) == ("orders", "yes")
    assert headers["content-type"] == "application/json; charset=utf-8"


def test_a_role_without_invoke_api_destination_calls_nothing(aws: Callable[..., Any], hook: Hook) -> None:
    events = aws("events")
    conn = events.create_connection(Name=uid("conn"), AuthorizationType="API_KEY", AuthParameters={
        "ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "k"}})["ConnectionArn"]
    make = lambda n: events.create_api_destination(  # noqa: E731
        Name=uid(n), ConnectionArn=conn, HttpMethod="POST", InvocationEndpoint=f"{hook.url}/{n}")["ApiDestinationArn"]
    denied, allowed = make("denied"), make("allowed")
    source = uid("com.shop")
    rule = uid("rule")
    events.put_rule(Name=rule, EventPattern=json.dumps({"source": [source]}))
    events.put_targets(Rule=rule, Targets=[{"Id": "d", "Arn": denied, "RoleArn": role(aws, allowed=False)},
                                           {"Id": "a", "Arn": allowed, "RoleArn": role(aws)}])
    events.put_events(Entries=[{"Source": source, "DetailType": "x", "Detail": "{}"}])
    got = hook.wait(1)
    time.sleep(0.3)  # the denied delivery, were it made, would land within this
    assert [r["path"] for r in got] == ["/allowed"]
    assert {k.lower(): v for k, v in got[0]["headers"].items()}["x-api-key"] == "k"


def test_connection_and_destination_errors(aws: Callable[..., Any]) -> None:
    events = aws("events")
    name = uid("conn")
    arn = events.create_connection(Name=name, AuthorizationType="API_KEY", AuthParameters={
        "ApiKeyAuthParameters": {"ApiKeyName": "k", "ApiKeyValue": "v"}})["ConnectionArn"]
    assert error(lambda: events.create_connection(Name=name, AuthorizationType="API_KEY", AuthParameters={
        "ApiKeyAuthParameters": {"ApiKeyName": "k", "ApiKeyValue": "v"}})) == (
        "ResourceAlreadyExistsException", f"Connection {name} already exists.")
    # Describe* lead with what failed (LocalStack's AWS-recorded snapshots); moto's words are the rest's
    assert error(lambda: events.describe_connection(Name="none")) == (
        "ResourceNotFoundException", "Failed to describe the connection(s). Connection 'none' does not exist.")
    assert error(lambda: events.describe_api_destination(Name="none")) == (
        "ResourceNotFoundException", "Failed to describe the api-destination(s). An api-destination 'none' does not "
        "exist.")
    assert error(lambda: events.delete_api_destination(Name="none")) == (
        "ResourceNotFoundException", "An api-destination 'none' does not exist.")
    assert error(lambda: events.update_connection(Name="none")) == (
        "ResourceNotFoundException", "Connection 'none' does not exist.")
    assert error(lambda: events.create_api_destination(Name=uid("d"), ConnectionArn=arn, HttpMethod="POST",
                                                       InvocationEndpoint="not a url"))[0] == "ValidationException"
    assert events.deauthorize_connection(Name=name)["ConnectionState"] == "DEAUTHORIZED"
    assert events.delete_connection(Name=name)["ConnectionState"] == "DELETING"
    assert error(lambda: events.describe_connection(Name=name))[0] == "ResourceNotFoundException"
