"""Order-preserving byte encodings of key values, so SQLite's BLOB order is DynamoDB's key order.

Strings sort by their UTF-8 bytes and binaries by their bytes, exactly as DynamoDB orders range
keys, so they are stored as they are. Numbers become sign, exponent and digit bytes:
    zero      0x80
    positive  0x81, exponent+130 (one byte: DynamoDB's range is 1E-130 .. 9.99E+125), digits 0..9
    negative  0x7f, 255-(exponent+130), 9-digit for each digit, then 0xff
The digits of a normalised number have no trailing zeros, so a shorter mantissa that is a prefix
of a longer one is the smaller magnitude; for negatives the 0xff terminator inverts that.

A multi-attribute GSI key (up to 4 attributes each for the partition and the sort key) is the
concatenation of its attributes' components: each value's bytes with 0x00 escaped as 0x00 0xff, then
the terminator 0x00 0x01. The terminator sorts below any continuation, so the concatenation orders
as the tuple does (first attribute first), and a value's component is a prefix of every longer key
that begins with it. A one-attribute key keeps its plain bytes.
"""

from __future__ import annotations

import functools
from decimal import Context, Decimal

from onceflow.ddb.values import Value

_CTX = Context(prec=100)


@functools.lru_cache(maxsize=4096)  # the same few key numbers come back on every call; bytes are immutable
def encode_number(text: str) -> bytes:
    d = Decimal(text)
    if d.is_zero():
        return b"\x80"
    sign, digits, _ = d.normalize(_CTX).as_tuple()
    exp = d.adjusted() + 130
    if not sign:
        return b"\x81" + bytes([exp]) + bytes(digits)
    return b"\x7f" + bytes([255 - exp]) + bytes(9 - x for x in digits) + b"\xff"


def encode_key(v: Value) -> bytes:
    """The sortable bytes of a key attribute value (S, N or B)."""
    (kind, x), = v.items()
    if kind == "S":
        return x.encode()
    if kind == "N":
        return encode_number(x)
    return bytes(x)


END = b"\x00\x01"


def component(b: bytes) -> bytes:
    """One attribute's place in a multi-attribute key, from its encode_key bytes."""
    return escape(b) + END


def escape(b: bytes) -> bytes:
    return b.replace(b"\x00", b"\x00\xff")


def encode_keys(values: list[Value]) -> bytes:
    """The key bytes of an index key of one or more attributes."""
    if len(values) == 1:
        return encode_key(values[0])
    return b"".join(component(encode_key(v)) for v in values)


def decode_number(b: bytes) -> str:
    """The normalised N string back from encode_number (used for index-free key rebuilds)."""
    if b == b"\x80":
        return "0"
    if b[0] == 0x81:
        exp, digits = b[1] - 130, list(b[2:])
        sign = ""
    else:
        exp, digits = 255 - b[1] - 130, [9 - x for x in b[2:-1]]
        sign = "-"
    mantissa = "".join(map(str, digits))
    d = Decimal(f"{sign}{mantissa[0]}.{mantissa[1:] or '0'}E{exp}")
    return format(d.normalize(_CTX), "f")
