"""Managed policies (customer and AWS managed), their versions, attachments and permissions
boundaries: a part of IamService kept in its own module."""

from __future__ import annotations

from typing import Any

from onceflow.errors import ServiceError
from onceflow.iam import errors
from onceflow.iam.common import (
    MANAGED_LIMIT,
    check_policy_arn,
    drop_tags,
    merge_tags,
    new_id,
    now,
    page,
    policy_size,
    validate,
)
from onceflow.iam.managed import aws_managed, aws_policies
from onceflow.iam.store import IamStore, Row


class ManagedPolicies:
    store: IamStore

    def role(self, account: str, name: str) -> Row:  # provided by IamService
        raise NotImplementedError

    # ------------------------------------------------------------------ managed policies
    def create_policy(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name, document = params["PolicyName"], params["PolicyDocument"]
        validate(document, "managed")
        if policy_size(document) > MANAGED_LIMIT:
            raise errors.quota_exceeded("PolicySize", MANAGED_LIMIT)
        path = params.get("Path", "/")
        created = now()
        policy = {
            "account": account,
            "name": name,
            "policy_id": new_id("ANPA"),
            "path": path,
            "arn": f"arn:{partition}:iam::{account}:policy{path}{name}",
            "description": params.get("Description"),
            "created": created,
            "updated": created,
            "default_version": "v1",
            "tags": merge_tags([], params.get("Tags", []), case_sensitive=True),
        }
        with self.store.writing() as conn:
            if self.store.policy_by_name(account, name):
                raise errors.policy_exists(name)
            self.store.insert_policy(conn, policy, document)
        return policy

    def policy(self, account: str, arn: str) -> Row:
        """A customer managed policy of this account or an AWS managed policy."""
        check_policy_arn(arn)
        found = aws_managed(arn) or self.store.policy(arn)
        if found is None or (not found.get("aws_managed") and found["account"] != account):
            raise errors.policy_not_found(arn)
        return found

    def policy_document(self, account: str, arn: str, version: str) -> tuple[Row, str, str]:
        """(policy, document, created) of one version."""
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            if version != policy["default_version"]:
                raise errors.policy_version_not_found(arn, version)
            return policy, policy["document"], policy["updated"]  # its default version: the last edit
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

    def list_policies(
        self, account: str, params: dict[str, Any], partition: str = "aws"
    ) -> tuple[list[Row], str | None]:
        scope = params.get("Scope", "All")
        items: list[Row] = []
        if scope in ("All", "AWS"):
            items += aws_policies(partition)
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
                raise errors.policy_attached()
            if len(self.store.policy_versions(arn)) > 1:
                raise errors.delete_conflict(
                    "This policy has more than one version. Before you delete a policy, you must delete the "
                    "policy's versions. The default version is deleted with the policy."
                )
            self.store.delete_policy(conn, policy["arn"])

    def tag_policy(self, account: str, arn: str, tags: list[dict[str, str]] | None, drop: list[str] | None) -> None:
        """TagPolicy (tags) or UntagPolicy (drop): a managed policy's tag keys are case-sensitive."""
        with self.store.writing() as conn:
            policy = self._customer_policy(account, arn)
            if tags is not None:
                kept = merge_tags(policy["tags"], tags, case_sensitive=True)
            else:
                kept = drop_tags(policy["tags"], drop, case_sensitive=True)
            self.store.set_tags(conn, "iam_policies", account, policy["name"], kept)

    def _customer_policy(self, account: str, arn: str) -> Row:
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            raise errors.invalid_arn(arn)  # UNCONFIRMED wording for AWS's own
        return policy

    def entities_for_policy(self, account: str, arn: str, params: dict[str, Any]) -> dict[str, list[Row]]:
        """The roles, users and groups a managed policy is attached to (or bounds, with PermissionsBoundary)."""
        self.policy(account, arn)
        prefix = params.get("PathPrefix", "/")
        found: dict[str, list[Row]] = {"role": [], "user": [], "group": []}
        if params.get("PolicyUsageFilter") == "PermissionsBoundary":
            pairs = [(k, e["name"]) for k, e in self._bounded_by(account, arn)]
        else:
            pairs = self.store.entities_for_policy(account, arn)
        for kind, name in pairs:
            lookup = {"role": self.store.role, "user": self.store.user, "group": self.store.group}[kind]
            entity = lookup(account, name)
            if entity is not None and entity["path"].startswith(prefix):
                found[kind].append(entity)
        wanted = params.get("EntityFilter")
        if wanted in ("Role", "User", "Group"):
            found = {k: (v if k == wanted.lower() else []) for k, v in found.items()}
        return found

    def _bounded_by(self, account: str, arn: str) -> list[tuple[str, Row]]:
        roles = self.store.db.query("SELECT name FROM iam_roles WHERE account=? AND boundary=?", (account, arn))
        users = self.store.db.query("SELECT name FROM iam_users WHERE account=? AND boundary=?", (account, arn))
        return [("role", {"name": r[0]}) for r in roles] + [("user", {"name": u[0]}) for u in users]

    # ------------------------------------------------------------------ policy versions
    def policy_versions(self, account: str, arn: str) -> tuple[Row, list[Row]]:
        policy = self.policy(account, arn)
        if policy.get("aws_managed"):
            version = {
                "version_id": policy["default_version"],
                "document": policy["document"],
                "created": policy["updated"],
            }
            return policy, [version]
        return policy, list(reversed(self.store.policy_versions(arn)))  # newest first

    def create_policy_version(self, account: str, arn: str, document: str, set_default: bool) -> tuple[str, str]:
        validate(document, "managed")
        if policy_size(document) > MANAGED_LIMIT:
            raise errors.quota_exceeded("PolicySize", MANAGED_LIMIT)
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
                raise errors.default_version_kept()
            self.store.delete_version(conn, arn, version)

    def attach(self, account: str, kind: str, owner: str, arn: str) -> None:
        check_policy_arn(arn, "ValidationError")
        with self.store.writing() as conn:
            self._owner(account, kind, owner)
            found = aws_managed(arn) or self.store.policy(arn)
            if found is None or (not found.get("aws_managed") and found["account"] != account):
                raise errors.policy_not_attachable(arn)
            self.store.attach(conn, account, kind, owner, arn)

    def detach(self, account: str, kind: str, owner: str, arn: str) -> None:
        check_policy_arn(arn, "ValidationError")
        with self.store.writing() as conn:
            self._owner(account, kind, owner)
            if not self.store.detach(conn, account, kind, owner, arn):
                raise errors.policy_not_found(arn)

    def attached(self, account: str, kind: str, owner: str) -> list[dict[str, str]]:
        self._owner(account, kind, owner)
        out = []
        for arn in self.store.attached(account, kind, owner):
            policy = aws_managed(arn) or self.store.policy(arn)
            if policy is not None:
                out.append({"PolicyName": policy["name"], "PolicyArn": arn, "path": policy["path"]})
        return out

    def _owner(self, account: str, kind: str, name: str) -> Row:
        if kind == "role":
            return self.role(account, name)
        if kind == "group":
            group = self.store.group(account, name)
            if group is None:
                raise errors.group_not_found(name)
            return group
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    # ------------------------------------------------------------------ permissions boundaries
    def boundary_policy(self, account: str, arn: str) -> Row:
        check_policy_arn(arn)
        found = aws_managed(arn) or self.store.policy(arn)
        if found is None or (not found.get("aws_managed") and found["account"] != account):
            # UNCONFIRMED wording.
            raise errors.scope_not_attachable(arn)
        return found

    def set_boundary(self, account: str, kind: str, name: str, arn: str | None) -> None:
        if arn is not None:
            self.boundary_policy(account, arn)
        with self.store.writing() as conn:
            self._owner(account, kind, name)
            self.store.set_boundary(conn, kind, account, name, arn)

    def boundary_usage(self, account: str, arn: str) -> int:
        return self.store.boundary_count(account, arn)
