"""Account-wide IAM settings: the account alias (at most one), the password policy and the version of
the session tokens STS's global endpoint issues."""

from __future__ import annotations

import uuid
from typing import Any

from onceflow.iam import errors
from onceflow.iam.store import IamStore, Row

ALIAS = "account-alias"
PASSWORD = "password-policy"
STS_PREFERENCES = "sts-preferences"
OUTBOUND = "outbound-federation"  # {"enabled": bool, "issuer": url}: what STS's GetWebIdentityToken would read
# GetAccountSummary's GlobalEndpointTokenVersion for each SetSecurityTokenServicePreferences value;
# an account that never set one has version 1 tokens (AWS's reference for the operation).
TOKEN_VERSIONS = {"v1Token": 1, "v2Token": 2}
# UpdateAccountPasswordPolicy: a member left out takes its documented default.
PASSWORD_DEFAULTS: dict[str, Any] = {
    "MinimumPasswordLength": 6,
    "RequireSymbols": False,
    "RequireNumbers": False,
    "RequireUppercaseCharacters": False,
    "RequireLowercaseCharacters": False,
    "AllowUsersToChangePassword": False,
}  # HardExpiry is answered only when it was given (AWS's answer to an update with no parameters)


class AccountSettings:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def aliases(self, account: str) -> list[str]:
        return [a["alias"] for a in self.store.objs(account, ALIAS)]

    def create_alias(self, account: str, alias: str) -> None:
        with self.store.writing() as conn:
            current = self.aliases(account)
            if alias in current:
                return  # the account already has it
            if current:
                raise errors.quota_exceeded("AccountAliasesPerAccount", 1)
            self.store.put_obj(conn, account, ALIAS, alias, {"alias": alias})

    def delete_alias(self, account: str, alias: str) -> None:
        with self.store.writing() as conn:
            if not self.store.delete_obj(conn, account, ALIAS, alias):
                raise errors.account_alias_not_found(alias)

    def password_policy(self, account: str) -> Row:
        policy = self.store.obj(account, PASSWORD, "")
        if policy is None:
            raise errors.password_policy_not_found(account)
        return policy

    def update_password_policy(self, account: str, params: dict[str, Any]) -> None:
        policy = {**PASSWORD_DEFAULTS, **params}
        max_age = policy.get("MaxPasswordAge", 0)
        policy["ExpirePasswords"] = max_age > 0
        if not max_age:
            policy.pop("MaxPasswordAge", None)
        if not policy.get("PasswordReusePrevention"):
            policy.pop("PasswordReusePrevention", None)
        with self.store.writing() as conn:
            self.store.put_obj(conn, account, PASSWORD, "", policy)

    def delete_password_policy(self, account: str) -> None:
        with self.store.writing() as conn:
            if not self.store.delete_obj(conn, account, PASSWORD, ""):
                raise errors.no_such_entity("The account policy with name PasswordPolicy cannot be found.")

    def set_token_version(self, account: str, version: str) -> None:
        with self.store.writing() as conn:
            self.store.put_obj(conn, account, STS_PREFERENCES, "", {"GlobalEndpointTokenVersion": version})


def token_version(store: IamStore, account: str) -> int:
    """GetAccountSummary's GlobalEndpointTokenVersion."""
    preferences = store.obj(account, STS_PREFERENCES, "")
    return TOKEN_VERSIONS[preferences["GlobalEndpointTokenVersion"]] if preferences else 1


class OutboundFederation:
    """Outbound web identity federation (Enable/Disable/GetOutboundWebIdentityFederationInfo): whether
    the account's principals may get JWTs from STS's GetWebIdentityToken, and the account's issuer URL.
    AWS's reference: enabling generates a unique issuer URL; enabling twice is FeatureEnabled (409),
    disabling twice FeatureDisabled (404). Kept here: the issuer survives a disable, so re-enabling
    answers the same one, and GetOutboundWebIdentityFederationInfo is FeatureDisabled only for an
    account that never enabled it (UNCONFIRMED both; the issuer's host form is UNCONFIRMED)."""

    def __init__(self, store: IamStore) -> None:
        self.store = store

    def enable(self, account: str) -> str:
        with self.store.writing() as conn:
            state = self.store.obj(account, OUTBOUND, "") or {}
            if state.get("enabled"):
                raise errors.outbound_federation_enabled()
            issuer = state.get("issuer") or f"https://{uuid.uuid4()}.tokens.sts.global.api.aws"
            self.store.put_obj(conn, account, OUTBOUND, "", {"enabled": True, "issuer": issuer})
        return str(issuer)

    def disable(self, account: str) -> None:
        with self.store.writing() as conn:
            state = self.store.obj(account, OUTBOUND, "")
            if not state or not state["enabled"]:
                raise errors.outbound_federation_disabled()
            self.store.put_obj(conn, account, OUTBOUND, "", {**state, "enabled": False})

    def info(self, account: str) -> Row:
        state = self.store.obj(account, OUTBOUND, "")
        if state is None:
            raise errors.outbound_federation_disabled()
        return state
