"""Account alias, password policy and STS preference operations (query protocol)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.iam.account import AccountSettings, OutboundFederation
from onceflow.iam.api import Out, paged
from onceflow.iam.common import page
from onceflow.registry import operation


class AccountApi:
    def __init__(self, settings: AccountSettings) -> None:
        self.settings = settings

    @operation("CreateAccountAlias")
    def create_account_alias(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.settings.create_alias(ctx.account, params["AccountAlias"])

    @operation("DeleteAccountAlias")
    def delete_account_alias(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.settings.delete_alias(ctx.account, params["AccountAlias"])

    @operation("ListAccountAliases")
    def list_account_aliases(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        items, marker = page(self.settings.aliases(ctx.account), params.get("Marker"), params.get("MaxItems"),
                             lambda a: a)
        return paged("AccountAliases", items, marker)

    @operation("UpdateAccountPasswordPolicy")
    def update_account_password_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.settings.update_password_policy(ctx.account, params)

    @operation("GetAccountPasswordPolicy")
    def get_account_password_policy(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"PasswordPolicy": self.settings.password_policy(ctx.account)}

    @operation("DeleteAccountPasswordPolicy")
    def delete_account_password_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.settings.delete_password_policy(ctx.account)

    @operation("SetSecurityTokenServicePreferences")
    def set_security_token_service_preferences(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        # Recorded only: every region here takes either version (no Region is opt-in).
        self.settings.set_token_version(ctx.account, params["GlobalEndpointTokenVersion"])


class OutboundFederationApi:
    def __init__(self, federation: OutboundFederation) -> None:
        self.federation = federation

    @operation("EnableOutboundWebIdentityFederation")
    def enable_outbound_web_identity_federation(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"IssuerIdentifier": self.federation.enable(ctx.account)}

    @operation("DisableOutboundWebIdentityFederation")
    def disable_outbound_web_identity_federation(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.federation.disable(ctx.account)

    @operation("GetOutboundWebIdentityFederationInfo")
    def get_outbound_web_identity_federation_info(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        state = self.federation.info(ctx.account)
        return {"IssuerIdentifier": state["issuer"], "JwtVendingEnabled": state["enabled"]}
