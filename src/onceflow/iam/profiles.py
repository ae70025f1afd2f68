"""Instance profiles: a named holder of at most one role (what EC2 hands an instance). Kept whole
as JSON in iam_objects (kind "instance-profile", keyed by the lower-cased name)."""

from __future__ import annotations

from typing import Any

from onceflow.iam import errors
from onceflow.iam.common import drop_tags, merge_tags, new_id, now, page
from onceflow.iam.store import IamStore, Row

KIND = "instance-profile"
ROLES_PER_PROFILE = 1  # IAM quota InstanceSessionsPerInstanceProfile


class InstanceProfiles:
    def __init__(self, store: IamStore) -> None:
        self.store = store

    def profile(self, account: str, name: str) -> Row:
        found = self.store.obj(account, KIND, name.lower())
        if found is None:
            raise errors.profile_not_found(name)
        return found

    def create(self, account: str, params: dict[str, Any], partition: str = "aws") -> Row:
        name, path = params["InstanceProfileName"], params.get("Path", "/")
        profile = {
            "name": name,
            "path": path,
            "profile_id": new_id("AIPA"),
            "arn": f"arn:{partition}:iam::{account}:instance-profile{path}{name}",
            "created": now(),
            "roles": [],
            "tags": merge_tags([], params.get("Tags", [])),
        }
        with self.store.writing() as conn:
            if self.store.obj(account, KIND, name.lower()):
                raise errors.profile_exists(name)
            self.store.put_obj(conn, account, KIND, name.lower(), profile)
        return profile

    def delete(self, account: str, name: str) -> None:
        with self.store.writing() as conn:
            if self.profile(account, name)["roles"]:
                raise errors.must_first("remove roles from instance profile")
            self.store.delete_obj(conn, account, KIND, name.lower())

    def listing(self, account: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        prefix = params.get("PathPrefix", "/")
        found = [p for p in self.store.objs(account, KIND) if p["path"].startswith(prefix)]
        return page(found, params.get("Marker"), params.get("MaxItems"), lambda p: p["name"].lower())

    def for_role(self, account: str, role: str, params: dict[str, Any]) -> tuple[list[Row], str | None]:
        found = self.holding(account, role)
        return page(found, params.get("Marker"), params.get("MaxItems"), lambda p: p["name"].lower())

    def holding(self, account: str, role: str) -> list[Row]:
        return [p for p in self.store.objs(account, KIND) if role.lower() in p["roles"]]

    def add_role(self, account: str, name: str, role: Row) -> None:
        with self.store.writing() as conn:
            profile = self.profile(account, name)
            if role["name"].lower() in profile["roles"]:
                # UNCONFIRMED wording; IAM refuses the same role twice.
                raise errors.role_in_profile(role["name"], name)
            if len(profile["roles"]) >= ROLES_PER_PROFILE:
                raise errors.limit_exceeded(
                    f"Cannot exceed quota for InstanceSessionsPerInstanceProfile: {ROLES_PER_PROFILE}"
                )
            profile["roles"].append(role["name"].lower())
            self.store.put_obj(conn, account, KIND, name.lower(), profile)

    def remove_role(self, account: str, name: str, role: Row) -> None:
        with self.store.writing() as conn:
            profile = self.profile(account, name)
            if role["name"].lower() not in profile["roles"]:
                # AWS's words (recorded: LocalStack's test_iam_instance_profiles snapshot).
                raise errors.no_such_entity(
                    f"Role {role['name']} in Instance Profile {profile['name']} cannot be found.")
            profile["roles"].remove(role["name"].lower())
            self.store.put_obj(conn, account, KIND, name.lower(), profile)

    def tag(self, account: str, name: str, tags: list[dict[str, str]] | None, drop: list[str] | None) -> None:
        with self.store.writing() as conn:
            profile = self.profile(account, name)
            if tags is not None:
                profile["tags"] = merge_tags(profile["tags"], tags)
            if drop is not None:
                profile["tags"] = drop_tags(profile["tags"], drop)
            self.store.put_obj(conn, account, KIND, name.lower(), profile)
