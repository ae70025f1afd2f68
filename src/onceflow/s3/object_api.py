"""S3's object operations: put, get, head, delete (one and many), copy, tagging, ACLs, attributes."""

from __future__ import annotations

import re
import time
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.registry import operation
from onceflow.s3 import acl, errors, restore, tagging
from onceflow.s3.api_common import (
    ApiBase,
    checksum_out,
    claimed_checksums,
    fields_of,
    required_grants,
    version_out,
)
from onceflow.s3.conditions import check_read_conditions, parse_range, when
from onceflow.s3.service import owner, quoted, stored_header

# GetObject's response-* query parameters: each comes back as the header it names.
RESPONSE_OVERRIDES = ("ResponseContentType", "ResponseContentDisposition", "ResponseContentEncoding",
                      "ResponseContentLanguage", "ResponseCacheControl", "ResponseExpires")
# What no HTTP header value may hold (a tab may); sent back, it dropped the connection. UNCONFIRMED:
# S3's answer to such an override (its code and message here are ours).
_HEADER_UNSAFE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _override_query_name(member: str) -> str:
    """ResponseContentType -> response-content-type, as the request named it."""
    return re.sub(r"(?<!^)([A-Z])", r"-\1", member).lower()


class ObjectApi(ApiBase):
    @operation("GetObjectAcl")
    def get_object_acl(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        me = owner(ctx.account)
        return {"Owner": me, "Grants": acl.stored(obj.get("acl"), me)}

    @operation("PutObjectAcl")
    def put_object_acl(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        me = owner(ctx.account)
        grants = required_grants(acl.requested(params, me))
        acl.check_writable(grants, me, row["configs"])
        self.s3.set_object_acl(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), grants, ctx)
        return {}

    # ------------------------------------------------------------------ objects
    @operation("PutObject")
    def put_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        length = params.get("ContentLength")
        if length is not None and length > 5 * 1024 ** 3:
            raise errors.entity_too_large(length, 5 * 1024 ** 3)
        obj = self.s3.put_object(ctx.account, params["Bucket"], params["Key"], params.get("Body", b""),
                                 self._with_acl(ctx, params, fields_of(params)),
                                 content_md5=params.get("ContentMD5"), claimed=claimed_checksums(params),
                                 algorithm=params.get("ChecksumAlgorithm"), if_match=params.get("IfMatch"),
                                 if_none_match=params.get("IfNoneMatch"), ctx=ctx)
        return {"ETag": quoted(obj["etag"]), **checksum_out(obj["checksum"]), **version_out(obj),
                "Size": obj["size"]}

    @operation("GetObject")
    def get_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        for name in RESPONSE_OVERRIDES:  # each is sent back as a header, where these cannot go
            if isinstance(params.get(name), str) and _HEADER_UNSAFE.search(params[name]):
                raise errors.invalid_argument("Header value contains control characters.",
                                              _override_query_name(name), params[name])
        obj, out = self._head(ctx, params)
        restore.check_readable(obj, time.time())
        size = obj["size"]
        start, end = 0, size
        if params.get("PartNumber") and obj["parts"]:
            start, end = _part_bounds(obj, params["PartNumber"])
            out["ContentRange"] = f"bytes {start}-{end - 1}/{size}"
            out["StatusCode"] = 206
        elif params.get("Range"):
            bounds = parse_range(params["Range"], size)
            if bounds is not None:
                start, end = bounds
                out["ContentRange"] = f"bytes {start}-{end - 1}/{size}"
                out["StatusCode"] = 206
        if (start, end) != (0, size):  # a piece's checksum is not the object's: S3 sends none
            out = {k: v for k, v in out.items() if not k.startswith("Checksum")}
        out["ContentLength"] = end - start
        out["Body"] = obj["inline"][start:end] if obj["inline"] is not None else self.s3.body(obj, start, end)
        for name in RESPONSE_OVERRIDES:
            if params.get(name) is not None:
                out[name[len("Response"):]] = params[name]
        return out

    @operation("RestoreObject")
    def restore_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        status = self.s3.restore_object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"),
                                        params.get("RestoreRequest") or {}, ctx)
        return {"StatusCode": status}

    @operation("HeadObject")
    def head_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj, out = self._head(ctx, params)
        out["ContentLength"] = obj["size"]
        if params.get("PartNumber") and obj["parts"]:
            start, end = _part_bounds(obj, params["PartNumber"])
            out["ContentLength"] = end - start
            out["ContentRange"] = f"bytes {start}-{end - 1}/{obj['size']}"
        elif params.get("Range"):
            bounds = parse_range(params["Range"], obj["size"])
            if bounds is not None:
                out["ContentLength"] = bounds[1] - bounds[0]
                out["ContentRange"] = f"bytes {bounds[0]}-{bounds[1] - 1}/{obj['size']}"
                out["StatusCode"] = 206
        return out

    def _head(self, ctx: RequestContext, params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        check_read_conditions(obj, params)
        out: dict[str, Any] = {"AcceptRanges": "bytes", "LastModified": when(obj["modified"]),
                               "ETag": quoted(obj["etag"]), **version_out(obj)}
        for name, value in obj["headers"].items():
            out[name] = stored_header(name, value)
        if obj["metadata"]:
            out["Metadata"] = obj["metadata"]
        if obj["tags"]:
            out["TagCount"] = len(obj["tags"])
        if obj["parts"]:
            out["PartsCount"] = len(obj["parts"])
        if params.get("ChecksumMode") == "ENABLED":
            out.update(checksum_out(obj["checksum"]))
        if out.get("StorageClass") == "STANDARD":
            out.pop("StorageClass")
        return obj, out

    @operation("DeleteObject")
    def delete_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        out = self.s3.delete_object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"),
                                    params.get("IfMatch"), ctx, bool(params.get("BypassGovernanceRetention")))
        return out

    @operation("DeleteObjects")
    def delete_objects(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        bucket = params["Bucket"]
        self.s3.bucket(ctx.account, bucket)
        wanted = (params.get("Delete") or {}).get("Objects") or []
        # An <Object> without a <Key> fails the schema: the whole request is refused, nothing deleted.
        if not wanted or len(wanted) > 1000 or any(item.get("Key") is None for item in wanted):
            raise errors.malformed_xml()
        quiet = (params.get("Delete") or {}).get("Quiet", False)
        deleted, failed = [], []
        for item in wanted:
            key = item["Key"]
            try:
                result = self.s3.delete_object(ctx.account, bucket, key, item.get("VersionId"), ctx=ctx,
                                               bypass_governance=bool(params.get("BypassGovernanceRetention")))
            except ServiceError as err:
                failed.append({"Key": key, "Code": err.code, "Message": err.message,
                               **({"VersionId": item["VersionId"]} if item.get("VersionId") else {})})
                continue
            if quiet:
                continue
            entry: dict[str, Any] = {"Key": key}
            if item.get("VersionId"):
                entry["VersionId"] = item["VersionId"]
            if result.get("DeleteMarker"):
                entry["DeleteMarker"] = True
                if not item.get("VersionId"):
                    entry["DeleteMarkerVersionId"] = result["VersionId"]
            deleted.append(entry)
        out: dict[str, Any] = {}
        if deleted:
            out["Deleted"] = deleted
        if failed:
            out["Errors"] = failed
        return out

    @operation("CopyObject")
    def copy_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj, src = self.s3.copy_object(ctx.account, params["Bucket"], params["Key"], params["CopySource"],
                                       self._with_acl(ctx, params, fields_of(params)), params, ctx)
        out: dict[str, Any] = {"CopyObjectResult": {"ETag": quoted(obj["etag"]), "LastModified": when(obj["modified"]),
                                                    **checksum_out(obj["checksum"])}, **version_out(obj)}
        if src["version_id"] != "null":
            out["CopySourceVersionId"] = src["version_id"]
        return out

    @operation("PutObjectTagging")
    def put_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        tags = tagging.checked((params.get("Tagging") or {}).get("TagSet", []), "object")
        version = self.s3.set_object_tags(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), tags,
                                          ctx=ctx)
        return {"VersionId": version} if version != "null" else {}

    @operation("GetObjectTagging")
    def get_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        return {"TagSet": [{"Key": k, "Value": v} for k, v in obj["tags"].items()], **version_out(obj)}

    @operation("DeleteObjectTagging")
    def delete_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        version = self.s3.set_object_tags(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), {},
                                          ctx=ctx)
        return {"VersionId": version} if version != "null" else {}

    @operation("GetObjectAttributes")
    def get_object_attributes(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        wanted = set(params.get("ObjectAttributes", []))
        out: dict[str, Any] = {"LastModified": when(obj["modified"]), **version_out(obj)}
        if "ETag" in wanted:
            out["ETag"] = obj["etag"]
        if "ObjectSize" in wanted:
            out["ObjectSize"] = obj["size"]
        if "StorageClass" in wanted:
            out["StorageClass"] = obj["headers"].get("StorageClass", "STANDARD")
        if "Checksum" in wanted and obj["checksum"]:
            out["Checksum"] = checksum_out(obj["checksum"])
        if "ObjectParts" in wanted and obj["parts"]:
            out["ObjectParts"] = {"TotalPartsCount": len(obj["parts"]), "PartNumberMarker": 0,
                                  "NextPartNumberMarker": obj["parts"][-1][0], "MaxParts": 1000, "IsTruncated": False,
                                  "Parts": [{"PartNumber": n, "Size": s} for n, s in obj["parts"]]}
        return out


def _part_bounds(obj: dict[str, Any], number: int) -> tuple[int, int]:
    offset = 0
    for n, size in obj["parts"]:
        if n == number:
            return offset, offset + size
        offset += size
    raise errors.invalid_range(obj["size"], f"partNumber={number}")
