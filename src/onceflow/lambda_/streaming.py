"""InvokeWithResponseStream's answer: AWS's event stream (application/vnd.amazon.eventstream) of
PayloadChunk events and a closing InvokeComplete. A Python function does not stream (Lambda streams
responses for Node.js and custom runtimes), so its whole response is one chunk, as Lambda returns a
buffered function's response; a function error ends the stream with InvokeComplete's ErrorCode and
ErrorDetails instead (UNCONFIRMED: the values AWS puts there; here the error's type and message).

Each message: total length, headers length, prelude CRC32, headers (name, type 7 = string, value),
payload, message CRC32 (all big-endian).
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

_STRING = 7


def message(event_type: str, payload: bytes, content_type: str) -> bytes:
    headers = b"".join(_header(name, value) for name, value in (
        (":event-type", event_type), (":content-type", content_type), (":message-type", "event")))  # fmt: skip
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    head = prelude + struct.pack(">I", zlib.crc32(prelude))
    body = head + headers + payload
    return body + struct.pack(">I", zlib.crc32(body))


def _header(name: str, value: str) -> bytes:
    key, data = name.encode(), value.encode()
    return struct.pack(">B", len(key)) + key + struct.pack(">BH", _STRING, len(data)) + data


def response_stream(invoked: dict[str, Any]) -> bytes:
    """The event stream for an Invoke answer (Payload, FunctionError, LogResult)."""
    payload = bytes(invoked.get("Payload") or b"")
    complete: dict[str, str] = {}
    out = b""
    if invoked.get("FunctionError"):
        try:
            doc = json.loads(payload)
        except ValueError:
            doc = {}
        complete["ErrorCode"] = str(doc.get("errorType") or invoked["FunctionError"])
        complete["ErrorDetails"] = str(doc.get("errorMessage") or "")
    elif payload:
        out += message("PayloadChunk", payload, "application/octet-stream")
    if invoked.get("LogResult"):
        complete["LogResult"] = str(invoked["LogResult"])
    return out + message("InvokeComplete", json.dumps(complete).encode(), "application/json")
