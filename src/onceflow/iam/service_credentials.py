"""Service-specific credentials: a user name and password IAM generates for one service
(CodeCommit's Git credentials, Amazon Keyspaces), or a long-term API key (Amazon Bedrock,
CloudWatch Logs) that may expire. Kept whole as JSON in IAM's object table, keyed by id.

AWS (API_CreateServiceSpecificCredential and the ServiceSpecificCredential data type): at most two
per user and service; the generated user name is the user's name and the account id
("jane-at-123456789012"); the password is only answered at creation and reset; an API key has an
alias and a secret instead, and CredentialAgeDays (API keys only) gives it an ExpirationDate.
The id, password and error messages follow LocalStack's AWS-validated tests: an id like an access
key's with the prefix ACCA (21 characters), a 60-character password ending in "="; the API keys'
alias and secret formats are UNCONFIRMED.
"""

from __future__ import annotations

import base64
import secrets
import string
from datetime import UTC, datetime, timedelta
from typing import Any

from onceflow.context import RequestContext
from onceflow.iam import errors
from onceflow.iam.api import Out, _date, paged
from onceflow.iam.common import new_id, now, page
from onceflow.iam.store import IamStore, Row
from onceflow.iam.user_credentials import SERVICE_CREDENTIAL as KIND
from onceflow.iam.user_credentials_api import _user
from onceflow.registry import operation

PER_USER_AND_SERVICE = 2
PASSWORD_SERVICES = frozenset({"codecommit.amazonaws.com", "cassandra.amazonaws.com"})
API_KEY_SERVICES = frozenset({"bedrock.amazonaws.com", "logs.amazonaws.com"})
_PASSWORD_CHARS = string.ascii_letters + string.digits + "+/"
META = ("UserName", "Status", "ServiceUserName", "ServiceCredentialAlias", "CreateDate", "ExpirationDate",
        "ServiceSpecificCredentialId", "ServiceName")
_DATES = ("CreateDate", "ExpirationDate")


def _password() -> str:
    return "".join(secrets.choice(_PASSWORD_CHARS) for _ in range(59)) + "="


def _supported(service: str) -> None:
    if service not in PASSWORD_SERVICES | API_KEY_SERVICES:
        raise errors.service_not_supported(service)


def status(credential: Row) -> str:
    """An API key past its expiration date is Expired, whatever it was set to."""
    expires = credential.get("ExpirationDate")
    if expires is not None and datetime.fromisoformat(expires) <= datetime.now(UTC):
        return "Expired"
    return str(credential["Status"])


class ServiceCredentials:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def _user(self, account: str, name: str) -> Row:
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    def _owned(self, account: str, user_key: str) -> list[Row]:
        return [c for c in self.store.objs(account, KIND) if c["user"] == user_key]

    def create(self, account: str, name: str, service: str, age_days: int | None) -> Row:
        user = self._user(account, name)
        _supported(service)
        if age_days is not None and service not in API_KEY_SERVICES:
            raise errors.credential_age_not_valid(service)
        credential = self._new(account, user, service, age_days)
        with self.store.writing() as conn:
            held = [c for c in self._owned(account, name.lower()) if c["ServiceName"] == service]
            if len(held) >= PER_USER_AND_SERVICE:
                raise errors.quota_exceeded("ServiceSpecificCredentialsPerUserPerService", PER_USER_AND_SERVICE)
            self.store.put_obj(conn, account, KIND, credential["ServiceSpecificCredentialId"], credential)
        return credential

    def _new(self, account: str, user: Row, service: str, age_days: int | None) -> Row:
        created = now()
        credential: Row = {"user": user["name"].lower(), "UserName": user["name"], "ServiceName": service,
                           "ServiceSpecificCredentialId": new_id("ACCA"), "Status": "Active", "CreateDate": created}
        public = f"{user['name']}-at-{account}"
        if service in API_KEY_SERVICES:
            credential["ServiceCredentialAlias"] = public
            key = f"{public}:{secrets.token_urlsafe(30)}"
            credential["secret"] = "ABSK" + base64.b64encode(key.encode()).decode()
            if age_days is not None:
                expires = datetime.fromisoformat(created) + timedelta(days=age_days)
                credential["ExpirationDate"] = expires.isoformat()
        else:
            credential["ServiceUserName"] = public
            credential["ServicePassword"] = _password()
        return credential

    def credential(self, account: str, name: str, credential_id: str) -> Row:
        self._user(account, name)
        found = self.store.obj(account, KIND, credential_id)
        if found is None or found["user"] != name.lower():
            raise errors.service_credential_not_found(credential_id)
        return found

    def listing(self, account: str, name: str | None, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        """One user's credentials (name), or every user's (name None: AllUsers), of ServiceName if given."""
        if name is not None:
            found = self._owned(account, self._user(account, name)["name"].lower())
        else:
            found = self.store.objs(account, KIND)
        service = params.get("ServiceName")
        if service is not None:
            _supported(service)
            found = [c for c in found if c["ServiceName"] == service]
        found.sort(key=lambda c: (c["user"], c["CreateDate"], c["ServiceSpecificCredentialId"]))
        return page(found, params.get("Marker"), params.get("MaxItems"), lambda c: c["ServiceSpecificCredentialId"])

    def update(self, account: str, name: str, credential_id: str, new_status: str) -> None:
        with self.store.writing() as conn:
            found = self.credential(account, name, credential_id)
            self.store.put_obj(conn, account, KIND, credential_id, {**found, "Status": new_status})

    def reset(self, account: str, name: str, credential_id: str) -> Row:
        """A new password (the user name and id stay); an API key has no password to reset (UNCONFIRMED
        that AWS answers it unchanged)."""
        with self.store.writing() as conn:
            found = self.credential(account, name, credential_id)
            if "ServicePassword" in found:
                found["ServicePassword"] = _password()
                self.store.put_obj(conn, account, KIND, credential_id, found)
        return found

    def delete(self, account: str, name: str, credential_id: str) -> None:
        with self.store.writing() as conn:
            self.credential(account, name, credential_id)
            self.store.delete_obj(conn, account, KIND, credential_id)


def credential_out(credential: Row, fields: tuple[str, ...], secrets_too: bool) -> Out:
    out: Out = {f: (_date(credential[f]) if f in _DATES else credential[f]) for f in fields if f in credential}
    out["Status"] = status(credential)
    if secrets_too:
        if "ServicePassword" in credential:
            out["ServicePassword"] = credential["ServicePassword"]
        if "secret" in credential:
            out["ServiceCredentialSecret"] = credential["secret"]
    return out


class ServiceCredentialsApi:
    def __init__(self, credentials: ServiceCredentials) -> None:
        self.credentials = credentials

    @operation("CreateServiceSpecificCredential")
    def create_service_specific_credential(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        found = self.credentials.create(ctx.account, params["UserName"], params["ServiceName"],
                                        params.get("CredentialAgeDays"))
        return {"ServiceSpecificCredential": credential_out(found, META, secrets_too=True)}

    @operation("ListServiceSpecificCredentials")
    def list_service_specific_credentials(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        if params.get("AllUsers"):
            if params.get("UserName"):
                raise errors.all_users_with_user_name()
            name = None
        else:
            name = _user(ctx, params)
        found, marker = self.credentials.listing(ctx.account, name, params)
        return paged("ServiceSpecificCredentials", [credential_out(c, META, secrets_too=False) for c in found],
                     marker)

    @operation("UpdateServiceSpecificCredential")
    def update_service_specific_credential(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.credentials.update(ctx.account, _user(ctx, params), params["ServiceSpecificCredentialId"],
                                params["Status"])

    @operation("ResetServiceSpecificCredential")
    def reset_service_specific_credential(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        found = self.credentials.reset(ctx.account, _user(ctx, params), params["ServiceSpecificCredentialId"])
        # The new password, but not an API key's secret: that is answered only at creation.
        out = credential_out({k: v for k, v in found.items() if k != "secret"}, META, secrets_too=True)
        return {"ServiceSpecificCredential": out}

    @operation("DeleteServiceSpecificCredential")
    def delete_service_specific_credential(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.credentials.delete(ctx.account, _user(ctx, params), params["ServiceSpecificCredentialId"])
