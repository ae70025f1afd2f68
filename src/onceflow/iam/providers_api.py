"""Identity provider operations (query protocol): OpenID Connect and SAML providers."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam.api import Out, _date, tags_out
from onceflow.iam.providers import IdentityProviders, valid_until
from onceflow.registry import operation


class ProvidersApi:
    def __init__(self, providers: IdentityProviders) -> None:
        self.providers = providers

    # ------------------------------------------------------------------ OpenID Connect
    @operation("CreateOpenIDConnectProvider")
    def create_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        provider = self.providers.create_oidc(ctx.account, params, partition(ctx.region))
        out: Out = {"OpenIDConnectProviderArn": provider["arn"]}
        if provider["tags"]:
            out["Tags"] = provider["tags"]
        return out

    @operation("GetOpenIDConnectProvider")
    def get_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        p = self.providers.oidc(ctx.account, params["OpenIDConnectProviderArn"])
        out: Out = {
            "Url": p["url"],
            "ClientIDList": p["client_ids"],
            "ThumbprintList": p["thumbprints"],
            "CreateDate": _date(p["created"]),
            "Tags": p["tags"],  # [] too, as AWS answers (recorded: LocalStack's test_iam_oidc snapshot)
        }
        for field in ("ContextProvider", "IdentityCenterInstanceArn"):
            if p.get(field) is not None:
                out[field] = p[field]
        return out

    @operation("ListOpenIDConnectProviders")
    def list_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return {"OpenIDConnectProviderList": [{"Arn": p["arn"]} for p in self.providers.oidc_list(ctx.account)]}

    @operation("DeleteOpenIDConnectProvider")
    def delete_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.delete_oidc(ctx.account, params["OpenIDConnectProviderArn"])

    @operation("AddClientIDToOpenIDConnectProvider")
    def add_client_id(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.update_oidc(ctx.account, params["OpenIDConnectProviderArn"], "add-client", params["ClientID"])

    @operation("RemoveClientIDFromOpenIDConnectProvider")
    def remove_client_id(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        arn = params["OpenIDConnectProviderArn"]
        self.providers.update_oidc(ctx.account, arn, "remove-client", params["ClientID"])

    @operation("UpdateOpenIDConnectProviderThumbprint")
    def update_thumbprints(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        arn = params["OpenIDConnectProviderArn"]
        self.providers.update_oidc(ctx.account, arn, "thumbprints", params["ThumbprintList"])

    @operation("TagOpenIDConnectProvider")
    def tag_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.update_oidc(ctx.account, params["OpenIDConnectProviderArn"], "tag", params["Tags"])

    @operation("UntagOpenIDConnectProvider")
    def untag_oidc(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.update_oidc(ctx.account, params["OpenIDConnectProviderArn"], "untag", params["TagKeys"])

    @operation("ListOpenIDConnectProviderTags")
    def list_oidc_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.providers.oidc(ctx.account, params["OpenIDConnectProviderArn"])["tags"], params)

    # ------------------------------------------------------------------ SAML
    @operation("CreateSAMLProvider")
    def create_saml(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        provider = self.providers.create_saml(ctx.account, params, partition(ctx.region))
        out: Out = {"SAMLProviderArn": provider["arn"]}
        if provider["tags"]:
            out["Tags"] = provider["tags"]
        return out

    @operation("GetSAMLProvider")
    def get_saml(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        p = self.providers.saml(ctx.account, params["SAMLProviderArn"])
        # AWS's recorded answer (LocalStack's test_iam_saml_providers snapshot) has every member, the
        # empty lists too; AssertionEncryptionMode is Allowed unless set.
        out: Out = {
            "SAMLProviderUUID": p["uuid"],
            "SAMLMetadataDocument": p["metadata"],
            "CreateDate": _date(p["created"]),
            "Tags": p["tags"],
            "AssertionEncryptionMode": p.get("encryption_mode", "Allowed"),
            "PrivateKeyList": [{"KeyId": k["KeyId"], "Timestamp": _date(k["Timestamp"])}
                               for k in p.get("private_keys", [])],
        }
        if (until := valid_until(p["metadata"])) is not None:
            out["ValidUntil"] = _date(until.replace("Z", "+00:00"))
        return out

    @operation("ListSAMLProviders")
    def list_saml(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        entries = []
        for p in self.providers.saml_list(ctx.account):
            entry: Out = {"Arn": p["arn"], "CreateDate": _date(p["created"])}
            if (until := valid_until(p["metadata"])) is not None:
                entry["ValidUntil"] = _date(until.replace("Z", "+00:00"))
            entries.append(entry)
        return {"SAMLProviderList": entries}

    @operation("UpdateSAMLProvider")
    def update_saml(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        arn = params["SAMLProviderArn"]
        self.providers.update_saml(ctx.account, arn, "settings", params)
        return {"SAMLProviderArn": arn}

    @operation("DeleteSAMLProvider")
    def delete_saml(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.delete_saml(ctx.account, params["SAMLProviderArn"])

    @operation("TagSAMLProvider")
    def tag_saml(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.update_saml(ctx.account, params["SAMLProviderArn"], "tag", params["Tags"])

    @operation("UntagSAMLProvider")
    def untag_saml(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.update_saml(ctx.account, params["SAMLProviderArn"], "untag", params["TagKeys"])

    @operation("ListSAMLProviderTags")
    def list_saml_tags(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        return tags_out(self.providers.saml(ctx.account, params["SAMLProviderArn"])["tags"], params)


class OidcConfigurationApi:
    """UpdateOpenIDConnectProvider, which botocore models from 1.44 (onceflow's floor is 1.43.11):
    registered only where the installed model has it (iam/__init__.py)."""

    def __init__(self, providers: IdentityProviders) -> None:
        self.providers = providers

    @operation("UpdateOpenIDConnectProvider")
    def update_oidc_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.providers.configure_oidc(ctx.account, params["OpenIDConnectProviderArn"], params)
