"""STS operations (query protocol): a thin layer over StsService."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sts import errors
from onceflow.sts.federation import Federation
from onceflow.sts.service import StsService


class StsApi:
    def __init__(self, service: StsService, federation: Federation) -> None:
        self.service = service
        self.federation = federation

    @operation("GetCallerIdentity", inline=True)  # the principal is already resolved: no I/O
    def get_caller_identity(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.caller_identity(ctx.principal, partition(ctx.region))

    @operation("AssumeRole")
    def assume_role(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.assume_role(ctx.principal, params)

    @operation("GetSessionToken")
    def get_session_token(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.get_session_token(ctx.principal, params)

    @operation("AssumeRoleWithWebIdentity")
    def assume_role_with_web_identity(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.federation.assume_role_with_web_identity(params)

    @operation("AssumeRoleWithSAML")
    def assume_role_with_saml(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.federation.assume_role_with_saml(params)

    @operation("GetFederationToken")
    def get_federation_token(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.federation.get_federation_token(ctx.principal, params, partition(ctx.region))

    @operation("GetAccessKeyInfo")
    def get_access_key_info(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return {"Account": self.service.access_key_account(params["AccessKeyId"], ctx.account)}

    @operation("DecodeAuthorizationMessage")
    def decode_authorization_message(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        # onceflow's denials are plain text (as IAM's, Lambda's and DynamoDB's are on AWS); no
        # service here issues encoded messages, so none can be decoded.
        raise errors.invalid_authorization_message()
