"""The console's S3 pages: the buckets, a bucket's objects a folder at a time."""

from __future__ import annotations

import html
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, html.unescape(response.read().decode())


def test_buckets_and_objects_pages(aws: Callable[..., Any], endpoint: str) -> None:
    s3 = aws("s3")
    bucket = f"console-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket)
    for key in ("top.txt", "docs/a.txt", "docs/deep/b.txt"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"12345")
    status, text = _get(f"{endpoint}/s3")
    assert status == 200 and f'href="/s3/{bucket}"' in text
    status, text = _get(f"{endpoint}/s3/{bucket}")
    assert status == 200 and "top.txt" in text and "docs/" in text and "a.txt" not in text
    status, text = _get(f"{endpoint}/s3/{bucket}?prefix=docs/")
    assert status == 200 and "a.txt" in text and "deep/" in text and "top.txt" not in text
    try:
        _get(f"{endpoint}/s3/no-such-{uuid.uuid4().hex[:8]}")
        raise AssertionError("a missing bucket's page answered 200")
    except urllib.error.HTTPError as err:
        assert err.code == 404
