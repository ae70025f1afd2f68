"""What a request's conditions and range ask of an object: If-Match / If-None-Match /
If-(Un)Modified-Since on reads, writes and copy sources, the `bytes=` Range, and the copy source
header, with S3's errors."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, unquote

from onceflow.s3 import errors


def when(seconds: float) -> datetime:
    return datetime.fromtimestamp(int(seconds), UTC)  # S3 keeps whole seconds in Last-Modified


def parse_copy_source(source: str) -> tuple[str, str, str | None]:
    """x-amz-copy-source: '[/]bucket/key[?versionId=...]', URL-encoded."""
    path, _, query = source.partition("?")
    path = unquote(path).lstrip("/")
    bucket, _, key = path.partition("/")
    if not bucket or not key:
        raise errors.invalid_argument("Copy Source must mention the source bucket and key: sourcebucket/sourcekey",
                                      "x-amz-copy-source", source)
    version = parse_qs(query).get("versionId", [None])[0] if query else None
    return bucket, key, version


def etag_matches(condition: str, etag: str) -> bool:
    wanted = [c.strip().strip('"') for c in condition.split(",")]
    return "*" in wanted or etag in wanted


def check_read_conditions(obj: dict[str, Any], params: dict[str, Any]) -> None:
    """If-Match / If-None-Match / If-(Un)Modified-Since, as S3 weighs them together."""
    etag, modified = obj["etag"], when(obj["modified"])
    if_match, if_none = params.get("IfMatch"), params.get("IfNoneMatch")
    since, unmodified = params.get("IfModifiedSince"), params.get("IfUnmodifiedSince")
    if if_match is not None and not etag_matches(if_match, etag):
        raise errors.precondition_failed("If-Match")
    if unmodified is not None and if_match is None and modified > unmodified:
        raise errors.precondition_failed("If-Unmodified-Since")
    if if_none is not None and etag_matches(if_none, etag):
        raise errors.not_modified()
    if since is not None and if_none is None and modified <= since:
        raise errors.not_modified()


def copy_conditions(src: dict[str, Any], params: dict[str, Any]) -> None:
    etag, modified = src["etag"], when(src["modified"])
    if_match, if_none = params.get("CopySourceIfMatch"), params.get("CopySourceIfNoneMatch")
    since, unmodified = params.get("CopySourceIfModifiedSince"), params.get("CopySourceIfUnmodifiedSince")
    if if_match is not None and not etag_matches(if_match, etag):
        raise errors.precondition_failed("x-amz-copy-source-If-Match")
    if unmodified is not None and if_match is None and modified > unmodified:
        raise errors.precondition_failed("x-amz-copy-source-If-Unmodified-Since")
    if if_none is not None and etag_matches(if_none, etag):
        raise errors.precondition_failed("x-amz-copy-source-If-None-Match")
    if since is not None and if_none is None and modified <= since:
        raise errors.precondition_failed("x-amz-copy-source-If-Modified-Since")


def parse_range(text: str, size: int) -> tuple[int, int] | None:
    """[start, end) of a `bytes=` Range; None for a range S3 ignores (served whole)."""
    if not text.startswith("bytes=") or "," in text:
        return None
    first, dash, last = text[6:].strip().partition("-")
    if not dash:
        return None
    try:
        if first == "":
            if not last:
                return None
            n = int(last)
            if n == 0:
                raise errors.invalid_range(size, text)
            return max(size - n, 0), size
        start = int(first)
        end = int(last) + 1 if last else size
    except ValueError:
        return None
    if start >= size:
        raise errors.invalid_range(size, text)
    if end <= start:
        return None
    return start, min(end, size)
