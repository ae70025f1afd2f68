"""What a web page in the user's browser can make onceflow do: nothing. Cross-origin requests
(Origin, Sec-Fetch-Site) and requests addressed to a foreign Host (DNS rebinding) are refused
before they are routed, and change nothing; CORS preflights are answered for --cors-origin only."""

from __future__ import annotations

import http.client
import json
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverproc import ServerProcess, signed_headers

EVIL = "http://evil.example"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def raw(endpoint: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
        ) -> tuple[int, dict[str, str], bytes]:
    url = urllib.parse.urlsplit(endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def query_error(body: bytes) -> str:
    root = ET.fromstring(body)
    assert root.tag.endswith("ErrorResponse")
    return root.find("{*}Error/{*}Code").text  # type: ignore[union-attr,return-value]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def guarded() -> Iterator[ServerProcess]:
    """A server of its own (tests here reset it), allowing one extra Host and one web origin."""
    proc = ServerProcess(extra_args=("--allow-host", "onceflow.test", "--cors-origin", "http://localhost:3000")).start()
    yield proc
    proc.stop()


# ---------------------------------------------------------------- the cross-site chain
def test_a_page_cannot_create_a_role_with_a_form_post(endpoint: str, aws: Callable[..., Any]) -> None:
    role = unique("xsite")
    form = urllib.parse.urlencode({"Action": "CreateRole", "Version": "2010-05-08", "RoleName": role,
                                   "AssumeRolePolicyDocument": TRUST}).encode()
    browser = {"Content-Type": "application/x-www-form-urlencoded", "Origin": EVIL, "Sec-Fetch-Site": "cross-site",
               "Sec-Fetch-Mode": "no-cors", "Referer": EVIL + "/attack.html"}
    status, _, body = raw(endpoint, "POST", "/", form, browser)
    assert (status, query_error(body)) == (403, "AccessDenied")
    # Even signed with the well-known test keys in the query string (a page can compute that), the
    # Origin gives it away.
    presigned = aws("iam").generate_presigned_url("create_role", Params={"RoleName": role,
                                                                         "AssumeRolePolicyDocument": TRUST})
    parts = urllib.parse.urlsplit(presigned)
    status, _, body = raw(endpoint, "POST", f"{parts.path}?{parts.query}", b"", browser)
    assert (status, query_error(body)) == (403, "AccessDenied")
    with pytest.raises(ClientError) as exc:
        aws("iam").get_role(RoleName=role)
    assert exc.value.response["Error"]["Code"] == "NoSuchEntity"


def test_a_page_cannot_create_a_function_with_a_text_plain_post(endpoint: str, aws: Callable[..., Any]) -> None:
    name = unique("xsite")
    body = json.dumps({"FunctionName": name, "Runtime": "python3.12", "Handler": "app.handler",
                       "Role": "arn:aws:iam::000000000000:role/r",
                       "Code": {"ZipFile": "UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA=="}}).encode()
    for evidence in ({"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"},
                     {"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}):
        headers = {"Content-Type": "text/plain;charset=UTF-8", **evidence}
        status, got, answer = raw(endpoint, "POST", "/2015-03-31/functions", body, headers)
        assert (status, got.get("x-amzn-errortype")) == (403, "AccessDeniedException"), evidence
        assert "another origin" in json.loads(answer)["message"]
    with pytest.raises(ClientError) as exc:
        aws("lambda").get_function(FunctionName=name)
    assert exc.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_signed_call_from_a_foreign_origin_is_refused_in_the_json_shape(endpoint: str) -> None:
    body = b"{}"
    headers = signed_headers("POST", endpoint + "/", "dynamodb", body, {
        "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"})
    status, _, answer = raw(endpoint, "POST", "/", body, {**headers, "Origin": EVIL})
    assert status == 403 and json.loads(answer)["__type"].endswith("#AccessDeniedException")
    status, _, _ = raw(endpoint, "POST", "/", body, {**headers, "Sec-Fetch-Site": "same-origin"})
    assert status == 200  # a page of onceflow's own origin, or no browser at all, is fine


def test_the_console_pages_still_answer_gets(endpoint: str) -> None:
    status, headers, _ = raw(endpoint, "GET", "/states", headers={"Sec-Fetch-Site": "none"})
    assert status == 200 and headers["content-type"].startswith("text/html")


# ---------------------------------------------------------------- Host (DNS rebinding)
def test_a_foreign_host_is_refused_before_routing(endpoint: str, aws: Callable[..., Any]) -> None:
    port = urllib.parse.urlsplit(endpoint).port
    table = unique("rebind")
    body = json.dumps({"TableName": table, "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                       "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                       "BillingMode": "PAY_PER_REQUEST"}).encode()
    rebound = f"http://evil.example:{port}/"  # the page's own name, now resolving to 127.0.0.1
    headers = signed_headers("POST", rebound, "dynamodb", body, {
        "X-Amz-Target": "DynamoDB_20120810.CreateTable", "Content-Type": "application/x-amz-json-1.0",
        "Host": f"evil.example:{port}"})
    status, _, answer = raw(endpoint, "POST", "/", body, headers)
    assert status == 403 and json.loads(answer)["__type"].endswith("#AccessDeniedException")
    assert "Host: evil.example" in json.loads(answer)["message"]
    assert table not in aws("dynamodb").list_tables()["TableNames"]
    for path in ("/states", "/_onceflow/health"):
        assert raw(endpoint, "GET", path, headers={"Host": f"evil.example:{port}"})[0] == 403


@pytest.mark.parametrize("host", [
    "localhost.evil.example", "127.0.0.1.nip.io", "evil.example.", "[::1].evil.example", "[::1]evil.example",
    "127.0.0.1:{port} evil.example", "localhost:{port}:80", "localhost:evil", ":{port}", "localhost..",
    "[localhost]", "[evil.example]", "localhost%2eevil.example",
])
def test_rebinding_and_malformed_hosts_are_refused_everywhere(endpoint: str, aws: Callable[..., Any],
                                                              host: str) -> None:
    """A Host that is not exactly a loopback `name[:port]` is refused: no part of it is taken for the name."""
    port = urllib.parse.urlsplit(endpoint).port
    host = host.format(port=port)
    queue = unique("rebind")
    body = f"Action=CreateQueue&QueueName={queue}".encode()
    headers = signed_headers("POST", endpoint + "/", "sqs", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Host": host})
    assert raw(endpoint, "POST", "/", body, headers)[0] == 403
    assert not aws("sqs").list_queues(QueueNamePrefix=queue).get("QueueUrls")
    for path in ("/", "/states", "/_onceflow/health"):
        assert raw(endpoint, "GET", path, headers={"Host": host})[0] == 403


@pytest.mark.parametrize("host", ["localhost", "localhost.:{port}", "LocalHost:{port}", "[::1]:{port}",
                                  "127.0.0.1:", "[0:0:0:0:0:0:0:1]:{port}"])
def test_loopback_hosts_in_every_form_are_answered(endpoint: str, host: str) -> None:
    assert raw(endpoint, "GET", "/_onceflow/health", headers={"Host": host.format(port=0)})[0] == 200


def test_reset_needs_post_a_loopback_host_and_no_foreign_origin(guarded: ServerProcess) -> None:
    ddb = guarded.client("dynamodb")
    table = unique("keep")
    ddb.create_table(TableName=table, AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST")
    port = urllib.parse.urlsplit(guarded.url).port
    assert raw(guarded.url, "GET", "/_onceflow/reset")[0] == 405
    assert raw(guarded.url, "POST", "/_onceflow/reset", headers={"Host": f"evil.example:{port}"})[0] == 403
    # even a name the user allowed for the API is not loopback
    assert raw(guarded.url, "POST", "/_onceflow/reset", headers={"Host": f"onceflow.test:{port}"})[0] == 403
    for evidence in ({"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}):
        assert raw(guarded.url, "POST", "/_onceflow/reset", headers=evidence)[0] == 403
    assert table in ddb.list_tables()["TableNames"]
    assert raw(guarded.url, "POST", "/_onceflow/reset", headers={"Host": f"localhost:{port}"})[0] == 200
    assert table not in ddb.list_tables()["TableNames"]


def test_an_allowed_host_works(guarded: ServerProcess) -> None:
    port = urllib.parse.urlsplit(guarded.url).port
    body = b"Action=GetCallerIdentity&Version=2011-06-15"
    for host in (f"onceflow.test:{port}", f"ONCEFLOW.test:{port}", f"[::1]:{port}", f"localhost:{port}"):
        headers = signed_headers("POST", f"http://{host}/", "sts", body, {
            "Content-Type": "application/x-www-form-urlencoded; charset=utf-8", "Host": host})
        status, _, answer = raw(guarded.url, "POST", "/", body, headers)
        assert status == 200 and b"<Arn>arn:aws:iam::000000000000:root</Arn>" in answer, host
    status, _, answer = raw(guarded.url, "POST", "/", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Host": f"other.test:{port}"})
    assert (status, query_error(answer)) == (403, "AccessDenied")


# ---------------------------------------------------------------- CORS
def test_preflights_are_answered_for_allowed_origins_only(endpoint: str, guarded: ServerProcess) -> None:
    ask = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,x-amz-target"}
    status, headers, _ = raw(guarded.url, "OPTIONS", "/", headers={**ask, "Origin": "http://localhost:3000"})
    assert status == 204 and headers["access-control-allow-origin"] == "http://localhost:3000"
    assert headers["access-control-allow-headers"] == "authorization,x-amz-target"
    for server, origin in ((guarded.url, EVIL), (endpoint, "http://localhost:3000"), (endpoint, EVIL)):
        status, headers, _ = raw(server, "OPTIONS", "/", headers={**ask, "Origin": origin})
        assert status == 403 and "access-control-allow-origin" not in headers, (server, origin)


def test_an_allowed_origin_may_call_and_read_the_answer(guarded: ServerProcess) -> None:
    body = b"{}"
    headers = signed_headers("POST", guarded.url + "/", "logs", body, {
        "X-Amz-Target": "Logs_20140328.DescribeLogGroups", "Content-Type": "application/x-amz-json-1.1"})
    status, got, _ = raw(guarded.url, "POST", "/", body, {**headers, "Origin": "http://localhost:3000",
                                                         "Sec-Fetch-Site": "same-site"})
    assert status == 200 and got["access-control-allow-origin"] == "http://localhost:3000"
    assert "x-amzn-requestid" in got["access-control-expose-headers"]
