"""S3's listings: ListObjectsV2, ListObjects and ListObjectVersions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.s3 import errors
from onceflow.s3.api_common import ApiBase, encoder, make_token, max_keys, read_token
from onceflow.s3.conditions import when
from onceflow.s3.listing import list_versions
from onceflow.s3.service import owner, quoted


class ListingApi(ApiBase):
    @operation("ListObjectsV2")
    def list_objects_v2(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        token = params.get("ContinuationToken")
        after = read_token(token) if token else params.get("StartAfter", "")
        objects, prefixes, more, last = self.s3.list_objects(ctx.account, params["Bucket"], prefix, delimiter, after,
                                                             limit)
        encode = encoder(params)
        out: dict[str, Any] = {"IsTruncated": more, "Name": params["Bucket"], "Prefix": encode(prefix),
                               "MaxKeys": limit, "KeyCount": len(objects) + len(prefixes)}
        out["Contents"] = [_content(o, encode, params.get("FetchOwner") and ctx.account) for o in objects] or None
        out["CommonPrefixes"] = [{"Prefix": encode(p)} for p in prefixes] or None
        if delimiter:
            out["Delimiter"] = encode(delimiter)
        if token:
            out["ContinuationToken"] = token
        if params.get("StartAfter"):
            out["StartAfter"] = encode(params["StartAfter"])
        if more:
            out["NextContinuationToken"] = make_token(last)
        if params.get("EncodingType"):
            out["EncodingType"] = params["EncodingType"]
        return out

    @operation("ListObjects")
    def list_objects(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        marker = params.get("Marker", "")
        objects, prefixes, more, last = self.s3.list_objects(ctx.account, params["Bucket"], prefix, delimiter, marker,
                                                             limit)
        encode = encoder(params)
        out: dict[str, Any] = {"IsTruncated": more, "Marker": encode(marker), "Name": params["Bucket"],
                               "Prefix": encode(prefix), "MaxKeys": limit}
        out["Contents"] = [_content(o, encode, ctx.account) for o in objects] or None
        out["CommonPrefixes"] = [{"Prefix": encode(p)} for p in prefixes] or None
        if delimiter:
            out["Delimiter"] = encode(delimiter)
            if more:
                out["NextMarker"] = encode(last)
        if params.get("EncodingType"):
            out["EncodingType"] = params["EncodingType"]
        return out

    @operation("ListObjectVersions")
    def list_object_versions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        bucket = params["Bucket"]
        self.s3.bucket(ctx.account, bucket)
        limit = max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        key_marker, version_marker = params.get("KeyMarker", ""), params.get("VersionIdMarker")
        if version_marker and not key_marker:  # it used to list from the start, as if never sent
            raise errors.invalid_argument("A version-id marker cannot be specified without a key marker.",
                                          "version-id-marker", version_marker)
        marker_id = None
        if key_marker and version_marker:
            row = self.s3.db.read(lambda c: c.execute("SELECT id FROM s3_objects WHERE bucket = ? AND key = ? AND "
                                                      "version_id = ?", (bucket, key_marker, version_marker))
                                  .fetchone())
            if row is None:
                raise errors.invalid_argument("Invalid version id specified", "version-id-marker", version_marker)
            marker_id = row[0]
        rows, prefixes, more = self.s3.db.read(
            lambda c: list_versions(c, bucket, prefix, delimiter, key_marker, marker_id, limit))
        encode = encoder(params)
        versions, markers = [], []
        for r in rows:
            entry = {"Key": encode(r["key"]), "VersionId": r["version_id"], "IsLatest": bool(r["latest"]),
                     "LastModified": when(r["modified"]), "Owner": owner(ctx.account)}
            if r["delete_marker"]:
                markers.append(entry)
            else:
                entry.update({"ETag": quoted(r["etag"]), "Size": r["size"], "StorageClass": "STANDARD"})
                versions.append(entry)
        out: dict[str, Any] = {"IsTruncated": more, "KeyMarker": encode(key_marker), "Name": bucket,
                               "Prefix": encode(prefix), "MaxKeys": limit,
                               "Versions": versions or None, "DeleteMarkers": markers or None,
                               "CommonPrefixes": [{"Prefix": encode(p)} for p in prefixes] or None}
        if version_marker:
            out["VersionIdMarker"] = version_marker
        if delimiter:
            out["Delimiter"] = encode(delimiter)
        if more and rows:
            out["NextKeyMarker"] = encode(rows[-1]["key"])
            out["NextVersionIdMarker"] = rows[-1]["version_id"]
        elif more and prefixes:
            out["NextKeyMarker"] = encode(prefixes[-1])
        if params.get("EncodingType"):
            out["EncodingType"] = params["EncodingType"]
        return out


def _content(obj: dict[str, Any], encode: Callable[[str], str], account: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"Key": encode(obj["key"]), "LastModified": when(obj["modified"]),
                             "ETag": quoted(obj["etag"]), "Size": obj["size"],
                             "StorageClass": obj["headers"].get("StorageClass", "STANDARD")}
    algorithms = [k for k in obj["checksum"] if k != "type"]
    if algorithms:
        entry["ChecksumAlgorithm"] = algorithms
        entry["ChecksumType"] = obj["checksum"].get("type", "FULL_OBJECT")
    if account:
        entry["Owner"] = owner(account)
    return entry
