"""S3's operations: parsed requests (the botocore input shapes) turned into service calls and the
results into output shapes, one module per concept (bucket_api, object_api, listing_api,
multipart_api, lock_api), gathered here into the one object the registry serves."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.s3.bucket_api import BucketApi
from onceflow.s3.listing_api import ListingApi
from onceflow.s3.lock_api import LockApi
from onceflow.s3.multipart_api import MultipartApi
from onceflow.s3.object_api import ObjectApi


class S3Api(BucketApi, ObjectApi, LockApi, ListingApi, MultipartApi):
    """Every S3 operation (each base adds its own; they share ApiBase's service objects)."""


def resolve_resources(ctx: RequestContext, params: dict[str, Any]) -> list[str]:
    """The ARNs a call acts on, for IAM: the bucket, or the object."""
    bucket = params.get("Bucket")
    if not bucket:
        return ["*"]
    key = params.get("Key")
    arn = f"arn:{ctx.partition}:s3:::{bucket}"
    return [f"{arn}/{key}" if key else arn]
