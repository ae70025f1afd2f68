"""wire/http.py, the lean HTTP server, in a background thread around a real in-memory stack."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import botocore.config
import pytest

from onceflow.config import Settings
from onceflow.context import RequestContext
from onceflow.server import bind, build_app, build_stack
from onceflow.wire.http import HttpServer

AUTH = "AWS4-HMAC-SHA256 Credential=test/20261129/us-east-1/{svc}/aws4_request, SignedHeaders=host, Signature=0"


class Running:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        settings = Settings(port=0, in_memory=True)
        self.sock = bind(settings)
        self.port = self.sock.getsockname()[1]
        self.stack = build_stack(settings)
        self.app = build_app(self.stack)
        self.server: HttpServer | None = None
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)

            async def start() -> None:
                self.server = HttpServer(self.app)
                await self.server.start(self.sock)
                started.set()

            self.loop.run_until_complete(start())
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        started.wait(10)

    def shutdown(self) -> None:
        assert self.server is not None
        asyncio.run_coroutine_threadsafe(self.server.shutdown(timeout=10), self.loop).result(30)

    def stop(self) -> None:
        if self.server is not None and not self.server.stopping:
            self.shutdown()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()
        self.stack.db.close()


@pytest.fixture
def served() -> Iterator[Running]:
    running = Running()
    yield running
    running.stop()


def client(served: Running, service: str) -> Any:
    config = botocore.config.Config(retries={"max_attempts": 1})
    return boto3.client(service, endpoint_url=f"http://127.0.0.1:{served.port}", region_name="us-east-1",
                        aws_access_key_id="123456789012", aws_secret_access_key="x", config=config)


def raw(served: Running, payload: bytes, read_until_close: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", served.port), 10) as sock:
        sock.sendall(payload)
        chunks = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            if not read_until_close:
                break
        return b"".join(chunks)


def sts_request(close: bool = False) -> bytes:
    body = b"Action=GetCallerIdentity&Version=2011-06-15"
    conn = "Connection: close\r\n" if close else ""
    return (f"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Authorization: {AUTH.format(svc='sts')}\r\n{conn}Content-Length: {len(body)}\r\n\r\n").encode() + body


def test_boto3_calls_work_end_to_end(served: Running) -> None:
    assert client(served, "sts").get_caller_identity()["Account"] == "123456789012"
    logs = client(served, "logs")
    logs.create_log_group(logGroupName="/lean/g")
    assert [g["logGroupName"] for g in logs.describe_log_groups()["logGroups"]] == ["/lean/g"]
    with pytest.raises(logs.exceptions.ResourceAlreadyExistsException):
        logs.create_log_group(logGroupName="/lean/g")


def test_keep_alive_and_pipelined_requests_are_answered_in_order(served: Running) -> None:
    data = raw(served, sts_request() + sts_request() + sts_request(close=True))
    assert data.count(b"HTTP/1.1 200 OK") == 3
    assert data.count(b"<Account>000000000000</Account>") == 3
    assert data.rstrip().endswith(b"</GetCallerIdentityResponse>")


def test_a_response_is_one_write_with_length_and_request_id(served: Running) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request("POST", "/", body=b"{}", headers={"X-Amz-Target": "Logs_20140328.DescribeLogGroups",
                                                   "Content-Type": "application/x-amz-json-1.1",
                                                   "Authorization": AUTH.format(svc="logs")})
    resp = conn.getresponse()
    body = resp.read()
    assert resp.status == 200 and json.loads(body) == {"logGroups": []}
    assert resp.getheader("Content-Length") == str(len(body)) and resp.getheader("x-amzn-RequestId")
    assert resp.getheader("Content-Type") == "application/x-amz-json-1.1" and resp.getheader("Date")
    conn.request("GET", "/_onceflow/health")  # the same connection is reused
    assert json.loads(conn.getresponse().read())["status"] == "running"
    conn.close()


def test_malformed_http_is_a_400_and_the_connection_closes(served: Running) -> None:
    assert raw(served, b"NOT HTTP AT ALL\r\n\r\n").startswith(b"HTTP/1.1 400 Bad Request")


def test_a_body_beyond_every_limit_is_refused_before_it_is_read(served: Running) -> None:
    head = (f"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: Logs_20140328.DescribeLogGroups\r\n"
            f"Content-Length: {served.app.hard_limit + 1}\r\n\r\n").encode()
    assert raw(served, head).startswith(b"HTTP/1.1 413 Request Entity Too Large")


def test_head_has_headers_but_no_body(served: Running) -> None:
    data = raw(served, b"HEAD /_onceflow/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK") and b"Content-Length: " in head and body == b""


def test_thread_pool_calls_and_handler_crashes(served: Running) -> None:
    def crash(ctx: RequestContext, params: dict[str, Any]) -> None:
        raise RuntimeError("boom")

    served.stack.registry.add("logs", "DescribeLogGroups", crash)
    logs = client(served, "logs")
    with pytest.raises(logs.exceptions.ClientError) as info:
        logs.describe_log_groups()
    assert info.value.response["Error"]["Code"] == "InternalFailure"
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500


def test_shutdown_lets_in_flight_requests_finish_and_refuses_new_ones(served: Running) -> None:
    entered = threading.Event()

    def slow(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        entered.set()
        time.sleep(0.5)
        return {"logGroups": []}

    served.stack.registry.add("logs", "DescribeLogGroups", slow)
    results: list[Any] = []
    caller = threading.Thread(target=lambda: results.append(client(served, "logs").describe_log_groups()))
    caller.start()
    assert entered.wait(10)
    served.shutdown()
    caller.join(10)
    assert results and results[0]["logGroups"] == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", served.port), 2).close()


def test_reset_over_http_empties_the_services(served: Running) -> None:
    logs = client(served, "logs")
    logs.create_log_group(logGroupName="/lean/reset")
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    conn.request("POST", "/_onceflow/reset")
    resp = conn.getresponse()
    assert (resp.status, json.loads(resp.read())) == (200, {"reset": True})
    conn.close()
    assert logs.describe_log_groups()["logGroups"] == []


def test_idle_keep_alive_connections_are_closed(served: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    from onceflow.wire import http as lean

    monkeypatch.setattr(lean, "KEEP_ALIVE_TIMEOUT", 0.3)
    with socket.create_connection(("127.0.0.1", served.port), 10) as sock:
        sock.sendall(sts_request())
        data = b""
        while not data.endswith(b"</GetCallerIdentityResponse>"):
            data += sock.recv(65536)
        sock.settimeout(5)
        assert sock.recv(65536) == b""  # closed by the server once idle
