"""Where object bodies live: small ones inline in their SQLite row, larger ones as files in the data
folder (`<data>/s3/blobs/<xx>/<id>`), or in memory with `--in-memory`.

A body is read from its stream once, into memory while it is small and into a temporary file
(`<data>/s3/tmp/`) past INLINE_MAX; every digest the request asks for is updated on the way. The
file is fsynced and renamed into place (and its folder fsynced) before the row that names it is
committed, so an acknowledged object is whole on disk; a crash in between leaves a file no row
names, which `sweep` removes at the next start.
"""

from __future__ import annotations

import os
import shutil
import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from onceflow.s3.checksums import Digest

INLINE_MAX = 64 * 1024  # bodies up to this size stay in their row: one commit, no file, no extra fsync
PIECE = 1024 * 1024


@dataclass
class Written:
    """A body read in: inline bytes, or a blob (file or memory) under `blob_id`; not yet referenced."""

    size: int
    inline: bytes | None
    blob_id: str | None


class BlobStore:
    def __init__(self, root: Path | None) -> None:
        self.root = root  # None: --in-memory
        self.memory: dict[str, bytearray] = {}
        self.lock = threading.Lock()
        if root is not None:
            (root / "tmp").mkdir(parents=True, exist_ok=True)
            (root / "blobs").mkdir(parents=True, exist_ok=True)

    # ------------------------------------------------------------------ writing
    def write(self, body: Any, digests: Iterable[Digest], limit: int | None = None, inline_ok: bool = True) -> Written:
        """Read `body` (an object with read(n) -> bytes, b"" at the end) to its end; `inline_ok`
        False always makes a blob (a part of a multipart upload: the object will name it)."""
        inline_max = INLINE_MAX if inline_ok else -1
        digests = list(digests)
        if self.root is None:
            return self._write_memory(body, digests, limit, inline_max)
        held: list[bytes] = []
        size = 0
        temp: Any = None
        temp_path: Path | None = None
        try:
            while True:
                piece = body.read(PIECE)
                if not piece:
                    break
                size = _grown(size, len(piece), limit)
                for d in digests:
                    d.update(piece)
                if temp is None and size <= inline_max:
                    held.append(piece)
                    continue
                if temp is None:
                    temp_path = self.root / "tmp" / uuid.uuid4().hex
                    temp = open(temp_path, "wb")
                    for chunk in held:
                        temp.write(chunk)
                    held = []
                temp.write(piece)
            if temp is None and not inline_ok:  # an empty part: still a blob
                temp_path = self.root / "tmp" / uuid.uuid4().hex
                temp = open(temp_path, "wb")
            if temp is None:
                return Written(size, b"".join(held), None)
            temp.flush()
            os.fsync(temp.fileno())
            temp.close()
            temp = None
            assert temp_path is not None
            blob_id = temp_path.name
            final = self._path(blob_id)
            final.parent.mkdir(exist_ok=True)
            os.replace(temp_path, final)
            _fsync_dir(final.parent)
            temp_path = None
            return Written(size, None, blob_id)
        finally:
            if temp is not None:
                temp.close()
            if temp_path is not None:
                temp_path.unlink(missing_ok=True)

    def _write_memory(self, body: Any, digests: list[Digest], limit: int | None, inline_max: int) -> Written:
        buffer = bytearray()  # grown in place: the body is held once
        while piece := body.read(PIECE):
            _grown(len(buffer), len(piece), limit)
            for d in digests:
                d.update(piece)
            buffer += piece
        if len(buffer) <= inline_max:
            return Written(len(buffer), bytes(buffer), None)
        blob_id = uuid.uuid4().hex
        with self.lock:
            self.memory[blob_id] = buffer
        return Written(len(buffer), None, blob_id)

    def copy(self, segments: list[list[Any]], inline: bytes | None) -> Written:
        """A copy of a body (CopyObject): its own blob, so each object owns what it names."""
        return self.write(_Reader(self.read(segments, inline, 0, None)), ())

    # ------------------------------------------------------------------ reading
    def read(self, segments: list[list[Any]], inline: bytes | None, start: int, end: int | None) -> Iterator[bytes]:
        """The bytes [start, end) of a body (end None: to its end), piece by piece."""
        if inline is not None:
            yield inline[start:end]
            return
        offset = 0
        for blob_id, size in segments:
            lo, hi = offset, offset + size
            offset = hi
            if end is not None and lo >= end:
                break
            if hi <= start:
                continue
            a, b = max(start, lo) - lo, (min(end, hi) if end is not None else hi) - lo
            yield from self._read_blob(blob_id, a, b)

    def _read_blob(self, blob_id: str, a: int, b: int) -> Iterator[bytes]:
        if self.root is None:
            with self.lock:
                data = self.memory[blob_id]
            for i in range(a, b, PIECE):
                yield bytes(data[i:min(i + PIECE, b)])
            return
        with open(self._path(blob_id), "rb") as f:
            f.seek(a)
            left = b - a
            while left > 0:
                piece = f.read(min(PIECE, left))
                if not piece:
                    break
                left -= len(piece)
                yield piece

    # ------------------------------------------------------------------ removing
    def delete(self, blob_ids: Iterable[str]) -> None:
        """Remove blobs no committed row names any more (after the commit that dropped them)."""
        for blob_id in blob_ids:
            if self.root is None:
                with self.lock:
                    self.memory.pop(blob_id, None)
            else:
                self._path(blob_id).unlink(missing_ok=True)

    def sweep(self, referenced: set[str]) -> int:
        """At start: drop temporary files and blobs that no row names (a crash between write and commit)."""
        if self.root is None:
            return 0
        removed = 0
        for temp in (self.root / "tmp").iterdir():
            temp.unlink(missing_ok=True)
            removed += 1
        for folder in (self.root / "blobs").iterdir():
            for blob in folder.iterdir():
                if blob.name not in referenced:
                    blob.unlink(missing_ok=True)
                    removed += 1
        return removed

    def clear(self) -> None:
        """Reset: every body goes."""
        with self.lock:
            self.memory.clear()
        if self.root is not None:
            shutil.rmtree(self.root / "blobs", ignore_errors=True)
            (self.root / "blobs").mkdir(parents=True, exist_ok=True)

    def _path(self, blob_id: str) -> Path:
        assert self.root is not None
        return self.root / "blobs" / blob_id[:2] / blob_id


class BytesReader:
    """read(n) over bytes already in memory (an in-process caller's body)."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.offset = 0

    def read(self, n: int) -> bytes:
        out = bytes(self.data[self.offset:self.offset + n])
        self.offset += len(out)
        return out


class _Reader:
    """read(n) over an iterator of pieces (a copy's source)."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self.pieces = pieces
        self.rest = b""

    def read(self, n: int) -> bytes:
        if not self.rest:
            self.rest = next(self.pieces, b"")
        out, self.rest = self.rest[:n], self.rest[n:]
        return out


def _grown(size: int, more: int, limit: int | None) -> int:
    if limit is not None and size + more > limit:
        from onceflow.s3.errors import entity_too_large

        raise entity_too_large(size + more, limit)
    return size + more


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
