"""STS operations (query protocol): a thin layer over StsService."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sts.service import StsService


class StsApi:
    def __init__(self, service: StsService) -> None:
        self.service = service

    @operation("GetCallerIdentity", inline=True)  # the principal is already resolved: no I/O
    def get_caller_identity(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.caller_identity(ctx.principal)

    @operation("AssumeRole")
    def assume_role(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.assume_role(ctx.principal, params)

    @operation("GetSessionToken")
    def get_session_token(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.get_session_token(ctx.principal, params)
