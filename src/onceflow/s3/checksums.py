"""The checksums S3 computes over a body: MD5 (the ETag, Content-MD5), CRC32, CRC32C, CRC64NVME,
SHA1 and SHA256, each as an object with `update` and `digest` like hashlib's. CRC32 comes from
zlib; CRC32C and CRC64NVME are table-driven here (pure Python, some MB/s: clients choose them
explicitly; botocore's default is CRC32). Values travel base64-encoded, big-endian."""

from __future__ import annotations

import base64
import hashlib
import zlib
from typing import Protocol

ALGORITHMS = ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...

    def digest(self) -> bytes: ...


def _table(poly: int, bits: int) -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc & ((1 << bits) - 1))
    return table


_CRC32C = _table(0x82F63B78, 32)
_CRC64NVME = _table(0x9A6C9329AC4BC9B5, 64)


class _Crc32:
    def __init__(self) -> None:
        self.value = 0

    def update(self, data: bytes) -> None:
        self.value = zlib.crc32(data, self.value)

    def digest(self) -> bytes:
        return self.value.to_bytes(4, "big")


class _TableCrc:
    def __init__(self, table: list[int], bits: int) -> None:
        self.table = table
        self.bits = bits
        self.mask = (1 << bits) - 1
        self.value = self.mask

    def update(self, data: bytes) -> None:
        crc, table = self.value, self.table
        for byte in data:
            crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
        self.value = crc

    def digest(self) -> bytes:
        return (self.value ^ self.mask).to_bytes(self.bits // 8, "big")


def new(algorithm: str) -> Digest:
    """A fresh digest for one of ALGORITHMS (or MD5)."""
    if algorithm == "CRC32":
        return _Crc32()
    if algorithm == "CRC32C":
        return _TableCrc(_CRC32C, 32)
    if algorithm == "CRC64NVME":
        return _TableCrc(_CRC64NVME, 64)
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
