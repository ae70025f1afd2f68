"""S3's Object Lock operations: a bucket's lock configuration, a version's retention and legal hold
(the rules are in lock.py)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.s3 import lock
from onceflow.s3.api_common import ApiBase
from onceflow.s3.service import stored_header


class LockApi(ApiBase):
    @operation("PutObjectLockConfiguration")
    def put_object_lock_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.s3.set_lock_config(ctx.account, params["Bucket"], params.get("ObjectLockConfiguration") or {})
        return {}

    @operation("GetObjectLockConfiguration")
    def get_object_lock_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        config = self.s3.config(ctx.account, params["Bucket"], lock.CONFIG)
        if not config:
            raise lock.no_bucket_lock()
        return {"ObjectLockConfiguration": config}

    @operation("PutObjectRetention")
    def put_object_retention(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.s3.set_retention(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"),
                              params.get("Retention") or {}, bool(params.get("BypassGovernanceRetention")))
        return {}

    @operation("GetObjectRetention")
    def get_object_retention(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        headers = self.s3.lock_of(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        if not headers.get("ObjectLockMode"):
            raise lock.no_object_lock()
        return {"Retention": {"Mode": headers["ObjectLockMode"], "RetainUntilDate": stored_header(
            "ObjectLockRetainUntilDate", headers["ObjectLockRetainUntilDate"])}}

    @operation("PutObjectLegalHold")
    def put_object_legal_hold(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.s3.set_legal_hold(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"),
                               (params.get("LegalHold") or {}).get("Status"))
        return {}

    @operation("GetObjectLegalHold")
    def get_object_legal_hold(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        headers = self.s3.lock_of(ctx.account, params["Bucket"], params["Key"], params.get("VersionId"))
        if not headers.get("ObjectLockLegalHoldStatus"):
            raise lock.no_object_lock()
        return {"LegalHold": {"Status": headers["ObjectLockLegalHoldStatus"]}}
