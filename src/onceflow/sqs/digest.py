"""The MD5 digests SQS returns, computed as AWS documents them (and as the SDKs check them).

MD5OfMessageAttributes (and of system attributes): the attributes sorted by name, each encoded
as name, data type and a transport byte (1 for String and Number types, 2 for Binary) followed by
the value, every text and value prefixed by its length as a 4-byte big-endian integer, UTF-8.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Mapping
from typing import Any

STRING, BINARY = 1, 2


def md5_of_body(body: str) -> str:
    return hashlib.md5(body.encode("utf-8")).hexdigest()


def _sized(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def md5_of_attributes(attributes: Mapping[str, Mapping[str, Any]]) -> str | None:
    """None for no attributes (AWS then omits the member)."""
    if not attributes:
        return None
    out = bytearray()
    for name in sorted(attributes):
        value = attributes[name]
        data_type = str(value["DataType"])
        out += _sized(name.encode("utf-8")) + _sized(data_type.encode("utf-8"))
        if data_type.startswith("Binary"):
            blob = value.get("BinaryValue") or b""
            out += bytes([BINARY]) + _sized(bytes(blob))
        else:
            out += bytes([STRING]) + _sized(str(value.get("StringValue", "")).encode("utf-8"))
    return hashlib.md5(bytes(out)).hexdigest()
