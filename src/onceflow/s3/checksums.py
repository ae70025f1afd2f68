"""The checksums S3 computes over a body: MD5 (the ETag, Content-MD5), CRC32, CRC32C, CRC64NVME,
SHA1 and SHA256, each as an object with `update` and `digest` like hashlib's. CRC32 comes from
zlib, CRC32C and CRC64NVME from awscrt (AWS's C runtime, the one botocore uses for them: GB/s
where a Python loop did a few MB/s). Values travel base64-encoded, big-endian."""

from __future__ import annotations

import base64
import hashlib
import zlib
from collections.abc import Callable
from typing import Protocol

from awscrt import checksums as crt

ALGORITHMS = ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def digest(self) -> bytes: ...


class _Crc:
    """A running CRC from a function (data, previous value) -> value."""

    def __init__(self, step: Callable[[bytes, int], int], size: int) -> None:
        self.step = step
        self.size = size
        self.value = 0

    def update(self, data: bytes) -> None:
        self.value = self.step(data, self.value)

    def digest(self) -> bytes:
        return self.value.to_bytes(self.size, "big")


def new(algorithm: str) -> Digest:
    """A fresh digest for one of ALGORITHMS (or MD5)."""
    if algorithm == "CRC32":
        return _Crc(zlib.crc32, 4)
    if algorithm == "CRC32C":
        return _Crc(crt.crc32c, 4)
    if algorithm == "CRC64NVME":
        return _Crc(crt.crc64nvme, 8)
    if algorithm in ("SHA1", "SHA256", "MD5"):
        return hashlib.new(algorithm.lower())
    raise ValueError(algorithm)


def encoded(digest: Digest) -> str:
    return base64.b64encode(digest.digest()).decode()


def of(algorithm: str, data: bytes) -> str:
    d = new(algorithm)
    d.update(data)
    return encoded(d)


def composite(algorithm: str, part_values: list[str]) -> str:
    """The checksum of a multipart object: the checksum of the parts' checksums, then '-N'."""
    d = new(algorithm)
    for value in part_values:
        d.update(base64.b64decode(value))
    return f"{encoded(d)}-{len(part_values)}"
