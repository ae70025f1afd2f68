"""S3 request bodies read as streams, in the handler's thread: a plain body checked against its
x-amz-content-sha256 when it ends, or an `aws-chunked` one decoded as it is read (each chunk's
signature checked for STREAMING-AWS4-HMAC-SHA256-PAYLOAD, the trailing x-amz-checksum-* headers
kept for the service to check for the *-TRAILER variants).

A body is read once, front to back; nothing of it is kept beyond the piece being handed out, so an
upload of any size costs the memory of one piece. The errors are S3's, raised from `read` when the
body ends wrong (the service then drops what it wrote).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from onceflow.wire import s3_errors, sigv4
from onceflow.wire.sigv4 import Signed

STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
STREAMING = (STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER)
_LINE_LIMIT = 4096  # a chunk header or a trailer line longer than this is not one


class Source:
    """Bytes pulled piece by piece from `pull` (b"" once the request has no more)."""

    def __init__(self, pull: Callable[[], bytes]) -> None:
        self.pull = pull
        self.buffer = b""
        self.offset = 0
        self.ended = False

    def _fill(self) -> bool:
        if self.ended:
            return False
        piece = self.pull()
        if not piece:
            self.ended = True
            return False
        self.buffer = self.buffer[self.offset:] + piece if self.offset < len(self.buffer) else piece
        self.offset = 0
        return True

    def read(self, n: int) -> bytes:
        """Up to n bytes (fewer only at the end)."""
        while len(self.buffer) - self.offset < n and self._fill():
            if len(self.buffer) - self.offset >= n:
                break
        out = self.buffer[self.offset:self.offset + n]
        self.offset += len(out)
        return out

    def read_some(self, n: int) -> bytes:
        """What is buffered (up to n), or the next piece: no copy into a bigger buffer."""
        if self.offset >= len(self.buffer) and not self._fill():
            return b""
        out = self.buffer[self.offset:self.offset + n]
        self.offset += len(out)
        return out

    def readline(self) -> bytes:
        while True:
            end = self.buffer.find(b"\r\n", self.offset)
            if end >= 0:
                line = self.buffer[self.offset:end]
                self.offset = end + 2
                return line
            if len(self.buffer) - self.offset > _LINE_LIMIT:
                raise s3_errors.bad_chunk("a chunk header is too long")
            if not self._fill():
                raise s3_errors.incomplete_body()


class PlainBody:
    """A body of Content-Length bytes; with a hex x-amz-content-sha256, checked when it ends."""

    def __init__(self, source: Source, length: int, claimed_sha256: str | None) -> None:
        self.source = source
        self.left = length
        self.size = length
        self.claimed = claimed_sha256
        self.hash = hashlib.sha256() if claimed_sha256 else None
        self.trailers: dict[str, str] = {}

    def read(self, n: int = 1024 * 1024) -> bytes:
        if self.left <= 0:
            return b""
        data = self.source.read_some(min(n, self.left))
        if not data:
            raise s3_errors.incomplete_body()
        self.left -= len(data)
        if self.hash is not None:
            self.hash.update(data)
            if self.left == 0 and self.hash.hexdigest() != self.claimed:
                raise s3_errors.content_sha256_mismatch(ClientComputedContentSHA256=self.claimed,
                                                        S3ComputedContentSHA256=self.hash.hexdigest())
        return data


class ChunkedBody:
    """An `aws-chunked` body: `size;chunk-signature=sig\\r\\n data \\r\\n` ... a zero-size chunk,
    then trailer lines (for the -TRAILER variants) and an empty line."""

    def __init__(self, source: Source, mode: str, decoded_length: int | None, signed: Signed | None,
                 secret: str | None) -> None:
        self.source = source
        self.mode = mode
        self.size = decoded_length
        self.signed = signed
        self.secret = secret if mode != STREAMING_UNSIGNED_TRAILER else None
        self.previous = signed.signature if signed is not None else ""
        self.left = 0  # bytes left in the current chunk
        self.chunk_hash: hashlib._Hash | None = None
        self.chunk_signature = ""
        self.done = False
        self.total = 0
        self.trailers: dict[str, str] = {}
        self.announced: tuple[str, ...] = ()  # checksum algorithms x-amz-trailer says will follow

    def read(self, n: int = 1024 * 1024) -> bytes:
        while self.left == 0:
            if self.done:
                return b""
            self._next_chunk()
        data = self.source.read_some(min(n, self.left))
        if not data:
            raise s3_errors.incomplete_body()
        self.left -= len(data)
        self.total += len(data)
        if self.chunk_hash is not None:
            self.chunk_hash.update(data)
        if self.left == 0:
            if self.source.read(2) != b"\r\n":
                raise s3_errors.bad_chunk("a chunk does not end with CRLF")
            self._check_chunk()
        return data

    def _next_chunk(self) -> None:
        header = self.source.readline().decode("latin-1")
        size_text, _, extension = header.partition(";")
        try:
            size = int(size_text.strip(), 16)
        except ValueError:
            raise s3_errors.bad_chunk(f"bad chunk size {size_text[:20]!r}") from None
        signature = ""
        if extension.startswith("chunk-signature="):
            signature = extension[len("chunk-signature="):].strip()
        if self.secret is not None and not signature:
            raise s3_errors.signature_mismatch("A chunk of the request has no signature.")
        self.chunk_signature = signature
        self.chunk_hash = hashlib.sha256() if self.secret is not None else None
        if size:
            self.left = size
            return
        self._check_chunk()  # the final, empty chunk is signed too
        self._trailers()
        self.done = True
        if self.size is not None and self.total != self.size:
            raise s3_errors.incomplete_body()

    def _check_chunk(self) -> None:
        if self.secret is None or self.signed is None or self.chunk_hash is None:
            return
        expected = sigv4.chunk_signature(self.secret, self.signed, self.previous, self.chunk_hash.hexdigest())
        if not hmac.compare_digest(expected.encode(), self.chunk_signature.encode()):
            raise s3_errors.signature_mismatch()
        self.previous = expected
        self.chunk_hash = None

    def _trailers(self) -> None:
        lines: list[str] = []
        while True:
            line = self.source.readline()
            if not line:
                break
            lines.append(line.decode("latin-1"))
        signature = ""
        for text in lines:
            name, _, value = text.partition(":")
            name = name.strip().lower()
            if name == "x-amz-trailer-signature":
                signature = value.strip()
            elif name:
                self.trailers[name] = value.strip()
        if self.secret is not None and self.signed is not None and self.mode == STREAMING_SIGNED_TRAILER:
            text = "".join(f"{k}:{v}\n" for k, v in self.trailers.items())
            expected = sigv4.chunk_signature(self.secret, self.signed, self.previous,
                                             hashlib.sha256(text.encode()).hexdigest(), trailer=True)
            if not hmac.compare_digest(expected.encode(), signature.encode()):
                raise s3_errors.signature_mismatch("The trailer signature we calculated does not match the "
                                                   "signature you provided.")
