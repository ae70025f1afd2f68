"""Multipart uploads: parts stored as blobs of their own, an object made of them on completion
(its segments are the parts' blobs: nothing is copied), its ETag the MD5 of the parts' MD5s
followed by '-N'."""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.s3 import checksums, errors, lock, restore, store
from onceflow.s3.conditions import parse_copy_source, parse_range
from onceflow.s3.service import (
    NULL,
    SYSTEM_HEADERS,
    S3Service,
    _acl_text,
    _jsonable,
)

MIN_PART = 5 * 1024 * 1024
MAX_PARTS = 10000


class Multipart:
    def __init__(self, service: S3Service) -> None:
        self.s3 = service
        self.db = service.db
        self.blobs = service.blobs

    def create(self, account: str, bucket: str, key: str, fields: dict[str, Any]) -> str:
        fields = lock.new_version_fields(self.s3.bucket(account, bucket), fields, time.time())
        upload_id = base64.urlsafe_b64encode(hashlib.sha256(f"{bucket}/{key}/{time.time_ns()}".encode()).digest()
                                             + bytes(8)).decode().rstrip("=")
        kept = {k: _jsonable(fields[k]) for k in (*SYSTEM_HEADERS, "Metadata", "Tags", "ChecksumAlgorithm",
                                                  "ChecksumType", "Grants") if fields.get(k) is not None}
        kept["Owner"] = account
        with self.db.transaction() as conn:
            store.insert_upload(conn, upload_id, bucket, key, time.time(), kept)
        return upload_id

    def upload(self, account: str, bucket: str, key: str, upload_id: str) -> dict[str, Any]:
        self.s3.bucket(account, bucket)
        row = self.db.read(lambda c: store.get_upload(c, upload_id))
        if row is None or row["bucket"] != bucket or row["key"] != key:
            raise errors.no_such_upload(upload_id)
        return row

    def put_part(self, account: str, bucket: str, key: str, upload_id: str, number: int, body: Any,
                 content_md5: str | None, claimed: dict[str, str], algorithm: str | None) -> dict[str, Any]:
        _check_number(number)
        upload = self.upload(account, bucket, key, upload_id)
        algorithm = algorithm or upload["fields"].get("ChecksumAlgorithm")
        written, digests = self.s3._read_body(body, content_md5, claimed, algorithm, inline_ok=False)
        return self._store_part(upload_id, number, written, digests["MD5"].hexdigest(),
                                {a: checksums.encoded(d) for a, d in digests.items() if a != "MD5"})

    def copy_part(self, account: str, bucket: str, key: str, upload_id: str, number: int, source: str,
                  source_range: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        _check_number(number)
        upload = self.upload(account, bucket, key, upload_id)
        src_bucket, src_key, src_version = parse_copy_source(source)
        src = self.s3.object(account, src_bucket, src_key, src_version)
        restore.check_readable(src, time.time())
        start, end = 0, src["size"]
        if source_range:
            bounds = parse_range(source_range, src["size"])
            if bounds is None or not source_range.startswith("bytes=") or source_range[6:].startswith("-"):
                raise errors.invalid_argument("The x-amz-copy-source-range value must be of the form "
                                              "bytes=first-last where first and last are the zero-based offsets of "
                                              "the first and last bytes to copy", "x-amz-copy-source-range",
                                              source_range)
            start, end = bounds
        from onceflow.s3.blobs import _Reader

        md5 = checksums.new("MD5")
        # The upload's checksum algorithm covers a copied part too, or the object could have no composite checksum.
        algorithm = upload["fields"].get("ChecksumAlgorithm")
        digests = [md5] + ([checksums.new(algorithm)] if algorithm else [])
        written = self.blobs.write(_Reader(self.s3.body(src, start, end)), digests, inline_ok=False)
        sums = {algorithm: checksums.encoded(digests[1])} if algorithm else {}
        return self._store_part(upload_id, number, written, md5.hexdigest(), sums), src  # type: ignore[attr-defined]

    def _store_part(self, upload_id: str, number: int, written: Any, etag: str,
                    sums: dict[str, str]) -> dict[str, Any]:
        part = {"size": written.size, "etag": etag, "modified": time.time(), "checksum": sums, "inline": None,
                "segments": [[written.blob_id, written.size]]}
        try:
            with self.db.transaction() as conn:
                if store.get_upload(conn, upload_id) is None:  # aborted meanwhile
                    raise errors.no_such_upload(upload_id)
                replaced = store.put_part(conn, upload_id, number, part)
        except BaseException:
            self.blobs.delete([written.blob_id])
            raise
        self.blobs.delete(replaced)
        return part

    def complete(self, account: str, bucket: str, key: str, upload_id: str, listed: list[dict[str, Any]],
                 if_none_match: str | None = None, if_match: str | None = None,
                 ctx: RequestContext | None = None) -> dict[str, Any]:
        bucket_row = self.s3.bucket(account, bucket)
        upload = self.upload(account, bucket, key, upload_id)
        if not listed:
            raise ServiceError("MalformedXML", "The XML you provided was not well-formed or did not validate against "
                               "our published schema", 400)
        if any(p.get("PartNumber") is None for p in listed):
            raise errors.invalid_part_order()
        numbers = [int(p["PartNumber"]) for p in listed]
        if numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
            raise errors.invalid_part_order()
        stored = {p["number"]: p for p in self.db.read(lambda c: store.list_parts(c, upload_id, 0, MAX_PARTS + 1))}
        chosen = []
        for i, wanted in enumerate(listed):
            part = stored.get(wanted["PartNumber"])
            if part is None or str(wanted.get("ETag", "")).strip('"') != part["etag"]:
                raise errors.invalid_part(wanted["PartNumber"])
            if i < len(listed) - 1 and part["size"] < MIN_PART:
                raise errors.entity_too_small()
            chosen.append(part)
        md5s = b"".join(bytes.fromhex(p["etag"]) for p in chosen)
        etag = f"{hashlib.md5(md5s).hexdigest()}-{len(chosen)}"
        fields = upload["fields"]
        algorithm = fields.get("ChecksumAlgorithm")
        checksum: dict[str, Any] = {}
        if algorithm and all(algorithm in p["checksum"] for p in chosen):
            checksum = {algorithm: checksums.composite(algorithm, [p["checksum"][algorithm] for p in chosen]),
                        "type": "COMPOSITE"}
        headers = {k: fields[k] for k in SYSTEM_HEADERS if fields.get(k) is not None}
        headers.setdefault("ContentType", "binary/octet-stream")
        obj = {"bucket": bucket, "key": key, "version_id": NULL, "latest": 1, "delete_marker": 0,
               "size": sum(p["size"] for p in chosen), "etag": etag, "modified": time.time(), "headers": headers,
               "metadata": fields.get("Metadata") or {}, "checksum": checksum, "tags": fields.get("Tags") or {},
               "parts": [[p["number"], p["size"]] for p in chosen], "inline": None,
               "acl": _acl_text(fields),
               "segments": [seg for p in chosen for seg in p["segments"]]}
        used = {seg[0] for seg in obj["segments"]}
        unused = [seg[0] for p in stored.values() for seg in p["segments"] if seg[0] not in used]
        hook = self.s3.hook_for(ctx, bucket_row, key)
        with self.db.transaction() as conn:
            if store.get_upload(conn, upload_id) is None:
                raise errors.no_such_upload(upload_id)
            self.s3._commit_object(bucket_row, obj, None, conditions=(if_match, if_none_match), unreferenced=unused,
                                   hook=hook, event="ObjectCreated:CompleteMultipartUpload")
            conn.execute("DELETE FROM s3_parts WHERE upload_id = ?", (upload_id,))
            conn.execute("DELETE FROM s3_uploads WHERE upload_id = ?", (upload_id,))
        self.blobs.delete(unused)
        self.s3.woken(hook)
        return obj

    def abort(self, account: str, bucket: str, key: str, upload_id: str) -> None:
        self.upload(account, bucket, key, upload_id)
        with self.db.transaction() as conn:
            parts = store.delete_upload(conn, upload_id)
        self.blobs.delete(seg[0] for p in parts for seg in p["segments"])

    def parts(self, account: str, bucket: str, key: str, upload_id: str, after: int,
              limit: int) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
        upload = self.upload(account, bucket, key, upload_id)
        rows = self.db.read(lambda c: store.list_parts(c, upload_id, after, limit + 1))
        return upload, rows[:limit], len(rows) > limit

    def uploads(self, account: str, bucket: str, prefix: str, after_key: str,
                limit: int) -> tuple[list[dict[str, Any]], bool]:
        self.s3.bucket(account, bucket)
        rows = self.db.read(lambda c: store.list_uploads(c, bucket, prefix, after_key, limit + 1))
        return rows[:limit], len(rows) > limit


def _check_number(number: int) -> None:
    if not 1 <= number <= MAX_PARTS:
        raise errors.invalid_argument("Part number must be an integer between 1 and 10000, inclusive",
                                      "partNumber", str(number))
