"""S3's rules for buckets and objects: naming, versions, digests, copies (request conditions and
ranges: conditions.py).

Its methods are also the Python API other parts of onceflow use (`stack.ports.objects`, s3/ports.py):
`put_object(account, bucket, key, body)`, `get_object(account, bucket, key)` (a body as an
iterator of pieces), `list_objects(account, bucket, prefix)`, with the same rules and errors as
the API. Writes commit their row in one transaction after the body is whole on disk (blobs.py);
the blobs a write makes unreachable are removed after its commit. Every object write records its
event notification here, in its own commit, so the Python API's writes (a Distributed Map's
ResultWriter, DynamoDB's exports) notify as the HTTP API's do.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, Protocol

from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.s3 import checksums, errors, lock, restore, store
from onceflow.s3.blobs import BlobStore, BytesReader, Written
from onceflow.s3.conditions import copy_conditions, etag_matches, parse_copy_source
from onceflow.s3.names import bucket_name_problem
from onceflow.store.db import Database

# Members of PutObject/CreateMultipartUpload kept with an object and returned by Get/HeadObject.
SYSTEM_HEADERS = ("ContentType", "ContentEncoding", "ContentDisposition", "ContentLanguage", "CacheControl",
                  "Expires", "WebsiteRedirectLocation", "StorageClass", "ServerSideEncryption", "SSEKMSKeyId",
                  "BucketKeyEnabled", "ObjectLockMode", "ObjectLockRetainUntilDate", "ObjectLockLegalHoldStatus")
MAX_OBJECT = 5 * 1024 ** 4  # 5 TiB
# (connection, event name, the version's facts): run inside a change's transaction (notify.py).
Hook = Callable[[sqlite3.Connection, str, dict[str, Any]], None]
NULL = "null"


def plausible_version(version_id: str) -> bool:
    """Whether an unknown version id could be one S3 made ("null", or 8+ printable ASCII characters):
    the others are InvalidArgument, not NoSuchVersion. NoSuchVersion echoes the id in the
    x-amz-version-id header, which a control character cannot be sent in (it dropped the connection);
    UNCONFIRMED: AWS's answer to an id with control characters."""
    return version_id == NULL or (len(version_id) >= 8 and version_id.isascii() and version_id.isprintable())


class Events(Protocol):
    """Event notifications (notify.Notifier): what a write runs inside its commit, and the wake-up after."""

    def hook(self, ctx: RequestContext, bucket: str, key: str) -> Hook | None: ...

    def wake(self) -> None: ...


def canonical_id(account: str) -> str:
    return hashlib.sha256(f"onceflow-{account}".encode()).hexdigest()


def owner(account: str) -> dict[str, str]:
    return {"DisplayName": "onceflow", "ID": canonical_id(account)}


def new_version_id() -> str:
    return base64.urlsafe_b64encode(os.urandom(24)).decode().rstrip("=")


def quoted(etag: str) -> str:
    return f'"{etag}"'


class S3Service:
    def __init__(self, db: Database, blobs: BlobStore) -> None:
        self.db = db
        self.blobs = blobs
        self.events: Events | None = None  # set by setup(): notify.Notifier
        # bucket -> a tick taken at its latest change of versions or tags (the lifecycle sweep skips
        # buckets that have not changed); itertools.count's next() is atomic, so no lock is needed.
        self.changed: dict[str, int] = {}
        self._ticks = itertools.count(1)

    # ------------------------------------------------------------------ notifications
    def hook_for(self, ctx: RequestContext | None, bucket_row: dict[str, Any], key: str) -> Hook | None:
        """The notification hook of a write to `key` (None when the bucket has no configuration). A
        caller inside onceflow passes no context: the event names the bucket owner as the requester."""
        if self.events is None:
            return None
        if ctx is None:
            account = bucket_row["account"]
            ctx = RequestContext("s3", "", account, bucket_row["region"], Principal.root(account), internal=True)
        return self.events.hook(ctx, bucket_row["name"], key)

    @staticmethod
    def as_s3(bucket_row: dict[str, Any]) -> RequestContext:
        """The context of a change S3 makes itself (lifecycle, restores): its events name S3."""
        account = bucket_row["account"]
        return RequestContext("s3", "", account, bucket_row["region"],
                              Principal(account, "service", "s3.amazonaws.com", "s3.amazonaws.com"), internal=True)

    def woken(self, hook: Hook | None) -> None:
        """After a write that recorded an event has committed: the delivery thread looks."""
        if hook is not None and self.events is not None:
            self.events.wake()

    # ------------------------------------------------------------------ buckets
    def bucket(self, account: str, name: str) -> dict[str, Any]:
        """The bucket row, for a caller of the owning account (others get AccessDenied)."""
        row = self.db.read(lambda c: store.get_bucket(c, name))
        if row is None:
            raise errors.no_such_bucket(name)
        if row["account"] != account:
            raise ServiceError("AccessDenied", "Access Denied", 403)
        return row

    def create_bucket(self, account: str, region: str, name: str, location: str | None,
                      configs: dict[str, Any], versioning: str = "") -> str:
        if bucket_name_problem(name):
            raise errors.invalid_bucket_name(name)
        if location == "us-east-1" or (location is not None and location == ""):
            raise errors.invalid_location(location)
        if location is None and region != "us-east-1":
            raise ServiceError("IllegalLocationConstraintException", "The unspecified location constraint is "
                               "incompatible for the region specific endpoint this request was sent to.", 400)
        if location is not None and location != region:
            raise errors.illegal_location(location)
        with self.db.transaction() as conn:
            existing = store.get_bucket(conn, name)
            if existing is not None:
                if existing["account"] != account:
                    raise errors.bucket_exists(name)
                if region != "us-east-1":
                    raise errors.bucket_owned(name)
                return f"/{name}"  # us-east-1 answers 200 to its owner, for legacy compatibility
            store.insert_bucket(conn, name, account, location or "us-east-1", time.time(), configs, versioning)
        return f"/{name}"

    def delete_bucket(self, account: str, name: str) -> None:
        self.bucket(account, name)
        with self.db.transaction() as conn:
            if store.bucket_has_content(conn, name):
                raise errors.bucket_not_empty(name)
            store.delete_bucket(conn, name)

    def list_buckets(self, account: str, prefix: str, after: str, limit: int) -> tuple[list[dict[str, Any]], bool]:
        rows = self.db.read(lambda c: store.list_buckets(c, account, after, prefix, limit + 1))
        return rows[:limit], len(rows) > limit

    def set_config(self, account: str, name: str, config: str, value: Any) -> None:
        self.bucket(account, name)
        with self.db.transaction() as conn:
            row = store.get_bucket(conn, name)
            if row is None:
                raise errors.no_such_bucket(name)
            configs = row["configs"]
            if value is None:
                configs.pop(config, None)
            else:
                configs[config] = value
            store.set_configs(conn, name, configs)

    def config(self, account: str, name: str, config: str) -> Any:
        return self.bucket(account, name)["configs"].get(config)

    def resource_policy(self, ctx: Any, params: dict[str, Any]) -> str | None:
        """The bucket policy of a call's bucket, for the authorizer (iam/authorizer.py)."""
        bucket = params.get("Bucket")
        if not bucket or ctx.service != "s3":
            return None
        row = self.db.read(lambda c: store.get_bucket(c, bucket))
        policy = row["configs"].get("policy") if row is not None else None
        return policy if isinstance(policy, str) else None

    def bucket_facts(self, bucket: str) -> tuple[str, str, str | None] | None:
        """(owner, region, policy) of a bucket for a service principal's own check (s3/ports.py)."""
        row = self.db.read(lambda c: store.get_bucket(c, bucket))
        if row is None:
            return None
        policy = row["configs"].get("policy")
        return row["account"], row["region"], policy if isinstance(policy, str) else None

    def set_versioning(self, account: str, name: str, status: str | None) -> None:
        row = self.bucket(account, name)
        if status not in ("Enabled", "Suspended"):
            raise malformed()
        if status != "Enabled" and lock.enabled(row):
            raise ServiceError("InvalidBucketState", "An Object Lock configuration is present on this bucket, so the "
                               "versioning state cannot be changed.", 409)
        with self.db.transaction() as conn:
            store.set_versioning(conn, name, status)

    # ------------------------------------------------------------------ writing objects
    def put_object(self, account: str, bucket: str, key: str, body: Any, fields: dict[str, Any] | None = None,
                   *, content_md5: str | None = None, claimed: dict[str, str] | None = None,
                   algorithm: str | None = None, if_match: str | None = None,
                   if_none_match: str | None = None, ctx: RequestContext | None = None) -> dict[str, Any]:
        """Store a body (bytes, or an object with read(n)) under `key`; the new version's facts.
        `ctx`: the request, for its event notification (None from inside onceflow)."""
        row = self.bucket(account, bucket)
        if isinstance(body, (bytes, bytearray)):
            body = BytesReader(bytes(body))  # an in-process caller's body, read as the wire's streams are
        if if_none_match is not None and if_none_match != "*":
            raise ServiceError("NotImplemented", "A header you provided implies functionality that is not "
                               "implemented", 501, extra={"Header": "If-None-Match"})
        self._check_write_condition(bucket, key, if_match, if_none_match)
        fields = lock.new_version_fields(row, dict(fields or {}), time.time())  # refused before the body is read
        written, digests = self._read_body(body, content_md5, claimed or {}, algorithm)
        obj = self._object_row(bucket, key, written, digests["MD5"], fields)
        obj["checksum"] = _checksum_record(digests, algorithm, claimed or {}, getattr(body, "trailers", {}))
        hook = self.hook_for(ctx, row, key)
        obj = self._commit_object(row, obj, written, conditions=(if_match, if_none_match), hook=hook,
                                  event="ObjectCreated:Put")
        self.woken(hook)
        return obj

    def _check_write_condition(self, bucket: str, key: str, if_match: str | None, if_none_match: str | None) -> None:
        if if_match is None and if_none_match is None:
            return
        current = self.db.read(lambda c: store.latest(c, bucket, key))
        live = current is not None and not current["delete_marker"]
        if if_none_match == "*" and live:
            raise errors.precondition_failed("If-None-Match")
        if if_match is not None:
            if not live:
                raise errors.no_such_key(key)
            assert current is not None
            if not etag_matches(if_match, current["etag"]):
                raise errors.precondition_failed("If-Match")

    def _read_body(self, body: Any, content_md5: str | None, claimed: dict[str, str],
                   algorithm: str | None, inline_ok: bool = True) -> tuple[Written, dict[str, Any]]:
        wanted = set(claimed) | ({algorithm} if algorithm else set())
        wanted |= {a for a in getattr(body, "announced", ()) if a in checksums.ALGORITHMS}
        digests: dict[str, Any] = {"MD5": checksums.new("MD5")}
        for name in wanted:
            digests[name] = checksums.new(name)
        if content_md5 is not None:
            try:
                expected_md5 = base64.b64decode(content_md5, validate=True)
            except (binascii.Error, ValueError):
                raise errors.invalid_digest() from None
            if len(expected_md5) != 16:
                raise errors.invalid_digest()
        written = self.blobs.write(body, digests.values(), MAX_OBJECT, inline_ok=inline_ok)
        try:
            if content_md5 is not None and digests["MD5"].digest() != base64.b64decode(content_md5):
                raise errors.bad_digest()
            trailers = getattr(body, "trailers", {})
            for name in checksums.ALGORITHMS:
                value = claimed.get(name) or trailers.get(f"x-amz-checksum-{name.lower()}")
                if value is None:
                    continue
                if name not in digests:  # a trailer the request did not announce: too late to compute
                    raise errors.invalid_argument(f"Unexpected checksum trailer x-amz-checksum-{name.lower()}")
                if checksums.encoded(digests[name]) != value:
                    raise errors.checksum_mismatch(name)
        except ServiceError:
            self.blobs.delete([written.blob_id] if written.blob_id else [])
            raise
        return written, digests

    def _object_row(self, bucket: str, key: str, written: Written, md5: Any, fields: dict[str, Any]) -> dict[str, Any]:
        headers = {k: _jsonable(fields[k]) for k in SYSTEM_HEADERS if fields.get(k) is not None}
        headers.setdefault("ContentType", "binary/octet-stream")
        return {
            "bucket": bucket, "key": key, "version_id": NULL, "latest": 1, "delete_marker": 0,
            "size": written.size, "etag": md5.hexdigest() if hasattr(md5, "hexdigest") else md5,
            "modified": time.time(), "headers": headers, "metadata": fields.get("Metadata") or {},
            "checksum": {}, "tags": fields.get("Tags") or {}, "parts": [], "acl": _acl_text(fields),
            "inline": written.inline, "segments": [[written.blob_id, written.size]] if written.blob_id else [],
        }

    def _commit_object(self, bucket_row: dict[str, Any], obj: dict[str, Any], written: Written | None,
                       conditions: tuple[str | None, str | None] = (None, None),
                       unreferenced: list[str] | None = None, hook: Hook | None = None,
                       event: str = "") -> dict[str, Any]:
        """Insert a new version (replacing the 'null' one unless versioning is on), in one transaction.
        The blobs it leaves unnamed are removed after the commit - or, when the caller's transaction
        holds this one (`unreferenced` given), added to that list for the caller to remove after its own."""
        bucket, key = obj["bucket"], obj["key"]
        versioned = bucket_row["versioning"] == "Enabled"
        obj["version_id"] = new_version_id() if versioned else NULL
        gone: list[str] = []
        try:
            with self.db.transaction() as conn:
                if any(conditions):  # checked again under the writers' lock: the conditional write is atomic
                    current = store.latest(conn, bucket, key)
                    live = current is not None and not current["delete_marker"]
                    if conditions[1] == "*" and live:
                        raise errors.precondition_failed("If-None-Match")
                    if conditions[0] is not None and not (current is not None and live
                                                          and etag_matches(conditions[0], current["etag"])):
                        raise errors.precondition_failed("If-Match")
                if not versioned:
                    old = store.version(conn, bucket, key, NULL)
                    if old is not None:
                        gone += [b for b, _ in old["segments"]]
                        store.delete_version(conn, bucket, key, NULL)
                store.unmark_latest(conn, bucket, key)
                store.insert_object(conn, obj)
                self.changed[bucket] = next(self._ticks)
                if hook is not None:
                    hook(conn, event, obj)
        except BaseException:
            if written is not None and written.blob_id:
                self.blobs.delete([written.blob_id])
            raise
        if unreferenced is not None:
            unreferenced += gone
        else:
            self.blobs.delete(gone)
        return obj

    def copy_object(self, account: str, bucket: str, key: str, source: str, fields: dict[str, Any],
                    params: dict[str, Any], ctx: RequestContext | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """CopyObject: (the new object, the source version)."""
        row = self.bucket(account, bucket)
        src_bucket, src_key, src_version = parse_copy_source(source)
        src = self.object(account, src_bucket, src_key, src_version)
        restore.check_readable(src, time.time())
        copy_conditions(src, params)
        directive = params.get("MetadataDirective", "COPY")
        if (src_bucket, src_key) == (bucket, key) and directive != "REPLACE" and not src_version \
                and not fields.get("StorageClass") and not fields.get("ServerSideEncryption") \
                and not fields.get("WebsiteRedirectLocation"):
            raise ServiceError("InvalidRequest", "This copy request is illegal because it is trying to copy an object "
                               "to itself without changing the object's metadata, storage class, website redirect "
                               "location or encryption attributes.", 400)
        written = self.blobs.copy(src["segments"], src["inline"])
        obj = dict(src)
        obj.update({"bucket": bucket, "key": key, "latest": 1, "delete_marker": 0, "modified": time.time(),
                    "inline": written.inline, "acl": _acl_text(fields),  # a copy is private unless it asks
                    "segments": [[written.blob_id, written.size]] if written.blob_id else []})
        if directive == "REPLACE":
            headers = {k: _jsonable(fields[k]) for k in SYSTEM_HEADERS if fields.get(k) is not None}
            headers.setdefault("ContentType", "binary/octet-stream")
            obj["headers"], obj["metadata"] = headers, fields.get("Metadata") or {}
        elif fields.get("StorageClass"):
            obj["headers"] = {**src["headers"], "StorageClass": fields["StorageClass"]}
        if params.get("TaggingDirective") == "REPLACE":
            obj["tags"] = fields.get("Tags") or {}
        # A copy's lock is its own request's (or the bucket's default), never the source's.
        locked = {k: _jsonable(v) for k, v in lock.new_version_fields(row, fields, time.time()).items()
                  if k.startswith("ObjectLock")}
        obj["headers"] = {**{k: v for k, v in obj["headers"].items() if not k.startswith("ObjectLock")}, **locked}
        algorithm = params.get("ChecksumAlgorithm")
        if algorithm and algorithm not in obj["checksum"]:
            obj["checksum"] = {algorithm: self._digest_of(obj, algorithm), "type": "FULL_OBJECT"}
        obj.pop("id", None)
        hook = self.hook_for(ctx, row, key)
        obj = self._commit_object(row, obj, written, hook=hook, event="ObjectCreated:Copy")
        self.woken(hook)
        return obj, src

    def _digest_of(self, obj: dict[str, Any], algorithm: str) -> str:
        d = checksums.new(algorithm)
        for piece in self.blobs.read(obj["segments"], obj["inline"], 0, None):
            d.update(piece)
        return checksums.encoded(d)

    # ------------------------------------------------------------------ reading objects
    def object(self, account: str, bucket: str, key: str, version_id: str | None = None) -> dict[str, Any]:
        """The version asked for (the latest by default); a delete marker is 404 (405 by version)."""
        self.bucket(account, bucket)
        if version_id is not None:
            row = self.db.read(lambda c: store.version(c, bucket, key, version_id))
            if row is None:
                if not plausible_version(version_id):
                    raise errors.invalid_version(version_id)
                raise errors.no_such_version(key, version_id)
            if row["delete_marker"]:
                raise ServiceError("MethodNotAllowed", "The specified method is not allowed against this resource.",
                                   405, extra={"Method": "GET", "ResourceType": "DeleteMarker",
                                               "DeleteMarker": "true", "VersionId": version_id})
            return row
        row = self.db.read(lambda c: store.latest(c, bucket, key))
        if row is None or row["delete_marker"]:
            extra = {"DeleteMarker": "true", "VersionId": row["version_id"]} if row else {}
            err = errors.no_such_key(key)
            err.extra.update(extra)
            raise err
        return row

    def body(self, obj: dict[str, Any], start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes [start, end) of an object version (from `object`), piece by piece."""
        return self.blobs.read(obj["segments"], obj["inline"], start, end)

    def get_object(self, account: str, bucket: str, key: str,
                   version_id: str | None = None) -> tuple[dict[str, Any], Iterator[bytes]]:
        """An object's facts (size, etag, headers, metadata...) and its body as a stream."""
        obj = self.object(account, bucket, key, version_id)
        restore.check_readable(obj, time.time())
        return obj, self.body(obj)

    # ------------------------------------------------------------------ deleting objects
    def delete_object(self, account: str, bucket: str, key: str, version_id: str | None = None,
                      if_match: str | None = None, ctx: RequestContext | None = None,
                      bypass_governance: bool = False, cause: str = "ObjectRemoved") -> dict[str, Any]:
        """Returns {DeleteMarker, VersionId} as DeleteObject answers. `cause`: the event family it
        notifies ("LifecycleExpiration" when a lifecycle rule removes the object)."""
        row = self.bucket(account, bucket)
        hook = self.hook_for(ctx, row, key)
        gone: list[str] = []
        out: dict[str, Any] = {}
        with self.db.transaction() as conn:
            current = store.latest(conn, bucket, key)
            if if_match is not None and (current is None or current["delete_marker"]
                                         or not etag_matches(if_match, current["etag"])):
                if current is None or current["delete_marker"]:
                    raise errors.no_such_key(key)
                raise errors.precondition_failed("If-Match")
            if version_id is not None:
                target = store.version(conn, bucket, key, version_id)
                if target is None:
                    if not plausible_version(version_id):
                        raise errors.invalid_version(version_id)
                    return {"VersionId": version_id}
                lock.check_deletable(target, bypass_governance, time.time())
                gone += [b for b, _ in target["segments"]]
                store.delete_version(conn, bucket, key, version_id)
                if target["latest"]:
                    store.promote_newest(conn, bucket, key)
                out = {"VersionId": version_id}
                if target["delete_marker"]:
                    out["DeleteMarker"] = True
            elif row["versioning"] in ("Enabled", "Suspended"):
                marker_id = new_version_id() if row["versioning"] == "Enabled" else NULL
                if marker_id == NULL:
                    old = store.version(conn, bucket, key, NULL)
                    if old is not None:
                        gone += [b for b, _ in old["segments"]]
                        store.delete_version(conn, bucket, key, NULL)
                store.unmark_latest(conn, bucket, key)
                store.insert_object(conn, {
                    "bucket": bucket, "key": key, "version_id": marker_id, "latest": 1, "delete_marker": 1,
                    "size": 0, "etag": "", "modified": time.time(), "headers": {}, "metadata": {}, "checksum": {},
                    "tags": {}, "parts": [], "inline": None, "segments": []})
                out = {"DeleteMarker": True, "VersionId": marker_id}
            elif current is not None:
                gone += [b for b, _ in current["segments"]]
                store.delete_version(conn, bucket, key, current["version_id"])
            if hook is not None:
                marker = out.get("DeleteMarker") and version_id is None
                hook(conn, f"{cause}:DeleteMarkerCreated" if marker else f"{cause}:Delete",
                     {"version_id": out.get("VersionId")})
        self.blobs.delete(gone)
        self.changed[bucket] = next(self._ticks)
        self.woken(hook)
        return out

    def restore_object(self, account: str, bucket: str, key: str, version_id: str | None, request: dict[str, Any],
                       ctx: RequestContext | None = None) -> int:
        """RestoreObject of an archived version: 202 for a new restore, 200 when one is in place (its
        expiry is moved)."""
        obj = self.object(account, bucket, key, version_id)
        days = restore.check_request(obj, request)
        now = time.time()
        until = restore.restored_until(obj)
        hook = self.hook_for(ctx, self.bucket(account, bucket), key)
        restored = {**obj, "headers": {**obj["headers"], "Restore": restore.restore_header(days, now)}}
        with self.db.transaction() as conn:
            store.set_headers(conn, bucket, key, obj["version_id"], restored["headers"])
            if hook is not None and (until is None or until <= now):
                hook(conn, "ObjectRestore:Post", obj)
                hook(conn, "ObjectRestore:Completed", restored)
        self.woken(hook)
        return 200 if until is not None and until > now else 202

    # ------------------------------------------------------------------ object lock
    def set_lock_config(self, account: str, bucket: str, config: dict[str, Any]) -> None:
        lock.check_config(self.bucket(account, bucket), config)
        self.set_config(account, bucket, lock.CONFIG, config)

    def _locked_version(self, account: str, bucket: str, key: str, version_id: str | None) -> dict[str, Any]:
        if not lock.enabled(self.bucket(account, bucket)):
            raise lock.missing_config()
        return self.object(account, bucket, key, version_id)

    def lock_of(self, account: str, bucket: str, key: str, version_id: str | None) -> dict[str, Any]:
        """A version's lock headers (GetObjectRetention, GetObjectLegalHold)."""
        return self._locked_version(account, bucket, key, version_id)["headers"]

    def set_retention(self, account: str, bucket: str, key: str, version_id: str | None, retention: dict[str, Any],
                      bypass_governance: bool = False) -> None:
        obj = self._locked_version(account, bucket, key, version_id)
        with self.db.transaction() as conn:
            current = store.version(conn, bucket, key, obj["version_id"])
            if current is None:
                raise errors.no_such_key(key)
            headers = lock.check_retention_change(current["headers"], retention, bypass_governance, time.time())
            store.set_headers(conn, bucket, key, obj["version_id"], headers)

    def set_legal_hold(self, account: str, bucket: str, key: str, version_id: str | None, status: str | None) -> None:
        if status not in ("ON", "OFF"):
            raise malformed()
        obj = self._locked_version(account, bucket, key, version_id)
        with self.db.transaction() as conn:
            current = store.version(conn, bucket, key, obj["version_id"])
            if current is None:
                raise errors.no_such_key(key)
            store.set_headers(conn, bucket, key, obj["version_id"],
                              {**current["headers"], "ObjectLockLegalHoldStatus": status})

    # ------------------------------------------------------------------ tags
    def set_object_tags(self, account: str, bucket: str, key: str, version_id: str | None,
                        tags: dict[str, str] | None, ctx: RequestContext | None = None) -> str:
        obj = self.object(account, bucket, key, version_id)
        hook = self.hook_for(ctx, self.bucket(account, bucket), key)
        with self.db.transaction() as conn:
            store.set_tags(conn, bucket, key, obj["version_id"], tags or {})
            self.changed[bucket] = next(self._ticks)
            if hook is not None:
                hook(conn, "ObjectTagging:Put" if tags else "ObjectTagging:Delete", obj)
        self.woken(hook)
        return str(obj["version_id"])

    def set_object_acl(self, account: str, bucket: str, key: str, version_id: str | None,
                       grants: list[dict[str, Any]], ctx: RequestContext | None = None) -> dict[str, Any]:
        obj = self.object(account, bucket, key, version_id)
        hook = self.hook_for(ctx, self.bucket(account, bucket), key)
        with self.db.transaction() as conn:
            store.set_acl(conn, bucket, key, obj["version_id"], json.dumps(grants))
            if hook is not None:
                hook(conn, "ObjectAcl:Put", obj)
        self.woken(hook)
        return obj

    # ------------------------------------------------------------------ listing
    def list_objects(self, account: str, bucket: str, prefix: str = "", delimiter: str = "", after: str = "",
                     limit: int = 1000) -> tuple[list[dict[str, Any]], list[str], bool, str]:
        """(objects, common prefixes, truncated, the last key or prefix returned)."""
        self.bucket(account, bucket)
        from onceflow.s3.listing import list_current

        return self.db.read(lambda c: list_current(c, bucket, prefix, delimiter, after, limit))

    def reset(self) -> None:
        self.blobs.clear()

    def sweep(self) -> int:
        return self.blobs.sweep(self.db.read(store.all_segments))


def malformed() -> ServiceError:
    return errors.malformed_xml()


def _checksum_record(digests: dict[str, Any], algorithm: str | None, claimed: dict[str, str],
                     trailers: dict[str, str]) -> dict[str, Any]:
    names = set(claimed) | ({algorithm} if algorithm else set())
    names |= {a for a in checksums.ALGORITHMS if f"x-amz-checksum-{a.lower()}" in trailers}
    record: dict[str, Any] = {a: checksums.encoded(digests[a]) for a in names if a in digests}
    if record:
        record["type"] = "FULL_OBJECT"
    return record


def _acl_text(fields: dict[str, Any]) -> str:
    """The ACL column of a new version: the grants its request asked for, '' for private."""
    return json.dumps(fields["Grants"]) if fields.get("Grants") else ""


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def stored_header(name: str, value: Any) -> Any:
    if name in ("Expires", "ObjectLockRetainUntilDate") and isinstance(value, str):
        return datetime.fromisoformat(value)
    return value


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
