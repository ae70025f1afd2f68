"""IAM users, their access keys and inline policies; access keys resolve to user principals."""

from __future__ import annotations

import secrets
import string
from typing import Any

from onceflow.aws_ids import new_key_id
from onceflow.context import Principal
from onceflow.credentials import Credential
from onceflow.iam import errors
from onceflow.iam.common import drop_tags, merge_tags, new_id, now, page, policy_size, validate
from onceflow.iam.service import IamService
from onceflow.iam.store import IamStore, Row
from onceflow.iam.user_credentials import blockers, move

USER_INLINE_LIMIT = 2048
KEYS_PER_USER = 2
_SECRET_CHARS = string.ascii_letters + string.digits + "+/"


class IamUsers:
    def __init__(self, store: IamStore, iam: IamService) -> None:
        self.store = store
        self.iam = iam
        self.db = store.db
        self._credentials: dict[str, Credential] = {}  # access key -> its user and secret (keys are immutable)

    def user(self, account: str, name: str) -> Row:
        user = self.store.user(account, name)
        if user is None:
            raise errors.user_not_found(name)
        return user

    def create_user(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name, path = params["UserName"], params.get("Path", "/")
        boundary = params.get("PermissionsBoundary")
        user = {
            "account": account,
            "name": name,
            "user_id": new_id("AIDA"),
            "path": path,
            "arn": f"arn:{partition}:iam::{account}:user{path}{name}",
            "created": now(),
            "tags": merge_tags([], params.get("Tags", [])),
            "boundary": boundary,
        }
        if boundary is not None:
            self.iam.boundary_policy(account, boundary)
        with self.store.writing() as conn:
            if self.store.user(account, name):
                raise errors.named_exists("User", name)
            self.store.insert_user(conn, user)
        return user

    def list_users(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        prefix = params.get("PathPrefix", "/")
        users = [u for u in self.store.users(account) if u["path"].startswith(prefix)]
        return page(users, params.get("Marker"), params.get("MaxItems"), lambda u: u["name"].lower())

    def delete_user(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            self.user(account, name)
            if self.store.inline_all("iam_user_policies", account, name):
                raise errors.must_first("delete policies")
            if self.store.attached(account, "user", name):
                raise errors.must_first("detach all policies")
            if self.store.access_keys(account, name):
                raise errors.must_first("delete access keys")
            if self.store.groups_of(account, name):
                raise errors.must_first("remove users from group")
            if (what := blockers(self.store, account, name.lower())) is not None:
                raise errors.must_first(what)
            self.store.delete_user(conn, account, name)

    def update_user(self, account: str, name: str, new_name: str | None, new_path: str | None) -> None:
        with self.store.writing() as conn:
            user = self.user(account, name)
            target = new_name or user["name"]
            if target.lower() != user["name"].lower() and self.store.user(account, target):
                raise errors.named_exists("User", target)
            path = new_path or user["path"]
            arn = f"{user['arn'].split(':user/', 1)[0]}:user{path}{target}"
            self.store.rename_user(conn, account, user["name"], target, path, arn)
            move(self.store, conn, account, user["name"].lower(), {**user, "name": target})
        self._credentials.clear()  # cached principals carry the old name and ARN

    def last_used(self, account: str, key_id: str, caller: str) -> Row:
        key = self.store.access_key(key_id)
        if key is None or key["account"] != account:
            raise errors.key_last_used_denied(caller, key_id)
        user = self.store.user(account, key["user_key"])
        return {"UserName": user["name"] if user else key["user_key"]}

    def tag_user(self, account: str, name: str, tags: list[dict[str, str]]) -> None:
        with self.store.writing() as conn:
            user = self.user(account, name)
            self.store.set_tags(conn, "iam_users", account, name, merge_tags(user["tags"], tags))

    def untag_user(self, account: str, name: str, keys: list[str]) -> None:
        with self.store.writing() as conn:
            user = self.user(account, name)
            self.store.set_tags(conn, "iam_users", account, name, drop_tags(user["tags"], keys))

    # ------------------------------------------------------------------ access keys
    def create_access_key(self, account: str, name: str) -> Row:
        key = {
            "access_key_id": new_key_id("AKIA"),
            "account": account,
            "user_key": name.lower(),
            "secret": "".join(secrets.choice(_SECRET_CHARS) for _ in range(40)),
            "status": "Active",
            "created": now(),
        }
        with self.store.writing() as conn:
            user = self.user(account, name)
            if len(self.store.access_keys(account, name)) >= KEYS_PER_USER:
                raise errors.quota_exceeded("AccessKeysPerUser", KEYS_PER_USER)
            self.store.insert_access_key(conn, key)
        return {**key, "user_name": user["name"]}

    def access_keys(self, account: str, name: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        user = self.user(account, name)
        keys = [{**k, "user_name": user["name"]} for k in self.store.access_keys(account, name)]
        return page(keys, params.get("Marker"), params.get("MaxItems"), lambda k: k["access_key_id"])

    def update_access_key(self, account: str, name: str | None, key_id: str, status: str) -> None:
        """Active or Inactive: an inactive key's signatures are refused (wire/authenticate.py) until
        it is made active again."""
        with self.store.writing() as conn:
            self._own_key(account, name, key_id)
            self.store.set_access_key_status(conn, key_id, status)
        self._credentials.pop(key_id, None)

    def delete_access_key(self, account: str, name: str | None, key_id: str) -> None:
        with self.store.writing() as conn:
            self._own_key(account, name, key_id)
            self.store.delete_access_key(conn, key_id)
        self._credentials.pop(key_id, None)

    def _own_key(self, account: str, name: str | None, key_id: str) -> Row:
        """The key, if it is the named user's (or, without a name, the account's)."""
        if name is not None:
            self.user(account, name)
        key = self.store.access_key(key_id)
        if key is None or key["account"] != account or (name is not None and key["user_key"] != name.lower()):
            raise errors.access_key_not_found(key_id)
        return key

    def principal_for(self, access_key: str) -> Principal | None:
        credential = self.credential_for(access_key)
        return credential.principal if credential else None

    def credential_for(self, access_key: str) -> Credential | None:
        """The credential resolver for IAM users' long-term keys (AKIA...): the user and the secret
        their signatures are verified with."""
        if not access_key.startswith("AKIA"):
            return None
        cached = self._credentials.get(access_key)
        if cached is not None:
            return cached
        key = self.store.access_key(access_key)
        if key is None:
            return None
        user = self.store.user(key["account"], key["user_key"])
        if user is None:
            return None
        principal = Principal(user["account"], "user", user["arn"], user["name"], access_key=access_key,
                              user_id=user["user_id"])
        credential = Credential(principal, key["secret"], active=key["status"] == "Active")
        self._credentials[access_key] = credential
        return credential

    def forget(self) -> None:
        self._credentials.clear()

    # ------------------------------------------------------------------ inline user policies
    def put_policy(self, account: str, user_name: str, policy_name: str, document: str) -> None:
        validate(document)
        with self.store.writing() as conn:
            user = self.user(account, user_name)
            others = [d for n, d in self.store.inline_all("iam_user_policies", account, user_name) if n != policy_name]
            if policy_size(document) + sum(policy_size(d) for d in others) > USER_INLINE_LIMIT:
                raise errors.limit_exceeded(
                    f"Maximum policy size of {USER_INLINE_LIMIT} bytes exceeded for user {user['name']}"
                )
            self.store.put_inline(conn, "iam_user_policies", account, user_name, policy_name, document)

    def policy(self, account: str, user_name: str, policy_name: str) -> tuple[Row, str]:
        user = self.user(account, user_name)
        doc = self.store.inline("iam_user_policies", account, user_name, policy_name)
        if doc is None:
            raise errors.user_policy_not_found(policy_name)
        return user, doc

    def delete_policy(self, account: str, user_name: str, policy_name: str) -> None:
        with self.store.writing() as conn:
            self.user(account, user_name)
            if not self.store.delete_inline(conn, "iam_user_policies", account, user_name, policy_name):
                raise errors.user_policy_not_found(policy_name)

    def policy_names(self, account: str, user_name: str) -> list[str]:
        self.user(account, user_name)
        return [n for n, _ in self.store.inline_all("iam_user_policies", account, user_name)]
