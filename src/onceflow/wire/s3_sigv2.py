"""S3's query-string authentication of signature version 2 (`?AWSAccessKeyId=&Signature=&Expires=`):
what boto3's `generate_presigned_url` makes for S3 unless told `signature_version="s3v4"`.

The string to sign is the method, Content-MD5, Content-Type, Expires, the x-amz-* headers (from
the headers and, as the presigner moves them there, the query string) and the resource: the path
(with the bucket for virtual-hosted requests) plus the sub-resources of the query string. The
signature is base64(HMAC-SHA1(secret, that string)).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from urllib.parse import unquote

# The query parameters that are part of the signed resource (AWS's list, as botocore keeps it).
SUBRESOURCES = frozenset((
    "acl", "cors", "delete", "lifecycle", "location", "logging", "notification", "partNumber", "policy",
    "requestPayment", "torrent", "versioning", "versionId", "versions", "website", "uploads", "uploadId",
    "response-content-type", "response-content-language", "response-expires", "response-cache-control",
    "response-content-disposition", "response-content-encoding", "tagging", "restore", "storageClass",
    "replication", "analytics", "metrics", "inventory", "select", "select-type", "object-lock",
))


@dataclass(frozen=True)
class QuerySignature:
    access_key: str
    signature: str
    expires: int
    session_token: str | None


def read(query: dict[str, list[str]]) -> QuerySignature | None:
    if "AWSAccessKeyId" not in query or "Signature" not in query:
        return None
    try:
        expires = int(query.get("Expires", ["0"])[0])
    except ValueError:
        expires = 0
    token = query.get("x-amz-security-token", [None])[0]
    return QuerySignature(query["AWSAccessKeyId"][0], query["Signature"][0], expires, token)


def expired(signed: QuerySignature, now: float | None = None) -> bool:
    return (now if now is not None else time.time()) > signed.expires


def string_to_sign(method: str, raw_path: str, host_bucket: str | None, query_string: str,
                   headers: dict[str, str], expires: int) -> str:
    amz: dict[str, str] = {k: v.strip() for k, v in headers.items() if k.startswith("x-amz-")}
    resources = []
    for pair in query_string.split("&"):
        name, eq, value = pair.partition("=")
        name = unquote(name)
        if name.lower().startswith("x-amz-"):
            amz.setdefault(name.lower(), unquote(value))
        elif name in SUBRESOURCES:
            resources.append((name, f"{name}={unquote(value)}" if eq else name))
    resource = (f"/{host_bucket}" + raw_path) if host_bucket else raw_path
    if resources:
        resource += "?" + "&".join(text for _, text in sorted(resources))
    lines = [method.upper(), headers.get("content-md5", ""), headers.get("content-type", ""), str(expires)]
    lines += [f"{k}:{amz[k]}" for k in sorted(amz)]
    return "\n".join([*lines, resource])


def valid(secret: str, signed: QuerySignature, text: str) -> bool:
    expected = base64.b64encode(hmac.digest(secret.encode(), text.encode(), hashlib.sha1)).decode()
    return hmac.compare_digest(expected.encode(), signed.signature.encode())
