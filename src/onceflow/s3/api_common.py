"""What S3's operations share: the objects they call (ApiBase), and the request members and
output shapes more than one of them reads or writes (checksums, versions, list encodings, tokens)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.s3 import acl, errors, tagging
from onceflow.s3.multipart import Multipart
from onceflow.s3.notify import Notifier
from onceflow.s3.service import SYSTEM_HEADERS, S3Service, owner

BUCKET_CANNED = ("private", "public-read", "public-read-write", "authenticated-read", "log-delivery-write")


class ApiBase:
    def __init__(self, service: S3Service, multipart: Multipart, notifier: Notifier) -> None:
        self.s3 = service
        self.mp = multipart
        self.notifier = notifier

    def _with_acl(self, ctx: RequestContext, params: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
        """An object write's fields with the grants its ACL headers ask for (checked against the bucket)."""
        me = owner(ctx.account)
        grants = acl.requested(params, me)
        if grants is not None:
            acl.check_writable(grants, me, self.s3.bucket(ctx.account, params["Bucket"])["configs"])
            fields["Grants"] = grants
        return fields


def claimed_checksums(params: dict[str, Any]) -> dict[str, str]:
    return {a: params[f"Checksum{a}"] for a in ("CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256")
            if params.get(f"Checksum{a}")}


def fields_of(params: dict[str, Any]) -> dict[str, Any]:
    fields = {k: params[k] for k in SYSTEM_HEADERS if params.get(k) is not None}
    if params.get("Metadata"):
        fields["Metadata"] = {k.lower(): v for k, v in params["Metadata"].items()}
    if params.get("Tagging"):
        fields["Tags"] = tagging.from_header(params["Tagging"])
    for k in ("ChecksumAlgorithm", "ChecksumType"):
        if params.get(k):
            fields[k] = params[k]
    return fields


def checksum_out(record: dict[str, Any]) -> dict[str, Any]:
    out = {f"Checksum{k}": v for k, v in record.items() if k != "type"}
    if out:
        out["ChecksumType"] = record.get("type", "FULL_OBJECT")
    return out


def version_out(obj: dict[str, Any]) -> dict[str, Any]:
    return {"VersionId": obj["version_id"]} if obj["version_id"] != "null" else {}



def required_grants(grants: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if grants is None:  # neither a canned ACL, grant headers nor a body
        raise ServiceError("MissingSecurityHeader", "Your request was missing a required header", 400,
                           extra={"MissingHeaderName": "x-amz-acl"})
    return grants


def url_encode(text: str) -> str:
    """A key or prefix as S3 writes it under `encoding-type=url` (botocore decodes it back)."""
    return quote(text, safe="/~")


def encoder(params: dict[str, Any]) -> Callable[[str], str]:
    if params.get("EncodingType") == "url":
        return url_encode
    if params.get("EncodingType") is not None:
        raise errors.invalid_argument("Invalid Encoding Method specified in Request", "encoding-type",
                                      params["EncodingType"])
    return lambda text: text


def max_keys(params: dict[str, Any]) -> int:
    value = params.get("MaxKeys")
    if value is None:
        return 1000
    if value < 0:
        raise errors.invalid_argument("Provided max-keys not an integer or within integer range", "max-keys",
                                      str(value))
    return min(value, 1000)


def make_token(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


def read_token(token: str | None) -> str:
    if not token:
        return ""
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (ValueError, UnicodeDecodeError):
        raise errors.invalid_argument("The continuation token provided is incorrect", "continuation-token",
                                      token) from None
