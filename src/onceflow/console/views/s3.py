"""S3: the account's buckets, and a bucket's objects one folder (common prefix) at a time."""

from __future__ import annotations

from typing import Any

from onceflow.console.app import Response, View

OBJECTS_PAGE = 200


def buckets(v: View) -> Response:
    found = v.optional(lambda: v.aws.call("s3", "ListBuckets", {}).get("Buckets", []), [])
    return v.page("s3_buckets.html", title="S3 buckets", buckets=found)


def bucket(v: View) -> Response:
    name, prefix = v.match["name"], v.arg("prefix")
    params: dict[str, Any] = {"Bucket": name, "Prefix": prefix, "Delimiter": "/", "MaxKeys": OBJECTS_PAGE}
    if v.arg("next"):
        params["ContinuationToken"] = v.arg("next")
    listing = v.aws.call("s3", "ListObjectsV2", params)
    parent = prefix[:-1].rpartition("/")[0] + "/" if prefix.count("/") > 1 else ""
    return v.page("s3_bucket.html", title=name, bucket_name=name, prefix=prefix, parent=parent,
                  folders=[p["Prefix"] for p in listing.get("CommonPrefixes") or []],
                  objects=listing.get("Contents") or [], next_token=listing.get("NextContinuationToken", ""))
