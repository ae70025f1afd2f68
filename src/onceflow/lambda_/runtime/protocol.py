"""The framed protocol between the server, the zygote and the workers (stdlib only: runs in all three).

A frame is `>II` (header length, body length), a JSON header and raw body bytes. Payloads travel in
the body untouched, so an event is never JSON-encoded twice. Messages (header `t`):

server -> worker   invoke  {id, arn, deadline_ms, client_context}   body = event payload
worker -> server   ready   {pid, init_ms} | init_error {pid, init_ms, error}   (once, after init)
                   log     {ts, msg}                                  (one per log event, as it happens)
                   result  {ok, mem_mb}                               body = result or error document
Control messages between the server and the zygote are single JSON packets on a SOCK_SEQPACKET pair:
server -> zygote   spawn   {spec}  with the worker's socket passed as SCM_RIGHTS
zygote -> server   exited  {pid, status}                              (a worker process ended)
"""

from __future__ import annotations

import json
import os
import socket
import struct
from typing import Any

_PREFIX = struct.Struct(">II")


class Closed(EOFError):
    """The peer closed the connection (a worker that died or exited)."""


def encode(header: dict[str, Any], body: bytes = b"") -> bytes:
    head = json.dumps(header, separators=(",", ":")).encode()
    return _PREFIX.pack(len(head), len(body)) + head + body


def send(sock: socket.socket, header: dict[str, Any], body: bytes = b"") -> None:
    sock.sendall(encode(header, body))


def send_packet(sock: socket.socket, header: dict[str, Any], fds: list[int] | None = None) -> None:
    """One control message on a SOCK_SEQPACKET socket (boundaries kept), with optional fds."""
    data = json.dumps(header, separators=(",", ":")).encode()
    if fds:
        socket.send_fds(sock, [data], fds)
    else:
        sock.send(data)


def recv(sock: socket.socket) -> tuple[dict[str, Any], bytes]:
    """Read one frame; raises Closed on EOF and socket.timeout when the socket's timeout expires."""
    prefix = _recv_exact(sock, _PREFIX.size)
    head_len, body_len = _PREFIX.unpack(prefix)
    data = _recv_exact(sock, head_len + body_len)
    return json.loads(data[:head_len]), data[head_len:]


def recv_packet(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """Read one control message sent by send_packet; raises Closed on EOF."""
    data, fds, _flags, _addr = socket.recv_fds(sock, 1 << 18, 4)
    if not data:
        for fd in fds:
            os.close(fd)
        raise Closed()
    return json.loads(data), list(fds)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    if n == 0:
        return b""
    buf = sock.recv(n)
    if not buf:
        raise Closed()
    if len(buf) == n:
        return buf
    parts = [buf]
    got = len(buf)
    while got < n:
        chunk = sock.recv(n - got)
        if not chunk:
            raise Closed()
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)
