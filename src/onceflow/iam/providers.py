"""Identity providers an account trusts for federation: OpenID Connect providers (by issuer URL)
and SAML providers (by name). Kept whole as JSON in iam_objects, keyed by ARN."""

from __future__ import annotations

import re
import uuid
from typing import Any

from onceflow.iam import errors
from onceflow.iam.common import drop_tags, issuer, merge_tags, now
from onceflow.iam.store import IamStore, Row

OIDC = "oidc-provider"
SAML = "saml-provider"
THUMBPRINTS = 5
CLIENT_IDS = 100
_VALID_UNTIL = re.compile(r'validUntil\s*=\s*"([^"]+)"')


class IdentityProviders:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    # ------------------------------------------------------------------ OpenID Connect
    def create_oidc(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        url = params["Url"]
        if not url.startswith("https://") or not issuer(url):
            raise errors.invalid_oidc_url()
        thumbprints = params.get("ThumbprintList", [])
        clients = params.get("ClientIDList", [])
        self._check_lists(thumbprints, clients)
        arn = f"arn:{partition}:iam::{account}:oidc-provider/{issuer(url)}"
        provider = {
            "arn": arn,
            "url": issuer(url),
            "client_ids": list(dict.fromkeys(clients)),
            "thumbprints": list(dict.fromkeys(thumbprints)),
            "tags": merge_tags([], params.get("Tags", [])),
            "created": now(),
        }
        for field in ("ContextProvider", "IdentityCenterInstanceArn"):
            if params.get(field) is not None:
                provider[field] = params[field]
        with self.store.writing() as conn:
            if self.store.obj(account, OIDC, arn):
                raise errors.oidc_provider_exists(url)
            self.store.put_obj(conn, account, OIDC, arn, provider)
        return provider

    @staticmethod
    def _check_lists(thumbprints: list[str], clients: list[str]) -> None:
        if len(thumbprints) > THUMBPRINTS:
            raise errors.too_many_thumbprints(THUMBPRINTS)
        if len(clients) > CLIENT_IDS:
            raise errors.quota_exceeded("ClientIdsPerOpenIdConnectProvider", CLIENT_IDS)

    def oidc(self, account: str, arn: str) -> Row:
        found = self.store.obj(account, OIDC, arn)
        if found is None:
            raise errors.oidc_provider_not_found(arn)
        return found

    def oidc_by_issuer(self, account: str, iss: str, partition: str = "aws") -> Row | None:
        return self.store.obj(account, OIDC, f"arn:{partition}:iam::{account}:oidc-provider/{issuer(iss)}")

    def oidc_list(self, account: str) -> list[Row]:
        return self.store.objs(account, OIDC)

    def update_oidc(self, account: str, arn: str, change: str, value: Any) -> None:
        """change: 'add-client', 'remove-client', 'thumbprints', 'tag' or 'untag'."""
        with self.store.writing() as conn:
            provider = self.oidc(account, arn)
            if change == "add-client" and value not in provider["client_ids"]:
                self._check_lists([], [*provider["client_ids"], value])
                provider["client_ids"].append(value)
            elif change == "remove-client" and value in provider["client_ids"]:
                provider["client_ids"].remove(value)
            elif change == "thumbprints":
                self._check_lists(value, [])
                provider["thumbprints"] = list(dict.fromkeys(value))
            elif change == "tag":
                provider["tags"] = merge_tags(provider["tags"], value)
            elif change == "untag":
                provider["tags"] = drop_tags(provider["tags"], value)
            self.store.put_obj(conn, account, OIDC, arn, provider)

    def configure_oidc(self, account: str, arn: str, params: dict[str, Any]) -> None:
        """UpdateOpenIDConnectProvider: set or remove the trusted identity propagation context
        provider, or the IAM Identity Center instance; one of the two per request, never a value
        with its Remove flag, and the context provider not while an instance is associated (AWS's
        reference, API_UpdateOpenIDConnectProvider)."""
        changes = {field: _change(params, field, remove)
                   for field, remove in (("ContextProvider", "RemoveContextProvider"),
                                         ("IdentityCenterInstanceArn", "RemoveIdentityCenterInstance"))}
        wanted = {field: change for field, change in changes.items() if change is not _UNCHANGED}
        if len(wanted) != 1:
            raise errors.one_oidc_change()
        [(field, value)] = wanted.items()
        with self.store.writing() as conn:
            provider = self.oidc(account, arn)
            if field == "ContextProvider" and value is None and provider.get("IdentityCenterInstanceArn"):
                raise errors.identity_center_still_associated()
            if value is None:
                provider.pop(field, None)
            else:
                provider[field] = value
            self.store.put_obj(conn, account, OIDC, arn, provider)

    def delete_oidc(self, account: str, arn: str) -> None:
        # IAM's reference calls this idempotent, but AWS answers NoSuchEntity for a provider that does
        # not exist (recorded: LocalStack's test_iam_oidc snapshot, "deletion-not-found-error").
        with self.store.writing() as conn:
            if not self.store.delete_obj(conn, account, OIDC, arn):
                raise errors.oidc_provider_not_found_to_delete(arn)

    # ------------------------------------------------------------------ SAML
    def create_saml(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name = params["Name"]
        arn = f"arn:{partition}:iam::{account}:saml-provider/{name}"
        provider = {
            "arn": arn,
            "name": name,
            "uuid": str(uuid.uuid4()),
            "metadata": params["SAMLMetadataDocument"],
            "tags": merge_tags([], params.get("Tags", [])),
            "created": now(),
            "encryption_mode": params.get("AssertionEncryptionMode", "Allowed"),
            "private_keys": _add_key([], params.get("AddPrivateKey")),
        }
        with self.store.writing() as conn:
            if self.store.obj(account, SAML, arn):
                raise errors.saml_provider_exists(name)
            self.store.put_obj(conn, account, SAML, arn, provider)
        return provider

    def saml(self, account: str, arn: str) -> Row:
        found = self.store.obj(account, SAML, arn)
        if found is None:
            raise errors.saml_provider_not_found(arn)
        return found

    def saml_list(self, account: str) -> list[Row]:
        return self.store.objs(account, SAML)

    def update_saml(self, account: str, arn: str, change: str, value: Any) -> None:
        """change: 'settings' (UpdateSAMLProvider's parameters), 'tag' or 'untag'."""
        with self.store.writing() as conn:
            provider = self.saml(account, arn)
            if change == "settings":
                provider["metadata"] = value.get("SAMLMetadataDocument", provider["metadata"])
                provider["encryption_mode"] = value.get("AssertionEncryptionMode",
                                                        provider.get("encryption_mode", "Allowed"))
                kept = [k for k in provider.get("private_keys", []) if k["KeyId"] != value.get("RemovePrivateKey")]
                provider["private_keys"] = _add_key(kept, value.get("AddPrivateKey"))
            elif change == "tag":
                provider["tags"] = merge_tags(provider["tags"], value)
            elif change == "untag":
                provider["tags"] = drop_tags(provider["tags"], value)
            self.store.put_obj(conn, account, SAML, arn, provider)

    def delete_saml(self, account: str, arn: str) -> None:
        with self.store.writing() as conn:
            if not self.store.delete_obj(conn, account, SAML, arn):
                raise errors.saml_provider_not_found(arn)


_UNCHANGED = object()


def _change(params: dict[str, Any], field: str, remove: str) -> Any:
    """The new value of `field` (None: removed), or _UNCHANGED; both a value and its Remove flag is refused."""
    given, removing = params.get(field) is not None, bool(params.get(remove))
    if given and removing:
        raise errors.value_with_remove_flag(field, remove)
    if removing:
        return None
    return params[field] if given else _UNCHANGED


def _add_key(keys: list[Row], pem: str | None) -> list[Row]:
    """The provider's private keys (for encrypted assertions) with `pem` added: kept by an id of ours
    (UNCONFIRMED: the form of AWS's KeyId) and the time it was added."""
    if not pem:
        return keys
    return [*keys, {"KeyId": "".join(ch for ch in str(uuid.uuid4()).upper() if ch != "-"), "Timestamp": now(),
                    "pem": pem}]


def valid_until(metadata: str) -> str | None:
    """The metadata's validUntil attribute (ISO 8601), when it has one."""
    m = _VALID_UNTIL.search(metadata)
    return m.group(1) if m else None
