"""S3's bucket operations: create, delete, list, location, versioning, ACLs, and the sub-resources
that are only stored (CORS, lifecycle, notifications, ownership controls, public access block,
encryption, policy, tagging, website...), which share one table of (stored name, input member,
output member, error when absent)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.registry import operation
from onceflow.s3 import acl, errors, lifecycle, lock, tagging
from onceflow.s3.api_common import BUCKET_CANNED, ApiBase, make_token, read_token, required_grants
from onceflow.s3.conditions import when
from onceflow.s3.notify import check_shape
from onceflow.s3.service import owner

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
# What a bucket that never set them answers (AWS encrypts every bucket with SSE-S3 since 2023).
_DEFAULTS: dict[str, dict[str, Any]] = {
    "encryption": {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"},
                              "BucketKeyEnabled": False}]},
    "request_payment": {"Payer": "BucketOwner"}}
_DELETABLE = ("BucketTagging", "BucketCors", "BucketLifecycle", "BucketOwnershipControls", "PublicAccessBlock",
              "BucketEncryption", "BucketPolicy", "BucketWebsite")



class BucketApi(ApiBase):
    @operation("CreateBucket")
    def create_bucket(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        config = params.get("CreateBucketConfiguration") or {}
        # A new bucket's ownership controls are stored (GetBucketOwnershipControls answers them):
        # BucketOwnerEnforced unless asked otherwise, as on AWS since April 2023.
        configs: dict[str, Any] = {"ownership": {"Rules": [
            {"ObjectOwnership": params.get("ObjectOwnership") or "BucketOwnerEnforced"}]}}
        grants = acl.requested(params, owner(ctx.account), BUCKET_CANNED)
        if grants is not None:
            if acl.ownership(configs) == "BucketOwnerEnforced" and not acl.owner_only(grants, owner(ctx.account)):
                raise ServiceError("InvalidBucketAclWithObjectOwnership", "Bucket cannot have ACLs set with "
                                   "ObjectOwnership's BucketOwnerEnforced setting", 400)
            configs["acl"] = grants
        versioning = ""
        if params.get("ObjectLockEnabledForBucket"):  # Object Lock turns versioning on, for good
            configs[lock.CONFIG], versioning = {"ObjectLockEnabled": "Enabled"}, "Enabled"
        location = self.s3.create_bucket(ctx.account, ctx.region, params["Bucket"], config.get("LocationConstraint"),
                                         configs, versioning)
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
        limit = params.get("MaxBuckets")
        if limit is None:
            limit = 10000
        elif not 1 <= limit <= 10000:  # 0 too: `or 10000` used to serve it a full page
            raise errors.invalid_argument("Argument max-buckets must be an integer between 1 and 10000",
                                          "max-buckets", str(limit))
        after = read_token(params.get("ContinuationToken"))
        rows, more = self.s3.list_buckets(ctx.account, params.get("Prefix", ""), after, limit)
        out: dict[str, Any] = {
            "Buckets": [{"Name": r["name"], "CreationDate": when(r["created"]), "BucketRegion": r["region"]}
                        for r in rows],
            "Owner": owner(ctx.account)}
        if more:
            out["ContinuationToken"] = make_token(rows[-1]["name"])
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
        grants = required_grants(acl.requested(params, me, BUCKET_CANNED))
        acl.check_writable(grants, me, row["configs"])
        self.s3.set_config(ctx.account, params["Bucket"], "acl", grants)

    @operation("GetBucketPolicyStatus")
    def get_bucket_policy_status(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        text = self.s3.config(ctx.account, params["Bucket"], "policy")
        if text is None:
            raise CONFIGS["BucketPolicy"][3](params["Bucket"])  # type: ignore[misc]
        statements = json.loads(text).get("Statement") or []
        if isinstance(statements, dict):
            statements = [statements]
        # Public, as S3 judges it: an Allow to everyone ("*") that no condition narrows.
        public = any(s.get("Effect") == "Allow" and not s.get("Condition")
                     and s.get("Principal") in ("*", {"AWS": "*"}, {"AWS": ["*"]}) for s in statements)
        return {"PolicyStatus": {"IsPublic": public}}

    def _put_config(self, ctx: RequestContext, params: dict[str, Any], suffix: str) -> None:
        name, member, _, _ = CONFIGS[suffix]
        value = params.get(member)
        if name == "policy":
            try:
                doc = json.loads(value or "")
            except (ValueError, RecursionError):  # nested past Python's parser: not a policy either
                raise ServiceError("MalformedPolicy", "Policies must be valid JSON and the first byte must be '{'",
                                   400) from None
            if not isinstance(doc, dict) or "Statement" not in doc:
                raise ServiceError("MalformedPolicy", "Missing required field Statement", 400)
        if name == "lifecycle":
            value = lifecycle.checked(value or {})
        if name == "website":
            _check_website(value or {})
        if name == "tagging":
            tagging.checked((value or {}).get("TagSet", []), "bucket")
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
            if name in _DEFAULTS:
                value = _DEFAULTS[name]
            elif absent is not None:
                raise absent(params["Bucket"])
            else:
                value = {}
        elif name == "lifecycle":
            value = lifecycle.shown(value)
        return {out_member: value} if out_member else dict(value)

    def _delete_config(self, ctx: RequestContext, params: dict[str, Any], suffix: str) -> None:
        suffix = "BucketLifecycleConfiguration" if suffix == "BucketLifecycle" else suffix
        self.s3.set_config(ctx.account, params["Bucket"], CONFIGS[suffix][0], None)


def _check_website(config: dict[str, Any]) -> None:
    """PutBucketWebsite: an index document, or a redirect of every request and nothing else."""
    if config.get("RedirectAllRequestsTo"):
        if any(config.get(k) for k in ("IndexDocument", "ErrorDocument", "RoutingRules")):
            raise errors.invalid_argument("RedirectAllRequestsTo cannot be provided in conjunction with other "
                                          "Routing Rules.", "RedirectAllRequestsTo", "not null")
        return
    suffix = (config.get("IndexDocument") or {}).get("Suffix")
    if suffix is None:
        raise errors.invalid_argument("A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo "
                                      "is empty", "IndexDocument", "null")
    if not suffix or "/" in suffix:
        raise errors.invalid_argument("The IndexDocument Suffix is not well formed", "IndexDocument", suffix)


def _install_configs() -> None:
    """PutX / GetX / DeleteX handlers for the bucket sub-resources that are only stored."""
    for suffix in CONFIGS:
        def put(self: BucketApi, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> None:
            self._put_config(ctx, params, _s)

        def get(self: BucketApi, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> dict[str, Any]:
            return self._get_config(ctx, params, _s)

        setattr(BucketApi, f"put_{suffix}", operation(f"Put{suffix}")(put))
        setattr(BucketApi, f"get_{suffix}", operation(f"Get{suffix}")(get))
    for suffix in _DELETABLE:
        def delete(self: BucketApi, ctx: RequestContext, params: dict[str, Any], _s: str = suffix) -> None:
            self._delete_config(ctx, params, _s)

        setattr(BucketApi, f"delete_{suffix}", operation(f"Delete{suffix}")(delete))


_install_configs()
