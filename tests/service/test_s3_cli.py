"""The AWS CLI's s3 commands against a real server: mb, ls, cp (up and down, multipart above the
CLI's 8 MB threshold), sync, mv, rm, rb, and s3api."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CLI = Callable[..., Any]
pytestmark = pytest.mark.slow  # each `aws` command starts an interpreter (1-5 s on a loaded machine)


def _ok(result: Any) -> str:
    assert result.returncode == 0, result.stderr
    return str(result.stdout)


def test_mb_ls_cp_rm_rb(aws_cli: CLI, tmp_path: Path) -> None:
    bucket = f"cli-{uuid.uuid4().hex[:12]}"
    _ok(aws_cli("s3", "mb", f"s3://{bucket}"))
    assert bucket in _ok(aws_cli("s3", "ls"))
    src = tmp_path / "hello.txt"
    src.write_text("hello s3\n")
    _ok(aws_cli("s3", "cp", str(src), f"s3://{bucket}/docs/hello.txt", "--only-show-errors"))
    listing = _ok(aws_cli("s3", "ls", f"s3://{bucket}/"))
    assert "PRE docs/" in listing
    assert "hello.txt" in _ok(aws_cli("s3", "ls", f"s3://{bucket}/", "--recursive"))
    assert _ok(aws_cli("s3", "cp", f"s3://{bucket}/docs/hello.txt", "-")) == "hello s3\n"
    refused = aws_cli("s3", "rb", f"s3://{bucket}")
    assert refused.returncode != 0 and "BucketNotEmpty" in refused.stderr
    _ok(aws_cli("s3", "rm", f"s3://{bucket}/docs/hello.txt", "--only-show-errors"))
    _ok(aws_cli("s3", "rb", f"s3://{bucket}"))
    assert bucket not in _ok(aws_cli("s3", "ls"))


def test_a_large_copy_goes_up_in_parts_and_comes_back_whole(aws_cli: CLI, tmp_path: Path) -> None:
    bucket = f"cli-{uuid.uuid4().hex[:12]}"
    _ok(aws_cli("s3", "mb", f"s3://{bucket}"))
    data = os.urandom(12 * 1024 * 1024)  # over the CLI's 8 MB multipart threshold
    (tmp_path / "big.bin").write_bytes(data)
    _ok(aws_cli("s3", "cp", str(tmp_path / "big.bin"), f"s3://{bucket}/big.bin", "--only-show-errors"))
    head = json.loads(_ok(aws_cli("s3api", "head-object", "--bucket", bucket, "--key", "big.bin")))
    assert head["ContentLength"] == len(data) and head["ETag"].endswith('-2"') and head["PartsCount"] == 2
    _ok(aws_cli("s3", "cp", f"s3://{bucket}/big.bin", str(tmp_path / "back.bin"), "--only-show-errors"))
    assert (tmp_path / "back.bin").read_bytes() == data


def test_sync_mv_and_recursive_rm(aws_cli: CLI, tmp_path: Path) -> None:
    bucket = f"cli-{uuid.uuid4().hex[:12]}"
    _ok(aws_cli("s3", "mb", f"s3://{bucket}"))
    local = tmp_path / "site"
    (local / "css").mkdir(parents=True)
    (local / "index.html").write_text("<h1>hi</h1>")
    (local / "css" / "a.css").write_text("body{}")
    # S3 keeps whole seconds of Last-Modified, and sync uploads a file whose mtime is later than the object's:
    # a file written in the same second as its upload would go again, on AWS too. Date the files a minute back.
    past = time.time() - 60
    for written in (local / "index.html", local / "css" / "a.css"):
        os.utime(written, (past, past))
    _ok(aws_cli("s3", "sync", str(local), f"s3://{bucket}/site", "--only-show-errors"))
    again = _ok(aws_cli("s3", "sync", str(local), f"s3://{bucket}/site"))
    assert "upload" not in again  # nothing changed: sync compares sizes and times from ListObjectsV2
    _ok(aws_cli("s3", "mv", f"s3://{bucket}/site/index.html", f"s3://{bucket}/moved.html", "--only-show-errors"))
    keys = json.loads(_ok(aws_cli("s3api", "list-objects-v2", "--bucket", bucket)))["Contents"]
    assert sorted(k["Key"] for k in keys) == ["moved.html", "site/css/a.css"]
    down = tmp_path / "down"
    _ok(aws_cli("s3", "sync", f"s3://{bucket}", str(down), "--only-show-errors"))
    assert (down / "moved.html").read_text() == "<h1>hi</h1>" and (down / "site/css/a.css").read_text() == "body{}"
    _ok(aws_cli("s3", "rm", f"s3://{bucket}", "--recursive", "--only-show-errors"))
    _ok(aws_cli("s3", "rb", f"s3://{bucket}"))


def test_s3api_reports_s3_errors(aws_cli: CLI) -> None:
    missing = aws_cli("s3api", "get-object", "--bucket", f"nope-{uuid.uuid4().hex[:8]}", "--key", "k", "/dev/null")
    assert missing.returncode != 0 and "(NoSuchBucket)" in missing.stderr
    bad = aws_cli("s3", "mb", "s3://Not_A_Valid_Name")
    assert bad.returncode != 0 and "(InvalidBucketName)" in bad.stderr
