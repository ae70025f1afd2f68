"""Bodies and connections are bounded: an oversized body is refused from its Content-Length, in
the protocol's shape, before it is sent; half-sent request heads and bodies lose their connection
instead of holding it forever; the server serves others meanwhile."""

from __future__ import annotations

import json
import socket
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from serverproc import signed_headers


def head(endpoint: str, path: str, service: str, headers: dict[str, str], length: int) -> bytes:
    """A signed request head promising `length` bytes of body."""
    signed = signed_headers("POST", endpoint + path, service, b"", headers)
    signed.pop("Content-Length", None)
    lines = [f"POST {path} HTTP/1.1", f"Host: {urllib.parse.urlsplit(endpoint).netloc}",
             *(f"{k}: {v}" for k, v in signed.items()), f"Content-Length: {length}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def connect(endpoint: str) -> socket.socket:
    url = urllib.parse.urlsplit(endpoint)
    return socket.create_connection((url.hostname, url.port), timeout=60)


def answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    top, _, rest = data.partition(b"\r\n\r\n")
    lines = top.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    while len(rest) < int(headers.get("content-length", 0)):
        rest += sock.recv(65536)
    return int(lines[0].split()[1]), headers, rest


def test_an_oversized_body_is_refused_before_it_is_sent(endpoint: str) -> None:
    with connect(endpoint) as sock:  # the client waits for 100 Continue, which never comes
        sock.sendall(head(endpoint, "/2015-03-31/functions", "lambda", {"Content-Type": "application/json",
                                                                         "Expect": "100-continue"}, 90 * 2**20))
        status, headers, body = answer(sock)
    assert (status, headers["x-amzn-errortype"]) == (413, "RequestEntityTooLargeException")
    assert json.loads(body)["message"] == ("Request must be smaller than 83886080 bytes for the CreateFunction "
                                           "operation")
    assert headers["connection"] == "close"
    with connect(endpoint) as sock:  # far too large to be worth reading: answered at once
        sock.sendall(head(endpoint, "/", "dynamodb", {"X-Amz-Target": "DynamoDB_20120810.PutItem",
                                                      "Content-Type": "application/x-amz-json-1.0"}, 2**30))
        status, headers, body = answer(sock)
    assert status == 413 and json.loads(body)["__type"].endswith("#RequestEntityTooLargeException")


def test_half_sent_heads_and_bodies_lose_their_connection(endpoint: str, aws: Callable[..., Any]) -> None:
    stalled_head = connect(endpoint)
    stalled_head.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Tar")
    silent = connect(endpoint)
    stalled_body = connect(endpoint)
    stalled_body.sendall(head(endpoint, "/", "dynamodb", {"X-Amz-Target": "DynamoDB_20120810.ListTables",
                                                          "Content-Type": "application/x-amz-json-1.0"}, 100) + b"{")
    assert aws("sts").get_caller_identity()["Account"] == "000000000000"  # others are served meanwhile
    closed: dict[str, bytes] = {}
    deadline = time.monotonic() + 90  # generous: the server's own deadlines are 10 s and 30 s
    while len(closed) < 3 and time.monotonic() < deadline:
        for name, sock in (("head", stalled_head), ("silent", silent), ("body", stalled_body)):
            if name in closed:
                continue
            sock.settimeout(0.2)
            try:
                data = sock.recv(4096)
            except TimeoutError:
                continue
            closed[name] = data
    for sock in (stalled_head, silent, stalled_body):
        sock.close()
    assert set(closed) == {"head", "silent", "body"}
    assert closed["head"] == b"" and closed["silent"] == b""  # closed without a word
    assert closed["body"].startswith(b"HTTP/1.1 408 ")  # the body's deadline is answered in the protocol's shape
    assert b"RequestTimeout" in closed["body"]
