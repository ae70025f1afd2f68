"""S3's operations: parsed requests (the botocore input shapes) turned into service calls and the
results into output shapes. Bucket sub-resources that are only stored (CORS, lifecycle,
notifications, ownership controls, public access block, encryption, policy, tagging) share one
table of (stored name, input member, output member, error when absent)."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.registry import operation
from onceflow.s3 import acl, errors
from onceflow.s3.listing import list_versions
from onceflow.s3.multipart import Multipart
from onceflow.s3.notify import Notifier, check_shape
from onceflow.s3.service import (
    SYSTEM_HEADERS,
    S3Service,
    check_read_conditions,
    owner,
    parse_range,
    parse_tagging,
    quoted,
    stored_header,
    when,
)

# operation suffix -> (config name, input payload member, output member or None for the whole dict, absent error)
CONFIGS: dict[str, tuple[str, str, str | None, Callable[[str], ServiceError] | None]] = {
    "BucketTagging": ("tagging", "Tagging", None, errors.no_such_tag_set),
    "BucketCors": ("cors", "CORSConfiguration", None, lambda b: errors.no_such_config(
        "NoSuchCORSConfiguration", "The CORS configuration does not exist", b)),
    "BucketLifecycleConfiguration": ("lifecycle", "LifecycleConfiguration", None, lambda b: errors.no_such_config(
        "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist", b)),
    "BucketNotificationConfiguration": ("notification", "NotificationConfiguration", None, None),
    "BucketOwnershipControls": ("ownership", "OwnershipControls", "OwnershipControls",
                                lambda b: errors.no_such_config("OwnershipControlsNotFoundError",
                                                                "The bucket ownership controls were not found", b)),
    "PublicAccessBlock": ("public_access_block", "PublicAccessBlockConfiguration", "PublicAccessBlockConfiguration",
                          lambda b: errors.no_such_config("NoSuchPublicAccessBlockConfiguration",
                                                          "The public access block configuration was not found", b)),
    "BucketEncryption": ("encryption", "ServerSideEncryptionConfiguration", "ServerSideEncryptionConfiguration",
                         None),
    "BucketPolicy": ("policy", "Policy", "Policy", lambda b: errors.no_such_config(
        "NoSuchBucketPolicy", "The bucket policy does not exist", b)),
    "BucketWebsite": ("website", "WebsiteConfiguration", None, lambda b: errors.no_such_config(
        "NoSuchWebsiteConfiguration", "The specified bucket does not have a website configuration", b)),
    "BucketAccelerateConfiguration": ("accelerate", "AccelerateConfiguration", None, None),
    "BucketRequestPayment": ("request_payment", "RequestPaymentConfiguration", None, None),
    "BucketLogging": ("logging", "BucketLoggingStatus", None, None),
}
_DEFAULT_ENCRYPTION = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"},
                                  "BucketKeyEnabled": False}]}
_DELETABLE = ("BucketTagging", "BucketCors", "BucketLifecycle", "BucketOwnershipControls", "PublicAccessBlock",
              "BucketEncryption", "BucketPolicy", "BucketWebsite")


def _claimed(params: dict[str, Any]) -> dict[str, str]:
    return {a: params[f"Checksum{a}"] for a in ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")
            if params.get(f"Checksum{a}")}


def _fields(params: dict[str, Any]) -> dict[str, Any]:
    fields = {k: params[k] for k in SYSTEM_HEADERS if params.get(k) is not None}
    if params.get("Metadata"):
        fields["Metadata"] = {k.lower(): v for k, v in params["Metadata"].items()}
    if params.get("Tagging"):
        fields["Tags"] = parse_tagging(params["Tagging"])
    for k in ("ChecksumAlgorithm", "ChecksumType"):
        if params.get(k):
            fields[k] = params[k]
    return fields


def _checksum_out(record: dict[str, Any]) -> dict[str, Any]:
    out = {f"Checksum{k}": v for k, v in record.items() if k != "type"}
    if out:
        out["ChecksumType"] = record.get("type", "FULL_OBJECT")
    return out


def _version_out(obj: dict[str, Any]) -> dict[str, Any]:
    return {"VersionId": obj["version_id"]} if obj["version_id"] != "null" else {}


class S3Api:
    def __init__(self, service: S3Service, multipart: Multipart, notifier: Notifier) -> None:
        self.s3 = service
        self.mp = multipart
        self.notifier = notifier

    # ------------------------------------------------------------------ buckets
    @operation("CreateBucket")
    def create_bucket(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        config = params.get("CreateBucketConfiguration") or {}
        configs: dict[str, Any] = {}
        if params.get("ObjectOwnership"):
            configs["ownership"] = {"Rules": [{"ObjectOwnership": params["ObjectOwnership"]}]}
        grants = acl.requested(params, owner(ctx.account), BUCKET_CANNED)
        if grants is not None:
            if acl.ownership(configs) == "BucketOwnerEnforced" and not acl.owner_only(grants, owner(ctx.account)):
                raise ServiceError("InvalidBucketAclWithObjectOwnership", "Bucket cannot have ACLs set with "
                                   "ObjectOwnership's BucketOwnerEnforced setting", 400)
            configs["acl"] = grants
        location = self.s3.create_bucket(ctx.account, ctx.region, params["Bucket"], config.get("LocationConstraint"),
                                         configs)
        return {"Location": location}

    @operation("DeleteBucket")
    def delete_bucket(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.s3.delete_bucket(ctx.account, params["Bucket"])
        self.notifier.forget(params["Bucket"])

    @operation("HeadBucket")
    def head_bucket(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        return {"BucketRegion": row["region"], "AccessPointAlias": False}

    @operation("ListBuckets")
    def list_buckets(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = params.get("MaxBuckets") or 10000
        if not 1 <= limit <= 10000:
            raise errors.invalid_argument("Argument max-buckets must be an integer between 1 and 10000",
                                          "max-buckets", str(limit))
        after = _untoken(params.get("ContinuationToken"))
        rows, more = self.s3.list_buckets(ctx.account, params.get("Prefix", ""), after, limit)
        out: dict[str, Any] = {
            "Buckets": [{"Name": r["name"], "CreationDate": when(r["created"]), "BucketRegion": r["region"]}
                        for r in rows],
            "Owner": owner(ctx.account)}
        if more:
            out["ContinuationToken"] = _token(rows[-1]["name"])
        if params.get("Prefix"):
            out["Prefix"] = params["Prefix"]
        return out

    @operation("GetBucketLocation")
    def get_bucket_location(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        region = self.s3.bucket(ctx.account, params["Bucket"])["region"]
        return {"LocationConstraint": "" if region == "us-east-1" else region}  # us-east-1: an empty element

    @operation("PutBucketVersioning")
    def put_bucket_versioning(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.s3.set_versioning(ctx.account, params["Bucket"],
                               (params.get("VersioningConfiguration") or {}).get("Status"))

    @operation("GetBucketVersioning")
    def get_bucket_versioning(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        status = self.s3.bucket(ctx.account, params["Bucket"])["versioning"]
        return {"Status": status} if status else {}

    @operation("GetBucketAcl")
    def get_bucket_acl(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        me = owner(row["account"])
        return {"Owner": me, "Grants": row["configs"].get("acl") or acl.private(me)}

    @operation("PutBucketAcl")
    def put_bucket_acl(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        me = owner(row["account"])
        grants = _required(acl.requested(params, me, BUCKET_CANNED))
        acl.check_writable(grants, me, row["configs"])
        self.s3.set_config(ctx.account, params["Bucket"], "acl", grants)

    @operation("GetObjectAcl")
    def get_object_acl(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        me = owner(ctx.account)
        return {"Owner": me, "Grants": acl.stored(obj.get("acl"), me)}

    @operation("PutObjectAcl")
    def put_object_acl(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        me = owner(ctx.account)
        grants = _required(acl.requested(params, me))
        acl.check_writable(grants, me, row["configs"])
        self.s3.set_object_acl(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), grants, ctx)
        return {}

    def _with_acl(self, ctx: RequestContext, params: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
        """An object write's fields with the grants its ACL headers ask for (checked against the bucket)."""
        me = owner(ctx.account)
        grants = acl.requested(params, me)
        if grants is not None:
            acl.check_writable(grants, me, self.s3.bucket(ctx.account, params["Bucket"])["configs"])
            fields["Grants"] = grants
        return fields

    def _put_config(self, ctx: RequestContext, params: dict[str, Any], suffix: str) -> None:
        name, member, _, _ = CONFIGS[suffix]
        value = params.get(member)
        if name == "policy":
            try:
                doc = json.loads(value or "")
            except ValueError:
                raise ServiceError("MalformedPolicy", "Policies must be valid JSON and the first byte must be '{'",
                                   400) from None
            if not isinstance(doc, dict) or "Statement" not in doc:
                raise ServiceError("MalformedPolicy", "Missing required field Statement", 400)
        if name == "tagging":
            tags = (value or {}).get("TagSet", [])
            keys = [t.get("Key") for t in tags]
            if len(set(keys)) != len(keys):
                raise errors.invalid_argument("Cannot provide multiple Tags with the same key")
        if name == "notification":
            self._put_notification(ctx, params, value or {})
            return
        self.s3.set_config(ctx.account, params["Bucket"], name, value if value is not None else {})

    def _put_notification(self, ctx: RequestContext, params: dict[str, Any], config: dict[str, Any]) -> None:
        row = self.s3.bucket(ctx.account, params["Bucket"])
        check_shape(config)
        if not params.get("SkipDestinationValidation"):
            self.notifier.check_destinations(row, config)
        self.s3.set_config(ctx.account, params["Bucket"], "notification", config)
        self.notifier.configured(row, config, ctx.request_id)

    def _get_config(self, ctx: RequestContext, params: dict[str, Any], suffix: str) -> dict[str, Any]:
        name, _, out_member, absent = CONFIGS[suffix]
        value = self.s3.config(ctx.account, params["Bucket"], name)
        if value is None:
            if name == "encryption":
                value = _DEFAULT_ENCRYPTION
            elif absent is not None:
                raise absent(params["Bucket"])
            else:
                value = {}
        return {out_member: value} if out_member else dict(value)

    def _delete_config(self, ctx: RequestContext, params: dict[str, Any], suffix: str) -> None:
        suffix = "BucketLifecycleConfiguration" if suffix == "BucketLifecycle" else suffix
        self.s3.set_config(ctx.account, params["Bucket"], CONFIGS[suffix][0], None)

    # ------------------------------------------------------------------ objects
    @operation("PutObject")
    def put_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        length = params.get("ContentLength")
        if length is not None and length > 5 * 1024 ** 3:
            raise errors.entity_too_large(length, 5 * 1024 ** 3)
        obj = self.s3.put_object(ctx.account, params["Bucket"], params["Key"], params.get("Body", b""),
                                 self._with_acl(ctx, params, _fields(params)),
                                 content_md5=params.get("ContentMD5"), claimed=_claimed(params),
                                 algorithm=params.get("ChecksumAlgorithm"), if_match=params.get("IfMatch"),
                                 if_none_match=params.get("IfNoneMatch"), ctx=ctx)
        return {"ETag": quoted(obj["etag"]), **_checksum_out(obj["checksum"]), **_version_out(obj),
                "Size": obj["size"]}

    @operation("GetObject")
    def get_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj, out = self._head(ctx, params)
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
        for name in ("ResponseContentType", "ResponseContentDisposition", "ResponseContentEncoding",
                     "ResponseContentLanguage", "ResponseCacheControl", "ResponseExpires"):
            if params.get(name) is not None:
                out[name[len("Response"):]] = params[name]
        return out

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
                               "ETag": quoted(obj["etag"]), **_version_out(obj)}
        for name, value in obj["headers"].items():
            out[name] = stored_header(name, value)
        if obj["metadata"]:
            out["Metadata"] = obj["metadata"]
        if obj["tags"]:
            out["TagCount"] = len(obj["tags"])
        if obj["parts"]:
            out["PartsCount"] = len(obj["parts"])
        if params.get("ChecksumMode") == "ENABLED":
            out.update(_checksum_out(obj["checksum"]))
        if out.get("StorageClass") == "STANDARD":
            out.pop("StorageClass")
        return obj, out

    @operation("DeleteObject")
    def delete_object(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        out = self.s3.delete_object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"),
                                    params.get("IfMatch"), ctx)
        return out

    @operation("DeleteObjects")
    def delete_objects(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        bucket = params["Bucket"]
        self.s3.bucket(ctx.account, bucket)
        wanted = (params.get("Delete") or {}).get("Objects") or []
        if not wanted or len(wanted) > 1000:
            raise errors.malformed_xml()
        quiet = (params.get("Delete") or {}).get("Quiet", False)
        deleted, failed = [], []
        for item in wanted:
            key = item.get("Key", "")
            try:
                result = self.s3.delete_object(ctx.account, bucket, key, item.get("VersionId"), ctx=ctx)
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
                                       self._with_acl(ctx, params, _fields(params)), params, ctx)
        out: dict[str, Any] = {"CopyObjectResult": {"ETag": quoted(obj["etag"]), "LastModified": when(obj["modified"]),
                                                    **_checksum_out(obj["checksum"])}, **_version_out(obj)}
        if src["version_id"] != "null":
            out["CopySourceVersionId"] = src["version_id"]
        return out

    @operation("PutObjectTagging")
    def put_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        tags = {t["Key"]: t.get("Value", "") for t in (params.get("Tagging") or {}).get("TagSet", [])}
        if len(tags) > 10:
            raise ServiceError("BadRequest", "Object tags cannot be greater than 10", 400)
        version = self.s3.set_object_tags(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), tags,
                                          ctx=ctx)
        return {"VersionId": version} if version != "null" else {}

    @operation("GetObjectTagging")
    def get_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        return {"TagSet": [{"Key": k, "Value": v} for k, v in obj["tags"].items()], **_version_out(obj)}

    @operation("DeleteObjectTagging")
    def delete_object_tagging(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        version = self.s3.set_object_tags(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"), {},
                                          ctx=ctx)
        return {"VersionId": version} if version != "null" else {}

    @operation("GetObjectAttributes")
    def get_object_attributes(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        obj = self.s3.object(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        wanted = set(params.get("ObjectAttributes", []))
        out: dict[str, Any] = {"LastModified": when(obj["modified"]), **_version_out(obj)}
        if "ETag" in wanted:
            out["ETag"] = obj["etag"]
        if "ObjectSize" in wanted:
            out["ObjectSize"] = obj["size"]
        if "StorageClass" in wanted:
            out["StorageClass"] = obj["headers"].get("StorageClass", "STANDARD")
        if "Checksum" in wanted and obj["checksum"]:
            out["Checksum"] = _checksum_out(obj["checksum"])
        if "ObjectParts" in wanted and obj["parts"]:
            out["ObjectParts"] = {"TotalPartsCount": len(obj["parts"]), "PartNumberMarker": 0,
                                  "NextPartNumberMarker": obj["parts"][-1][0], "MaxParts": 1000, "IsTruncated": False,
                                  "Parts": [{"PartNumber": n, "Size": s} for n, s in obj["parts"]]}
        return out

    # ------------------------------------------------------------------ listing
    @operation("ListObjectsV2")
    def list_objects_v2(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = _max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        token = params.get("ContinuationToken")
        after = _untoken(token) if token else params.get("StartAfter", "")
        objects, prefixes, more, last = self.s3.list_objects(ctx.account, params["Bucket"], prefix, delimiter, after,
                                                             limit)
        encode = _encoder(params)
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
            out["NextContinuationToken"] = _token(last)
        if params.get("EncodingType"):
            out["EncodingType"] = params["EncodingType"]
        return out

    @operation("ListObjects")
    def list_objects(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = _max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        marker = params.get("Marker", "")
        objects, prefixes, more, last = self.s3.list_objects(ctx.account, params["Bucket"], prefix, delimiter, marker,
                                                             limit)
        encode = _encoder(params)
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
        limit = _max_keys(params)
        prefix, delimiter = params.get("Prefix", ""), params.get("Delimiter", "")
        key_marker, version_marker = params.get("KeyMarker", ""), params.get("VersionIdMarker")
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
        encode = _encoder(params)
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

    # ------------------------------------------------------------------ multipart uploads
    @operation("CreateMultipartUpload")
    def create_multipart_upload(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        upload_id = self.mp.create(ctx.account, params["Bucket"], params["Key"],
                                   self._with_acl(ctx, params, _fields(params)))
        out = {"Bucket": params["Bucket"], "Key": params["Key"], "UploadId": upload_id}
        if params.get("ChecksumAlgorithm"):
            out["ChecksumAlgorithm"] = params["ChecksumAlgorithm"]
            out["ChecksumType"] = params.get("ChecksumType", "COMPOSITE")
        return out

    @operation("UploadPart")
    def upload_part(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        part = self.mp.put_part(ctx.account, params["Bucket"], params["Key"], params["UploadId"],
                                params["PartNumber"], params.get("Body", b""), params.get("ContentMD5"),
                                _claimed(params), params.get("ChecksumAlgorithm"))
        return {"ETag": quoted(part["etag"]), **{f"Checksum{k}": v for k, v in part["checksum"].items()}}

    @operation("UploadPartCopy")
    def upload_part_copy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        part, src = self.mp.copy_part(ctx.account, params["Bucket"], params["Key"], params["UploadId"],
                                      params["PartNumber"], params["CopySource"], params.get("CopySourceRange"))
        out: dict[str, Any] = {"CopyPartResult": {"ETag": quoted(part["etag"]), "LastModified": when(part["modified"])}}
        if src["version_id"] != "null":
            out["CopySourceVersionId"] = src["version_id"]
        return out

    @operation("CompleteMultipartUpload")
    def complete_multipart_upload(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        listed = (params.get("MultipartUpload") or {}).get("Parts") or []
        obj = self.mp.complete(ctx.account, params["Bucket"], params["Key"], params["UploadId"], listed,
                               params.get("IfNoneMatch"), params.get("IfMatch"), ctx)
        return {"Location": f"/{params['Bucket']}/{params['Key']}", "Bucket": params["Bucket"], "Key": params["Key"],
                "ETag": quoted(obj["etag"]), **_checksum_out(obj["checksum"]), **_version_out(obj)}

    @operation("AbortMultipartUpload")
    def abort_multipart_upload(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.mp.abort(ctx.account, params["Bucket"], params["Key"], params["UploadId"])

    @operation("ListParts")
    def list_parts(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = params.get("MaxParts") or 1000
        after = params.get("PartNumberMarker") or 0
        upload, parts, more = self.mp.parts(ctx.account, params["Bucket"], params["Key"], params["UploadId"],
                                            int(after), limit)
        out: dict[str, Any] = {
            "Bucket": params["Bucket"], "Key": params["Key"], "UploadId": params["UploadId"],
            "PartNumberMarker": int(after), "MaxParts": limit, "IsTruncated": more,
            "Parts": [{"PartNumber": p["number"], "LastModified": when(p["modified"]), "ETag": quoted(p["etag"]),
                       "Size": p["size"], **{f"Checksum{k}": v for k, v in p["checksum"].items()}} for p in parts]
            or None,
            "Initiator": owner(ctx.account), "Owner": owner(ctx.account), "StorageClass": "STANDARD"}
        if parts:
            out["NextPartNumberMarker"] = parts[-1]["number"]
        if upload["fields"].get("ChecksumAlgorithm"):
            out["ChecksumAlgorithm"] = upload["fields"]["ChecksumAlgorithm"]
        return out

    @operation("ListMultipartUploads")
    def list_multipart_uploads(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        limit = params.get("MaxUploads") or 1000
        prefix = params.get("Prefix", "")
        rows, more = self.mp.uploads(ctx.account, params["Bucket"], prefix, params.get("KeyMarker", ""), limit)
        encode = _encoder(params)
        out: dict[str, Any] = {
            "Bucket": params["Bucket"], "KeyMarker": encode(params.get("KeyMarker", "")),
            "UploadIdMarker": params.get("UploadIdMarker", ""), "Prefix": encode(prefix), "MaxUploads": limit,
            "IsTruncated": more,
            "Uploads": [{"UploadId": r["upload_id"], "Key": encode(r["key"]), "Initiated": when(r["initiated"]),
                         "StorageClass": "STANDARD", "Owner": owner(ctx.account), "Initiator": owner(ctx.account)}
                        for r in rows] or None}
        if more and rows:
            out["NextKeyMarker"] = encode(rows[-1]["key"])
            out["NextUploadIdMarker"] = rows[-1]["upload_id"]
        return out


def _install_configs() -> None:
    """PutX / GetX / DeleteX handlers for the bucket sub-resources that are only stored."""
    for suffix in CONFIGS:
        def put(self: S3Api, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> None:
            self._put_config(ctx, params, _s)

        def get(self: S3Api, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> dict[str, Any]:
            return self._get_config(ctx, params, _s)

        setattr(S3Api, f"put_{suffix}", operation(f"Put{suffix}")(put))
        setattr(S3Api, f"get_{suffix}", operation(f"Get{suffix}")(get))
    for suffix in _DELETABLE:
        def delete(self: S3Api, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> None:
            self._delete_config(ctx, params, _s)

        setattr(S3Api, f"delete_{suffix}", operation(f"Delete{suffix}")(delete))


_install_configs()


BUCKET_CANNED = ("private", "public-read", "public-read-write", "authenticated-read", "log-delivery-write")


def _required(grants: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if grants is None:  # neither a canned ACL, grant headers nor a body
        raise ServiceError("MissingSecurityHeader", "Your request was missing a required header", 400,
                           extra={"MissingHeaderName": "x-amz-acl"})
    return grants


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


def url_encode(text: str) -> str:
    """A key or prefix as S3 writes it under `encoding-type=url` (botocore decodes it back)."""
    return quote(text, safe="/~")


def _encoder(params: dict[str, Any]) -> Callable[[str], str]:
    if params.get("EncodingType") == "url":
        return url_encode
    if params.get("EncodingType") is not None:
        raise errors.invalid_argument("Invalid Encoding Method specified in Request", "encoding-type",
                                      params["EncodingType"])
    return lambda text: text


def _max_keys(params: dict[str, Any]) -> int:
    value = params.get("MaxKeys")
    if value is None:
        return 1000
    if value < 0:
        raise errors.invalid_argument("Provided max-keys not an integer or within integer range", "max-keys",
                                      str(value))
    return min(value, 1000)


def _token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def _untoken(token: str | None) -> str:
    if not token:
        return ""
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (ValueError, UnicodeDecodeError):
        raise errors.invalid_argument("The continuation token provided is incorrect", "continuation-token",
                                      token) from None


def _part_bounds(obj: dict[str, Any], number: int) -> tuple[int, int]:
    offset = 0
    for n, size in obj["parts"]:
        if n == number:
            return offset, offset + size
        offset += size
    raise errors.invalid_range(obj["size"], f"partNumber={number}")


def resolve_resources(ctx: RequestContext, params: dict[str, Any]) -> list[str]:
    """The ARNs a call acts on, for IAM: the bucket, or the object."""
    bucket = params.get("Bucket")
    if not bucket:
        return ["*"]
    key = params.get("Key")
    return [f"arn:aws:s3:::{bucket}/{key}" if key else f"arn:aws:s3:::{bucket}"]
