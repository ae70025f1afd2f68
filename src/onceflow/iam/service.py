"""IAM's rules for roles, inline role policies and managed policies, and the queries other
services make (a role by ARN, the policies that apply to a principal, whether a trust policy lets
a service assume a role).
"""

from __future__ import annotations

import base64
import json
import secrets
import string
from datetime import UTC, datetime
from typing import Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.iam import errors
from onceflow.iam.managed import AWS_POLICIES
from onceflow.iam.policy import Decision, MalformedPolicy, Policy, Request, evaluate, parse
from onceflow.iam.store import IamStore, Row

ROLE_INLINE_LIMIT = 10240
MANAGED_LIMIT = 6144
TRUST_LIMIT = 2048
MAX_ITEMS = 100
_ID_CHARS = string.ascii_uppercase + string.digits


def new_id(prefix: str, length: int = 21) -> str:
    return prefix + "".join(secrets.choice(_ID_CHARS) for _ in range(length - len(prefix)))


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def policy_size(text: str) -> int:
    """IAM counts a policy's size without whitespace."""
    return sum(1 for ch in text if not ch.isspace())


def validate(text: str, kind: str = "identity") -> Policy:
    try:
        return parse(text, kind)
    except MalformedPolicy as exc:
        raise errors.malformed_policy(exc.message) from None


def page(items: list[Any], marker: str | None, max_items: int | None, key: Any) -> tuple[list[Any], str | None]:
    """IAM paging: MaxItems (default 100) and an opaque Marker naming the last item returned."""
    after = _unmark(marker)
    if after is not None:
        # Continue after the item the marker names (lists need not be sorted by their key); if it
        # is gone, after the first key past it.
        keys = [key(i) for i in items]
        start = (
            keys.index(after) + 1 if after in keys else next((n for n, k in enumerate(keys) if k > after), len(keys))
        )
        items = items[start:]
    limit = max_items or MAX_ITEMS
    if len(items) <= limit:
        return items, None
    return items[:limit], _mark(key(items[limit - 1]))


def _mark(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode()).decode()


def _unmark(marker: str | None) -> str | None:
    if not marker:
        return None
    try:
        return base64.b64decode(marker.encode(), altchars=b"-_", validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        raise errors.validation_error("Invalid Marker.") from None


def merge_tags(existing: list[dict[str, str]], new: list[dict[str, str]]) -> list[dict[str, str]]:
    """Tag keys are case-insensitive in IAM; a new value replaces the old one."""
    keys = [t["Key"].lower() for t in new]
    if len(keys) != len(set(keys)):
        raise errors.invalid_input("Duplicate tag keys found. Please note that Tag keys are case insensitive.")
    merged = {t["Key"].lower(): t for t in existing}
    merged.update({t["Key"].lower(): {"Key": t["Key"], "Value": t["Value"]} for t in new})
    if len(merged) > 50:
        raise errors.limit_exceeded("The number of tags has reached the maximum limit.")
    return list(merged.values())


class IamService:
    def __init__(self, store: IamStore) -> None:
        self.store = store
        self.db = store.db
        # (kind, account, owner) -> (store generation, compiled policies): parse once, re-read after writes.
        self._policies: dict[tuple[str, str, str], tuple[int, tuple[list[Policy], list[Policy] | None]]] = {}

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

    def create_role(self, account: str, params: dict[str, Any]) -> Row:
        name, trust = params["RoleName"], params["AssumeRolePolicyDocument"]
        self.validate_trust(trust)
        if policy_size(trust) > TRUST_LIMIT:
            raise errors.limit_exceeded(f"Cannot exceed quota for ACLSizePerRole: {TRUST_LIMIT}")
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
            "arn": f"arn:aws:iam::{account}:role{path}{name}",
            "created": now(),
            "trust": trust,
            "description": params.get("Description"),
            "max_session": params.get("MaxSessionDuration", 3600),
            "tags": tags,
            "boundary": boundary,
        }
        with self.store.writing() as conn:
            if self.store.role(account, name):
                raise errors.already_exists(f"Role with name {name} already exists.")
            self.store.insert_role(conn, role)
        return role

    def role(self, account: str, name: str) -> Row:
        role = self.store.role(account, name)
        if role is None:
            raise errors.role_not_found(name)
        return role

    def list_roles(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        limit = params.get("MaxItems") or MAX_ITEMS
        after = _unmark(params.get("Marker")) or ""
        rows = self.store.roles(account, params.get("PathPrefix", "/"), after, limit + 1)
        if len(rows) <= limit:
            return rows, None
        return rows[:limit], _mark(rows[limit - 1]["name"].lower())

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
            raise errors.limit_exceeded(f"Cannot exceed quota for ACLSizePerRole: {TRUST_LIMIT}")
        with self.store.writing() as conn:
            self.role(account, name)
            self.store.update_role(conn, account, name, trust=document)

    def delete_role(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            self.role(account, name)
            # Which message wins when both kinds remain is UNCONFIRMED; inline policies are checked first.
            if self.store.inline_all("iam_role_policies", account, name):
                raise errors.delete_conflict("Cannot delete entity, must delete policies first.")
            if self.store.attached(account, "role", name):
                raise errors.delete_conflict("Cannot delete entity, must detach all policies first.")
            self.store.delete_role(conn, account, name)

    def tag_role(self, account: str, name: str, tags: list[dict[str, str]]) -> None:
        with self.store.writing() as conn:
            role = self.role(account, name)
            self.store.update_role(conn, account, name, tags=merge_tags(role["tags"], tags))

    def untag_role(self, account: str, name: str, keys: list[str]) -> None:
        drop = {k.lower() for k in keys}
        with self.store.writing() as conn:
            role = self.role(account, name)
            kept = [t for t in role["tags"] if t["Key"].lower() not in drop]
            self.store.update_role(conn, account, name, tags=kept)

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

    # ------------------------------------------------------------------ managed policies
    def create_policy(self, account: str, params: dict[str, Any]) -> Row:
        name, document = params["PolicyName"], params["PolicyDocument"]
        validate(document)
        if policy_size(document) > MANAGED_LIMIT:
            raise errors.limit_exceeded(f"Cannot exceed quota for PolicySize: {MANAGED_LIMIT}")
        path = params.get("Path", "/")
        created = now()
        policy = {
            "account": account,
            "name": name,
            "policy_id": new_id("ANPA"),
            "path": path,
            "arn": f"arn:aws:iam::{account}:policy{path}{name}",
            "description": params.get("Description"),
            "created": created,
            "updated": created,
            "default_version": "v1",
            "tags": merge_tags([], params.get("Tags", [])),
        }
        with self.store.writing() as conn:
            if self.store.policy_by_name(account, name):
                raise errors.already_exists(f"A policy called {name} already exists. Duplicate names are not allowed.")
            self.store.insert_policy(conn, policy, document)
        return policy

    def policy(self, account: str, arn: str) -> Row:
        """A customer managed policy of this account or an AWS managed policy."""
        _check_policy_arn(arn)
        found = AWS_POLICIES.get(arn) or self.store.policy(arn)
        if found is None or (not found.get("aws_managed") and found["account"] != account):
            raise errors.policy_not_found(arn)
        return found

    def policy_document(self, account: str, arn: str, version: str) -> tuple[Row, str, str]:
        """(policy, document, created) of one version."""
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            if version != policy["default_version"]:
                raise errors.policy_version_not_found(arn, version)
            return policy, policy["document"], policy["created"]
        row = self.store.policy_version(arn, version)
        if row is None:
            raise errors.policy_version_not_found(arn, version)
        return policy, row["document"], row["created"]

    def default_document(self, account: str, arn: str) -> str | None:
        """The default version's document of a managed policy, or None when there is no such policy."""
        try:
            policy = self.policy(account, arn)
            return self.policy_document(account, arn, policy["default_version"])[1]
        except ServiceError:
            return None

    def attachment_count(self, account: str, arn: str) -> int:
        return self.store.attachment_count(account, arn)

    def list_policies(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        scope = params.get("Scope", "All")
        items: list[Row] = []
        if scope in ("All", "AWS"):
            items += list(AWS_POLICIES.values())
        if scope in ("All", "Local"):
            items += self.store.policies(account)
        prefix = params.get("PathPrefix", "/")
        items = [p for p in items if p["path"].startswith(prefix)]
        if params.get("OnlyAttached"):
            items = [p for p in items if self.store.attachment_count(account, p["arn"])]
        items.sort(key=lambda p: p["arn"])
        return page(items, params.get("Marker"), params.get("MaxItems"), lambda p: p["arn"])

    def delete_policy(self, account: str, arn: str) -> None:
        with self.store.writing() as conn:
            policy = self._customer_policy(account, arn)
            if self.store.attachment_count(account, arn) or self.store.boundary_count(account, arn):
                raise errors.delete_conflict("Cannot delete a policy attached to entities.")
            if len(self.store.policy_versions(arn)) > 1:
                raise errors.delete_conflict(
                    "This policy has more than one version. Before you delete a policy, you must delete the "
                    "policy's versions. The default version is deleted with the policy."
                )
            self.store.delete_policy(conn, policy["arn"])

    def _customer_policy(self, account: str, arn: str) -> Row:
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            raise errors.invalid_input(f"ARN {arn} is not valid.")  # UNCONFIRMED wording for AWS's own
        return policy

    # ------------------------------------------------------------------ policy versions
    def policy_versions(self, account: str, arn: str) -> tuple[Row, list[Row]]:
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            version = {
                "version_id": policy["default_version"],
                "document": policy["document"],
                "created": policy["created"],
            }
            return policy, [version]
        return policy, list(reversed(self.store.policy_versions(arn)))  # newest first

    def create_policy_version(self, account: str, arn: str, document: str, set_default: bool) -> tuple[str, str]:
        validate(document)
        if policy_size(document) > MANAGED_LIMIT:
            raise errors.limit_exceeded(f"Cannot exceed quota for PolicySize: {MANAGED_LIMIT}")
        created = now()
        with self.store.writing() as conn:
            self._customer_policy(account, arn)
            if len(self.store.policy_versions(arn)) >= 5:
                raise errors.limit_exceeded(
                    "A managed policy can have up to 5 versions. Before you create a new version, you must "
                    "delete an existing version."
                )
            return self.store.add_version(conn, arn, document, created, set_default), created

    def set_default_policy_version(self, account: str, arn: str, version: str) -> None:
        with self.store.writing() as conn:
            self._customer_policy(account, arn)
            if self.store.policy_version(arn, version) is None:
                raise errors.policy_version_not_found(arn, version)
            self.store.set_default_version(conn, arn, version, now())

    def delete_policy_version(self, account: str, arn: str, version: str) -> None:
        with self.store.writing() as conn:
            policy = self._customer_policy(account, arn)
            if self.store.policy_version(arn, version) is None:
                raise errors.policy_version_not_found(arn, version)
            if version == policy["default_version"]:
                raise errors.delete_conflict("Cannot delete the default version of a policy.")
            self.store.delete_version(conn, arn, version)

    def attach(self, account: str, kind: str, owner: str, arn: str) -> None:
        _check_policy_arn(arn)
        with self.store.writing() as conn:
            self._owner(account, kind, owner)
            found = AWS_POLICIES.get(arn) or self.store.policy(arn)
            if found is None or (not found.get("aws_managed") and found["account"] != account):
                raise errors.policy_not_attachable(arn)
            self.store.attach(conn, account, kind, owner, arn)

    def detach(self, account: str, kind: str, owner: str, arn: str) -> None:
        _check_policy_arn(arn)
        with self.store.writing() as conn:
            self._owner(account, kind, owner)
            if not self.store.detach(conn, account, kind, owner, arn):
                raise errors.policy_not_found(arn)

    def attached(self, account: str, kind: str, owner: str) -> list[dict[str, str]]:
        self._owner(account, kind, owner)
        out = []
        for arn in self.store.attached(account, kind, owner):
            policy = AWS_POLICIES.get(arn) or self.store.policy(arn)
            if policy is not None:
                out.append({"PolicyName": policy["name"], "PolicyArn": arn, "path": policy["path"]})
        return out

    def _owner(self, account: str, kind: str, name: str) -> Row:
        if kind == "role":
            return self.role(account, name)
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    # ------------------------------------------------------------------ permissions boundaries
    def boundary_policy(self, account: str, arn: str) -> Row:
        _check_policy_arn(arn)
        found = AWS_POLICIES.get(arn) or self.store.policy(arn)
        if found is None or (not found.get("aws_managed") and found["account"] != account):
            # UNCONFIRMED wording.
            raise errors.no_such_entity(f"Scope ARN: {arn} does not exist or is not attachable.")
        return found

    def set_boundary(self, account: str, kind: str, name: str, arn: str | None) -> None:
        if arn is not None:
            self.boundary_policy(account, arn)
        with self.store.writing() as conn:
            self._owner(account, kind, name)
            self.store.set_boundary(conn, kind, account, name, arn)

    def boundary_usage(self, account: str, arn: str) -> int:
        return self.store.boundary_count(account, arn)

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

    def role_trusts(self, account: str, role_arn: str, principal: tuple[str, str]) -> bool:
        """Whether the role's trust policy lets `principal` (e.g. ("Service", "states.amazonaws.com"))
        call sts:AssumeRole."""
        role = self.store.role_by_arn(role_arn)
        if role is None or role["account"] != account:
            return False
        request = Request("sts:AssumeRole", principal=principal)
        return evaluate([parse(role["trust"], "trust")], request).allowed

    def policies_for(self, principal: Principal) -> list[Policy]:
        """The identity policies (inline and attached) of a role session's role or of a user."""
        return self._compiled(principal)[0]

    def boundary_for(self, principal: Principal) -> list[Policy] | None:
        """The permissions boundary of a session's role or of a user; None when it has none."""
        return self._compiled(principal)[1]

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
        bounds = None if boundary is None else [parse(boundary)] if boundary else [Policy("2012-10-17", ())]
        compiled = ([parse(d) for d in docs], bounds)
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
        for arn in self.store.attached(account, kind, owner):
            if (doc := self.default_document(account, arn)) is not None:
                docs.append(doc)
        boundary = None
        if entity.get("boundary"):
            # A boundary whose policy is gone allows nothing (never fail open).
            boundary = self.default_document(account, entity["boundary"]) or ""
        return docs, boundary

    def forget(self) -> None:
        self._policies.clear()
        self.store.invalidate()

    def check(self, principal: Principal, action: str, resource: str, context: dict[str, list[str]]) -> Decision:
        return evaluate(self.policies_for(principal), Request(action, resource, context))

    def role_allows(self, account: str, role_arn: str, action: str, resource: str) -> bool:
        """Whether a session of `role_arn` may do `action` on `resource` (e.g. Lambda checking that an
        execution role may write its logs before writing them)."""
        session = Principal(account, "assumed-role", role_arn=role_arn)
        return self.check(session, action, resource, {}).allowed


def _check_policy_arn(arn: str) -> None:
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "iam" or not parts[5].startswith("policy/"):
        raise errors.invalid_arn(arn)
