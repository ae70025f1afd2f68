"""S3's multipart upload operations (the rules are in multipart.py)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.s3.api_common import ApiBase, checksum_out, claimed_checksums, encoder, fields_of, version_out
from onceflow.s3.conditions import when
from onceflow.s3.service import owner, quoted


class MultipartApi(ApiBase):
    @operation("CreateMultipartUpload")
    def create_multipart_upload(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        upload_id = self.mp.create(ctx.account, params["Bucket"], params["Key"],
                                   self._with_acl(ctx, params, fields_of(params)))
        out = {"Bucket": params["Bucket"], "Key": params["Key"], "UploadId": upload_id}
        if params.get("ChecksumAlgorithm"):
            out["ChecksumAlgorithm"] = params["ChecksumAlgorithm"]
            out["ChecksumType"] = params.get("ChecksumType", "COMPOSITE")
        return out

    @operation("UploadPart")
    def upload_part(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        part = self.mp.put_part(ctx.account, params["Bucket"], params["Key"], params["UploadId"],
                                params["PartNumber"], params.get("Body", b""), params.get("ContentMD5"),
                                claimed_checksums(params), params.get("ChecksumAlgorithm"))
        return {"ETag": quoted(part["etag"]), **{f"Checksum{k}": v for k, v in part["checksum"].items()}}

    @operation("UploadPartCopy")
    def upload_part_copy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        part, src = self.mp.copy_part(ctx.account, params["Bucket"], params["Key"], params["UploadId"],
                                      params["PartNumber"], params["CopySource"], params.get("CopySourceRange"))
        out: dict[str, Any] = {"CopyPartResult": {"ETag": quoted(part["etag"]), "LastModified": when(part["modified"]),
                                                  **{f"Checksum{k}": v for k, v in part["checksum"].items()}}}
        if src["version_id"] != "null":
            out["CopySourceVersionId"] = src["version_id"]
        return out

    @operation("CompleteMultipartUpload")
    def complete_multipart_upload(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        listed = (params.get("MultipartUpload") or {}).get("Parts") or []
        obj = self.mp.complete(ctx.account, params["Bucket"], params["Key"], params["UploadId"], listed,
                               params.get("IfNoneMatch"), params.get("IfMatch"), ctx)
        return {"Location": f"/{params['Bucket']}/{params['Key']}", "Bucket": params["Bucket"], "Key": params["Key"],
                "ETag": quoted(obj["etag"]), **checksum_out(obj["checksum"]), **version_out(obj)}

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
        encode = encoder(params)
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
