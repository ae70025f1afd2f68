"""The framed protocol between the server, the zygote and the workers (stdlib only: runs in all three).

A frame is `>II` (header length, body length), a JSON header and raw body bytes. Payloads travel in
the body untouched, so an event is never JSON-encoded twice. Messages (header `t`):

server -> worker   invoke  {id, arn, deadline_ms, client_context}   body = event payload
worker -> server   ready   {pid, init_ms} | init_error {pid, init_ms, error}   (once, after init)
                   log     {ts, msg}                                  (one per log event, as it happens)
                   result  {ok, mem_mb[, too_large]}                  body = result or error document
                   oom     {}                                         (MemorySize reached; the worker dies)
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

MAX_EVENT_BYTES = 262_144 - 26  # a CloudWatch Logs event, less its 26 bytes of overhead
MAX_RESULT_BYTES = 6_291_556  # the response size Lambda's error message names
# What the server accepts from a worker (whose code is not trusted): a log event JSON-escaped, the
# largest payload. A frame that claims more ends the worker instead of growing the server.
MAX_HEADER_BYTES = 6 * MAX_EVENT_BYTES + 4096
MAX_BODY_BYTES = MAX_RESULT_BYTES + 4096


class Closed(EOFError):
    """The peer closed the connection (a worker that died or exited)."""


class BadFrame(Closed):
    """The peer sent a frame beyond the bounds or no frame at all: treated as a broken peer."""


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


def recv(sock: socket.socket, bounded: bool = False) -> tuple[dict[str, Any], bytes]:
    """Read one frame; raises Closed on EOF and socket.timeout when the socket's timeout expires.
    `bounded`: refuse (BadFrame) a frame beyond MAX_HEADER_BYTES / MAX_BODY_BYTES."""
    prefix = _recv_exact(sock, _PREFIX.size)
    head_len, body_len = _PREFIX.unpack(prefix)
    if bounded and (head_len > MAX_HEADER_BYTES or body_len > MAX_BODY_BYTES):
        raise BadFrame()
    data = _recv_exact(sock, head_len + body_len)
    try:
        header = json.loads(data[:head_len])
    except ValueError:
        if bounded:
            raise BadFrame() from None
        raise
    if bounded and not isinstance(header, dict):
        raise BadFrame()
    return header, data[head_len:]


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
