"""Centralized root access (ListOrganizationsFeatures, Enable/DisableOrganizationsRootCredentialsManagement,
Enable/DisableOrganizationsRootSessions): features an AWS Organizations management account turns on
for its members. onceflow serves no Organizations, so every account stands alone and these calls
find no organization, as IAM answers a standalone account (OrganizationNotFoundException, one of the
errors the model lists for each; UNCONFIRMED that it comes before the others for such an account)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.iam import errors
from onceflow.registry import operation


class OrganizationsFeaturesApi:
    @operation("ListOrganizationsFeatures")
    def list_organizations_features(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        raise errors.organization_not_found()

    @operation("EnableOrganizationsRootCredentialsManagement")
    def enable_root_credentials_management(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        raise errors.organization_not_found()

    @operation("DisableOrganizationsRootCredentialsManagement")
    def disable_root_credentials_management(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        raise errors.organization_not_found()

    @operation("EnableOrganizationsRootSessions")
    def enable_root_sessions(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        raise errors.organization_not_found()

    @operation("DisableOrganizationsRootSessions")
    def disable_root_sessions(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        raise errors.organization_not_found()
