"""IAM groups: the groups themselves, their members and their inline policies. Attached managed
policies go through ManagedPolicies (kind "group"); what a group grants its members is read by
IamService when it compiles a user's policies."""

from __future__ import annotations

from typing import Any

from onceflow.iam import errors
from onceflow.iam.common import new_id, now, page, partition_of, policy_size, validate
from onceflow.iam.store import IamStore, Row

# IAM quota: the inline policies of one group total at most 5,120 characters (whitespace not counted).
GROUP_INLINE_LIMIT = 5120
TABLE = "iam_group_policies"


def group_arn(account: str, path: str, name: str, partition: str = "aws") -> str:
    return f"arn:{partition}:iam::{account}:group{path}{name}"


class IamGroups:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def group(self, account: str, name: str) -> Row:
        group = self.store.group(account, name)
        if group is None:
            raise errors.group_not_found(name)
        return group

    def _user(self, account: str, name: str) -> Row:
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    def create_group(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name, path = params["GroupName"], params.get("Path", "/")
        group = {
            "account": account,
            "name": name,
            "group_id": new_id("AGPA"),
            "path": path,
            "arn": group_arn(account, path, name, partition),
            "created": now(),
        }
        with self.store.writing() as conn:
            if self.store.group(account, name):
                raise errors.named_exists("Group", name)
            self.store.insert_group(conn, group)
        return group

    def list_groups(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        prefix = params.get("PathPrefix", "/")
        groups = [g for g in self.store.groups(account) if g["path"].startswith(prefix)]
        return page(groups, params.get("Marker"), params.get("MaxItems"), lambda g: g["name"].lower())

    def members(self, account: str, name: str, params: dict[str, Any]) -> tuple[Row, list[Row], str | None]:
        group = self.group(account, name)
        users = self.store.members(account, name)
        items, marker = page(users, params.get("Marker"), params.get("MaxItems"), lambda u: u["name"].lower())
        return group, items, marker

    def groups_for_user(self, account: str, user: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        self._user(account, user)
        groups = self.store.groups_of(account, user)
        return page(groups, params.get("Marker"), params.get("MaxItems"), lambda g: g["name"].lower())

    def update_group(self, account: str, params: dict[str, Any]) -> None:
        name = params["GroupName"]
        with self.store.writing() as conn:
            group = self.group(account, name)
            new_name: str = params["NewGroupName"] if "NewGroupName" in params else group["name"]
            new_path: str = params["NewPath"] if "NewPath" in params else group["path"]
            if new_name.lower() != group["name"].lower() and self.store.group(account, new_name):
                raise errors.named_exists("Group", new_name)
            arn = group_arn(account, new_path, new_name, partition_of(group["arn"]))
            self.store.rename_group(conn, account, group["name"], new_name, new_path, arn)

    def delete_group(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            self.group(account, name)
            # AWS refuses while anything still refers to the group; which check comes first is UNCONFIRMED.
            if self.store.members(account, name):
                raise errors.must_first("remove users from group")
            if self.store.inline_all(TABLE, account, name):
                raise errors.must_first("delete policies")
            if self.store.attached(account, "group", name):
                raise errors.must_first("detach all policies")
            self.store.delete_group(conn, account, name)

    # Both name the user first when neither exists (recorded: LocalStack's test_iam_groups snapshot,
    # "remove-from-unknown-group").
    def add_user(self, account: str, group: str, user: str) -> None:
        with self.store.writing() as conn:
            self._user(account, user)
            self.group(account, group)
            self.store.add_member(conn, account, group, user)

    def remove_user(self, account: str, group: str, user: str) -> None:
        with self.store.writing() as conn:
            self._user(account, user)
            self.group(account, group)
            # Removing a user who is not a member succeeds (recorded: LocalStack's test_iam_users
            # snapshot, "remove-nonmember-user-from-group").
            self.store.remove_member(conn, account, group, user)

    # ------------------------------------------------------------------ inline group policies
    def put_policy(self, account: str, group_name: str, policy_name: str, document: str) -> None:
        validate(document)
        with self.store.writing() as conn:
            group = self.group(account, group_name)
            others = [d for n, d in self.store.inline_all(TABLE, account, group_name) if n != policy_name]
            if policy_size(document) + sum(policy_size(d) for d in others) > GROUP_INLINE_LIMIT:
                raise errors.limit_exceeded(
                    f"Maximum policy size of {GROUP_INLINE_LIMIT} bytes exceeded for group {group['name']}"
                )
            self.store.put_inline(conn, TABLE, account, group_name, policy_name, document)

    def policy(self, account: str, group_name: str, policy_name: str) -> tuple[Row, str]:
        group = self.group(account, group_name)
        doc = self.store.inline(TABLE, account, group_name, policy_name)
        if doc is None:
            raise errors.group_policy_not_found(policy_name)
        return group, doc

    def delete_policy(self, account: str, group_name: str, policy_name: str) -> None:
        with self.store.writing() as conn:
            self.group(account, group_name)
            if not self.store.delete_inline(conn, TABLE, account, group_name, policy_name):
                raise errors.group_policy_not_found(policy_name)

    def policy_names(self, account: str, group_name: str) -> list[str]:
        self.group(account, group_name)
        return [n for n, _ in self.store.inline_all(TABLE, account, group_name)]
