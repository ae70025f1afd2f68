"""ListPoliciesGrantingServiceAccess: the permissions policies a user (with its groups'), group or
role can use to reach each of the services named.

AWS's reference (API_ListPoliciesGrantingServiceAccess): a user's list holds its own inline and
managed policies and those of its groups; a group's or a role's only its own; permissions
boundaries, resource policies and trust policies do not count; a managed policy is named by its
ARN, an inline one by its name and the entity it is attached to.
"""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.iam import errors
from onceflow.iam.common import entity_of, unmark
from onceflow.iam.policy import stored
from onceflow.iam.policy.services import grants
from onceflow.iam.service import IamService
from onceflow.iam.store import Row
from onceflow.registry import operation

Out = dict[str, Any]
_INLINE_TABLES = {"USER": "iam_user_policies", "GROUP": "iam_group_policies", "ROLE": "iam_role_policies"}
_ATTACHED_KINDS = {"USER": "user", "GROUP": "group", "ROLE": "role"}


class ServiceAccessApi:
    def __init__(self, service: IamService) -> None:
        self.service = service
        self.store = service.store

    @operation("ListPoliciesGrantingServiceAccess")
    def list_policies_granting_service_access(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        unmark(params.get("Marker"))  # every answer is one page: a marker can only be refused
        held = self._held(ctx.account, params["Arn"])
        listing = [{"ServiceNamespace": ns, "Policies": [entry for entry, doc in held if grants(stored(doc), ns)]}
                   for ns in params["ServiceNamespaces"]]
        return {"PoliciesGrantingServiceAccess": listing, "IsTruncated": False}

    def _held(self, account: str, arn: str) -> list[tuple[Out, str]]:
        """(answer entry, document) of each policy the identity holds."""
        owners = self._owners(account, arn)
        out: list[tuple[Out, str]] = []
        for kind, name in owners:
            for policy_name, doc in self.store.inline_all(_INLINE_TABLES[kind], account, name):
                out.append(({"PolicyName": policy_name, "PolicyType": "INLINE", "EntityType": kind,
                             "EntityName": name}, doc))
        for kind, name in owners:
            for policy_arn in self.store.attached(account, _ATTACHED_KINDS[kind], name):
                managed = self.service.default_document(account, policy_arn)
                if managed is not None:
                    policy_name = self.service.policy(account, policy_arn)["name"]
                    out.append(({"PolicyName": policy_name, "PolicyType": "MANAGED", "PolicyArn": policy_arn}, managed))
        return out

    def _owners(self, account: str, arn: str) -> list[tuple[str, str]]:
        """The identity and, for a user, its groups: (entity type, name)."""
        kind, name = entity_of(arn, ("user", "group", "role"))
        entity = self._entity(account, kind, name)
        if entity["arn"] != arn:  # another path, or another account
            raise self._missing(kind, name)
        owners = [(kind.upper(), entity["name"])]
        if kind == "user":
            owners += [("GROUP", g["name"]) for g in self.store.groups_of(account, entity["name"])]
        return owners

    def _entity(self, account: str, kind: str, name: str) -> Row:
        lookup = {"user": self.store.user, "group": self.store.group, "role": self.store.role}[kind]
        entity = lookup(account, name)
        if entity is None:
            raise self._missing(kind, name)
        return entity

    @staticmethod
    def _missing(kind: str, name: str) -> Exception:
        missing = {"user": errors.user_not_found, "group": errors.group_not_found, "role": errors.role_not_found}
        return missing[kind](name)
