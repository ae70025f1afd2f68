"""IAM's rules for roles and inline role policies, and the queries other services make (a role by
ARN, the policies that apply to a principal, whether a trust policy lets a service assume a role).
Managed policies, attachments and boundaries are in policies.py.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from onceflow.context import Principal
from onceflow.iam import errors
from onceflow.iam.common import (
    MAX_ITEMS,
    ROLE_INLINE_LIMIT,
    TRUST_LIMIT,
    drop_tags,
    mark,
    merge_tags,
    new_id,
    now,
    policy_size,
    unmark,
    validate,
)
from onceflow.iam.policies import ManagedPolicies
from onceflow.iam.policy import Decision, Policy, Request, evaluate, stored
from onceflow.iam.store import IamStore, Row


class IamService(ManagedPolicies):
    def __init__(self, store: IamStore) -> None:
        self.store = store
        self.db = store.db
        # (kind, account, owner) -> (store generation, compiled policies): parse once, re-read after writes.
        self._policies: dict[tuple[str, str, str], tuple[int, tuple[list[Policy], list[Policy] | None]]] = {}
        self._tags: dict[tuple[str, str, str], tuple[int, list[dict[str, str]]]] = {}

    # ------------------------------------------------------------------ roles
    def validate_trust(self, document: str) -> None:
        """A trust policy must parse, and the roles and users it names as principals must exist (IAM
        stores their unique ids, so it cannot name one that is not there)."""
        policy = validate(document, "trust")
        for stmt in policy.statements:
            for principals in (stmt.principals, stmt.not_principals):
                for ident in (principals or {}).get("AWS", ()):
                    if not self._principal_exists(ident):
                        raise errors.malformed_policy(f'Invalid principal in policy: "AWS":"{ident}"')

    def _principal_exists(self, ident: str) -> bool:
        parts = ident.split(":", 5)
        if len(parts) != 6 or parts[2] != "iam" or "*" in ident:
            return True  # accounts, :root, assumed-role sessions and wildcards name no stored entity
        kind, _, rest = parts[5].partition("/")
        if kind == "role":
            return self.store.role_by_arn(ident) is not None
        if kind == "user":
            user = self.store.user(parts[4], rest.rsplit("/", 1)[-1])
            return user is not None and user["arn"] == ident
        return True

    def create_role(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name, trust = params["RoleName"], params["AssumeRolePolicyDocument"]
        self.validate_trust(trust)
        if policy_size(trust) > TRUST_LIMIT:
            raise errors.quota_exceeded("ACLSizePerRole", TRUST_LIMIT)
        tags = merge_tags([], params.get("Tags", []))
        path = params.get("Path", "/")
        boundary = params.get("PermissionsBoundary")
        if boundary is not None:
            self.boundary_policy(account, boundary)
        role = {
            "account": account,
            "name": name,
            "role_id": new_id("AROA"),
            "path": path,
            "arn": f"arn:{partition}:iam::{account}:role{path}{name}",
            "created": now(),
            "trust": trust,
            "description": params.get("Description"),
            "max_session": params.get("MaxSessionDuration", 3600),
            "tags": tags,
            "boundary": boundary,
        }
        with self.store.writing() as conn:
            if self.store.role(account, name):
                raise errors.named_exists("Role", name)
            self.store.insert_role(conn, role)
        return role

    def role(self, account: str, name: str) -> Row:
        role = self.store.role(account, name)
        if role is None:
            raise errors.role_not_found(name)
        return role

    def list_roles(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        limit = params.get("MaxItems") or MAX_ITEMS
        after = unmark(params.get("Marker")) or ""
        rows = self.store.roles(account, params.get("PathPrefix", "/"), after, limit + 1)
        if len(rows) <= limit:
            return rows, None
        return rows[:limit], mark(rows[limit - 1]["name"].lower())

    def update_role(self, account: str, params: dict[str, Any]) -> None:
        fields = {}
        if "Description" in params:
            fields["description"] = params["Description"]
        if "MaxSessionDuration" in params:
            fields["max_session"] = params["MaxSessionDuration"]
        with self.store.writing() as conn:
            self.role(account, params["RoleName"])
            if fields:
                self.store.update_role(conn, account, params["RoleName"], **fields)

    def update_trust(self, account: str, name: str, document: str) -> None:
        self.validate_trust(document)
        if policy_size(document) > TRUST_LIMIT:
            raise errors.quota_exceeded("ACLSizePerRole", TRUST_LIMIT)
        with self.store.writing() as conn:
            self.role(account, name)
            self.store.update_role(conn, account, name, trust=document)

    def delete_role(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            self.role(account, name)
            # Which message wins when both kinds remain is UNCONFIRMED; inline policies are checked first.
            if self.store.inline_all("iam_role_policies", account, name):
                raise errors.must_first("delete policies")
            if self.store.attached(account, "role", name):
                raise errors.must_first("detach all policies")
            if any(name.lower() in p["roles"] for p in self.store.objs(account, "instance-profile")):
                raise errors.must_first("remove roles from instance profile")
            self.store.delete_role(conn, account, name)

    def tag_role(self, account: str, name: str, tags: list[dict[str, str]]) -> None:
        with self.store.writing() as conn:
            role = self.role(account, name)
            self.store.update_role(conn, account, name, tags=merge_tags(role["tags"], tags))

    def untag_role(self, account: str, name: str, keys: list[str]) -> None:
        with self.store.writing() as conn:
            role = self.role(account, name)
            self.store.update_role(conn, account, name, tags=drop_tags(role["tags"], keys))

    # ------------------------------------------------------------------ inline role policies
    def put_role_policy(self, account: str, role_name: str, policy_name: str, document: str) -> None:
        validate(document)
        with self.store.writing() as conn:
            role = self.role(account, role_name)
            others = [d for n, d in self.store.inline_all("iam_role_policies", account, role_name) if n != policy_name]
            if policy_size(document) + sum(policy_size(d) for d in others) > ROLE_INLINE_LIMIT:
                raise errors.limit_exceeded(
                    f"Maximum policy size of {ROLE_INLINE_LIMIT} bytes exceeded for role {role['name']}"
                )
            self.store.put_inline(conn, "iam_role_policies", account, role_name, policy_name, document)

    def role_policy(self, account: str, role_name: str, policy_name: str) -> tuple[Row, str]:
        role = self.role(account, role_name)
        doc = self.store.inline("iam_role_policies", account, role_name, policy_name)
        if doc is None:
            raise errors.role_policy_not_found(policy_name)
        return role, doc

    def delete_role_policy(self, account: str, role_name: str, policy_name: str) -> None:
        with self.store.writing() as conn:
            self.role(account, role_name)
            if not self.store.delete_inline(conn, "iam_role_policies", account, role_name, policy_name):
                raise errors.role_policy_not_found(policy_name)

    def role_policy_names(self, account: str, role_name: str) -> list[str]:
        self.role(account, role_name)
        return [n for n, _ in self.store.inline_all("iam_role_policies", account, role_name)]

    # ------------------------------------------------------------------ for other services and the authorizer
    def get_role_by_arn(self, account: str, role_arn: str) -> dict[str, Any] | None:
        role = self.store.role_by_arn(role_arn)
        if role is None or role["account"] != account:
            return None
        return {
            "RoleName": role["name"],
            "Arn": role["arn"],
            "RoleId": role["role_id"],
            "Path": role["path"],
            "CreateDate": datetime.fromisoformat(role["created"]),
            "MaxSessionDuration": role["max_session"],
            "AssumeRolePolicyDocument": json.loads(role["trust"]),
            "Description": role.get("description"),
        }

    def role_trusts(self, account: str, role_arn: str, principal: tuple[str, str],
                    context: dict[str, str] | None = None, action: str = "sts:AssumeRole") -> bool:
        """Whether the role's trust policy lets `principal` (e.g. ("Service", "states.amazonaws.com"))
        call `action` (sts:AssumeRole, or sts:TagSession to pass session tags); `context` holds the
        keys the service sends with it (aws:SourceArn, aws:SourceAccount), which a trust policy's
        conditions may test."""
        role = self.store.role_by_arn(role_arn)
        if role is None or role["account"] != account:
            return False
        request = Request(action, principal=principal,
                          context={k.lower(): [v] for k, v in (context or {}).items()})
        return evaluate([stored(role["trust"], "trust")], request).allowed

    def policies_for(self, principal: Principal) -> list[Policy]:
        """The identity policies (inline and attached) of a role session's role or of a user (with its groups')."""
        return self._compiled(principal)[0]

    def boundary_for(self, principal: Principal) -> list[Policy] | None:
        """The permissions boundary of a session's role or of a user; None when it has none."""
        return self._compiled(principal)[1]

    def principal_tags(self, principal: Principal) -> list[dict[str, str]]:
        """The tags of a user, or of a role session's role: what aws:PrincipalTag/<key> reads."""
        if principal.kind == "assumed-role" and principal.role_arn:
            key = ("role", principal.account, principal.role_arn)
        elif principal.kind == "user":
            key = ("user", principal.account, principal.name.lower())
        else:
            return []
        generation = self.store.generation
        cached = self._tags.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        entity = self.store.role_by_arn(key[2]) if key[0] == "role" else self.store.user(key[1], key[2])
        tags: list[dict[str, str]] = entity["tags"] if entity and entity["account"] == principal.account else []
        self._tags[key] = (generation, tags)
        return tags

    def _compiled(self, principal: Principal) -> tuple[list[Policy], list[Policy] | None]:
        if principal.kind == "assumed-role" and principal.role_arn:
            key = ("role", principal.account, principal.role_arn)
        elif principal.kind == "user":
            key = ("user", principal.account, principal.name.lower())
        else:
            return [], None
        generation = self.store.generation  # read before the rows, so a later write makes this stale
        cached = self._policies.get(key)
        if cached is not None and cached[0] == generation:
            return cached[1]
        docs, boundary = self._documents(*key)
        bounds = None if boundary is None else [stored(boundary)] if boundary else [Policy("2012-10-17", ())]
        compiled = ([stored(d) for d in docs], bounds)
        self._policies[key] = (generation, compiled)
        return compiled

    def _documents(self, kind: str, account: str, owner: str) -> tuple[list[str], str | None]:
        """(identity policy documents, permissions boundary document or None)."""
        entity = self.store.role_by_arn(owner) if kind == "role" else self.store.user(account, owner)
        if entity is None or entity["account"] != account:
            return [], None
        owner = entity["name"]
        table = "iam_role_policies" if kind == "role" else "iam_user_policies"
        docs = [d for _, d in self.store.inline_all(table, account, owner)]
        holders = [(kind, owner)]
        if kind == "user":  # a user also has what its groups grant
            holders += [("group", g["name"]) for g in self.store.groups_of(account, owner)]
            docs += [d for _, g in holders[1:] for _, d in self.store.inline_all("iam_group_policies", account, g)]
        for holder_kind, holder in holders:
            for arn in self.store.attached(account, holder_kind, holder):
                if (doc := self.default_document(account, arn)) is not None:
                    docs.append(doc)
        boundary = None
        if entity.get("boundary"):
            # A boundary whose policy is gone allows nothing (never fail open).
            boundary = self.default_document(account, entity["boundary"]) or ""
        return docs, boundary

    def group_documents(self, account: str, name: str) -> list[str]:
        """A group's identity policy documents: its inline ones, then its attached ones' default versions."""
        docs = [d for _, d in self.store.inline_all("iam_group_policies", account, name)]
        attached = (self.default_document(account, a) for a in self.store.attached(account, "group", name))
        return docs + [d for d in attached if d is not None]

    def forget(self) -> None:
        self._policies.clear()
        self._tags.clear()
        self.store.invalidate()

    def check(self, principal: Principal, action: str, resource: str, context: dict[str, list[str]]) -> Decision:
        return evaluate(self.policies_for(principal), Request(action, resource, context))

    def role_allows(self, account: str, role_arn: str, action: str, resource: str) -> bool:
        """Whether a session of `role_arn` may do `action` on `resource` (e.g. Lambda checking that an
        execution role may write its logs before writing them)."""
        session = Principal(account, "assumed-role", role_arn=role_arn)
        return self.check(session, action, resource, {}).allowed
