"""The HTTP Task (arn:aws:states:::http:invoke) against a loopback server, authorized by an
EventBridge connection, and TestState's TRACE inspection of its request and response (boto3)."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import botocore.config
import botocore.exceptions
import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


class Endpoint(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        headers = {k.lower(): v for k, v in self.headers.items()}
        Endpoint.seen.append({"method": self.command, "path": self.path, "headers": headers, "body": body})
        status = 404 if self.path.startswith("/missing") else 200
        payload = json.dumps({"path": self.path, "body": body}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture(scope="module")
def web() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-http-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


@pytest.fixture(scope="module")
def connection(aws: Callable[..., Any]) -> str:
    return aws("events").create_connection(
        Name=f"http-{uuid.uuid4().hex[:8]}", AuthorizationType="API_KEY",
        AuthParameters={"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "s3cret"},
                        "InvocationHttpParameters": {"QueryStringParameters": [
                            {"Key": "tenant", "Value": "t1", "IsValueSecret": True}]}})["ConnectionArn"]


def task(web: str, connection: str, **extra: Any) -> dict[str, Any]:
    return {"Type": "Task", "Resource": "arn:aws:states:::http:invoke", "End": True, "Parameters": {
        "ApiEndpoint": web, "Method": "POST", "Authentication": {"ConnectionArn": connection}, **extra}}


def run(sfn: Any, role: str, state: dict[str, Any]) -> dict[str, Any]:
    sm = sfn.create_state_machine(name=f"http-{uuid.uuid4().hex[:10]}", roleArn=role,
                                  definition=json.dumps({"StartAt": "H", "States": {"H": state}}))["stateMachineArn"]
    arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def test_an_http_task_calls_the_endpoint_with_the_connection(aws: Callable[..., Any], role: str, web: str,
                                                              connection: str) -> None:
    sfn = aws("stepfunctions")
    d = run(sfn, role, task(f"{web}/orders", connection, QueryParameters={"n": "1"},
                            Headers={"X-Trace": "abc"}, RequestBody={"item": "book"}))
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert (out["StatusCode"], out["StatusText"]) == (200, "OK")
    assert out["Headers"]["content-type"] == ["application/json"]
    assert out["ResponseBody"] == {"path": "/orders?n=1&tenant=t1", "body": '{"item":"book"}'}
    seen = Endpoint.seen[-1]
    assert (seen["method"], seen["headers"]["x-api-key"], seen["headers"]["x-trace"]) == ("POST", "s3cret", "abc")


def test_an_error_status_fails_the_task(aws: Callable[..., Any], role: str, web: str, connection: str) -> None:
    d = run(aws("stepfunctions"), role, task(f"{web}/missing", connection))
    assert (d["status"], d["error"]) == ("FAILED", "States.Http.StatusCode.404")
    assert json.loads(d["cause"])["StatusCode"] == 404


@pytest.mark.parametrize("reveal", [False, True])
def test_test_state_traces_the_request_and_the_response(aws: Callable[..., Any], role: str, web: str,
                                                        connection: str, reveal: bool) -> None:
    state = task(f"{web}/t", connection, RequestBody={"a": 1})
    sfn = aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))  # TestState: "sync-"
    r = sfn.test_state(definition=json.dumps(state), roleArn=role, input="{}", inspectionLevel="TRACE",
                       revealSecrets=reveal)
    assert r["status"] == "SUCCEEDED", r
    request, response = r["inspectionData"]["request"], r["inspectionData"]["response"]
    assert (request["protocol"], request["method"], request["body"]) == ("http", "POST", '{"a":1}')
    headers = json.loads(request["headers"])
    if reveal:  # what the connection adds: its API key and its query parameter
        assert (request["url"], headers["x-api-key"]) == (f"{web}/t?tenant=t1", "s3cret")
    else:
        assert (request["url"], "x-api-key" in headers) == (f"{web}/t", False)
    assert (response["statusCode"], response["statusMessage"]) == ("200", "OK")
    assert json.loads(response["body"])["body"] == '{"a":1}'
    assert json.loads(response["headers"])["content-type"] == ["application/json"]


def test_reveal_secrets_needs_its_own_permission(aws: Callable[..., Any], role: str, web: str,
                                                 connection: str) -> None:
    iam, sts = aws("iam"), aws("sts")
    name = f"tester-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": "sts:AssumeRole"}]}
    tester = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    allow = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["states:TestState", "iam:PassRole"], "Resource": "*"}]}
    iam.put_role_policy(RoleName=name, PolicyName="test", PolicyDocument=json.dumps(allow))
    creds = sts.assume_role(RoleArn=tester, RoleSessionName="tester")["Credentials"]
    sfn = aws("stepfunctions", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
              session_token=creds["SessionToken"], config=botocore.config.Config(inject_host_prefix=False))
    state = json.dumps(task(f"{web}/t", connection))
    assert sfn.test_state(definition=state, roleArn=role, inspectionLevel="TRACE")["status"] == "SUCCEEDED"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        sfn.test_state(definition=state, roleArn=role, inspectionLevel="TRACE", revealSecrets=True)
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert "states:RevealSecrets" in e.value.response["Error"]["Message"]
