"""IAM's rows in SQLite. Entity names are unique per account regardless of case (name_key).
STS keeps its sessions in a store of its own (sts/store.py)."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from onceflow.store.db import Database

# iam-0001 once created sts_sessions too; that table now belongs to sts/store.py (sts-0001), which
# creates it only where this older iam-0001 has not.
MIGRATIONS = [
    (
        "iam-0001",
        """
        CREATE TABLE iam_roles (
            account TEXT NOT NULL, name_key TEXT NOT NULL, name TEXT NOT NULL, role_id TEXT NOT NULL,
            path TEXT NOT NULL, arn TEXT NOT NULL, created TEXT NOT NULL, trust TEXT NOT NULL,
            description TEXT, max_session INTEGER NOT NULL, tags TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (account, name_key));
        CREATE TABLE iam_role_policies (
            account TEXT NOT NULL, role_key TEXT NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL,
            PRIMARY KEY (account, role_key, name));
        CREATE TABLE iam_users (
            account TEXT NOT NULL, name_key TEXT NOT NULL, name TEXT NOT NULL, user_id TEXT NOT NULL,
            path TEXT NOT NULL, arn TEXT NOT NULL, created TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (account, name_key));
        CREATE TABLE iam_user_policies (
            account TEXT NOT NULL, user_key TEXT NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL,
            PRIMARY KEY (account, user_key, name));
        CREATE TABLE iam_access_keys (
            access_key_id TEXT PRIMARY KEY, account TEXT NOT NULL, user_key TEXT NOT NULL,
            secret TEXT NOT NULL, status TEXT NOT NULL, created TEXT NOT NULL);
        CREATE INDEX iam_access_keys_user ON iam_access_keys (account, user_key);
        CREATE TABLE iam_policies (
            account TEXT NOT NULL, name_key TEXT NOT NULL, name TEXT NOT NULL, policy_id TEXT NOT NULL,
            path TEXT NOT NULL, arn TEXT NOT NULL, description TEXT, created TEXT NOT NULL,
            updated TEXT NOT NULL, default_version TEXT NOT NULL, next_version INTEGER NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]', PRIMARY KEY (account, name_key));
        CREATE UNIQUE INDEX iam_policies_arn ON iam_policies (arn);
        CREATE TABLE iam_policy_versions (
            arn TEXT NOT NULL, version_id TEXT NOT NULL, document TEXT NOT NULL, created TEXT NOT NULL,
            PRIMARY KEY (arn, version_id));
        CREATE TABLE iam_attachments (
            account TEXT NOT NULL, entity_kind TEXT NOT NULL, entity_key TEXT NOT NULL, policy_arn TEXT NOT NULL,
            PRIMARY KEY (account, entity_kind, entity_key, policy_arn));
        CREATE INDEX iam_attachments_policy ON iam_attachments (account, policy_arn);
        """,
    ),
    (
        "iam-0002",
        """
        ALTER TABLE iam_roles ADD COLUMN boundary TEXT;
        ALTER TABLE iam_users ADD COLUMN boundary TEXT;
        """,
    ),
    (
        "iam-0003",
        """
        CREATE TABLE iam_groups (
            account TEXT NOT NULL, name_key TEXT NOT NULL, name TEXT NOT NULL, group_id TEXT NOT NULL,
            path TEXT NOT NULL, arn TEXT NOT NULL, created TEXT NOT NULL, PRIMARY KEY (account, name_key));
        CREATE TABLE iam_group_members (
            account TEXT NOT NULL, group_key TEXT NOT NULL, user_key TEXT NOT NULL,
            PRIMARY KEY (account, group_key, user_key));
        CREATE INDEX iam_group_members_user ON iam_group_members (account, user_key);
        CREATE TABLE iam_group_policies (
            account TEXT NOT NULL, group_key TEXT NOT NULL, name TEXT NOT NULL, document TEXT NOT NULL,
            PRIMARY KEY (account, group_key, name));
        """,
    ),
    (
        "iam-0004",
        """
        CREATE TABLE iam_objects (
            account TEXT NOT NULL, kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY (account, kind, key));
        """,
    ),
]
# The owner column of each inline-policy table.
_OWNER_KEYS = {"iam_role_policies": "role_key", "iam_user_policies": "user_key", "iam_group_policies": "group_key"}

Row = dict[str, Any]


def _row(r: sqlite3.Row | None) -> Row | None:
    if r is None:
        return None
    out = dict(r)
    if "tags" in out:
        out["tags"] = json.loads(out["tags"])
    return out


class IamStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(MIGRATIONS)
        self._generations = itertools.count(1)
        # Bumped after every committed IAM write: caches of derived data (a role's compiled
        # policies) are valid only for the generation they were read at.
        self.generation = 0

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that invalidates derived caches once it has committed (or failed)."""
        try:
            with self.db.transaction() as conn:
                yield conn
        finally:
            self.generation = next(self._generations)

    def invalidate(self) -> None:
        self.generation = next(self._generations)

    # ------------------------------------------------------------------ roles
    def role(self, account: str, name: str) -> Row | None:
        return _row(
            self.db.query_one("SELECT * FROM iam_roles WHERE account=? AND name_key=?", (account, name.lower()))
        )

    def role_by_arn(self, arn: str) -> Row | None:
        return _row(self.db.query_one("SELECT * FROM iam_roles WHERE arn=?", (arn,)))

    def roles(self, account: str, path_prefix: str, after: str, limit: int) -> list[Row]:
        rows = self.db.query(
            "SELECT * FROM iam_roles WHERE account=? AND name_key>? AND substr(path,1,?)=? ORDER BY name_key LIMIT ?",
            (account, after, len(path_prefix), path_prefix, limit),
        )
        return [r for r in map(_row, rows) if r]

    def insert_role(self, conn: sqlite3.Connection, role: Row) -> None:
        conn.execute(
            "INSERT INTO iam_roles (account, name_key, name, role_id, path, arn, created, trust, description,"
            " max_session, tags, boundary) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                role["account"],
                role["name"].lower(),
                role["name"],
                role["role_id"],
                role["path"],
                role["arn"],
                role["created"],
                role["trust"],
                role.get("description"),
                role["max_session"],
                json.dumps(role.get("tags", [])),
                role.get("boundary"),
            ),
        )

    def update_role(self, conn: sqlite3.Connection, account: str, name: str, **fields: Any) -> None:
        if "tags" in fields:
            fields["tags"] = json.dumps(fields["tags"])
        sets = ", ".join(f"{k}=?" for k in fields)
        conn.execute(
            f"UPDATE iam_roles SET {sets} WHERE account=? AND name_key=?", (*fields.values(), account, name.lower())
        )

    def set_tags(self, conn: sqlite3.Connection, table: str, account: str, name: str, tags: list[Any]) -> None:
        """Tags of a user or a customer managed policy (roles go through update_role)."""
        conn.execute(
            f"UPDATE {table} SET tags=? WHERE account=? AND name_key=?", (json.dumps(tags), account, name.lower())
        )

    def entities_for_policy(self, account: str, arn: str) -> list[tuple[str, str]]:
        """(kind, owner name_key) of everything the policy is attached to."""
        rows = self.db.query(
            "SELECT entity_kind, entity_key FROM iam_attachments WHERE account=? AND policy_arn=?"
            " ORDER BY entity_kind, entity_key",
            (account, arn),
        )
        return [(r[0], r[1]) for r in rows]

    def delete_role(self, conn: sqlite3.Connection, account: str, name: str) -> None:
        conn.execute("DELETE FROM iam_roles WHERE account=? AND name_key=?", (account, name.lower()))

    # ------------------------------------------------------------------ inline policies (roles and users)
    def inline(self, table: str, account: str, owner: str, name: str) -> str | None:
        key = _OWNER_KEYS[table]
        r = self.db.query_one(
            f"SELECT document FROM {table} WHERE account=? AND {key}=? AND name=?", (account, owner.lower(), name)
        )
        return r[0] if r else None

    def inline_all(self, table: str, account: str, owner: str) -> list[tuple[str, str]]:
        key = _OWNER_KEYS[table]
        rows = self.db.query(
            f"SELECT name, document FROM {table} WHERE account=? AND {key}=? ORDER BY name", (account, owner.lower())
        )
        return [(r[0], r[1]) for r in rows]

    def put_inline(self, conn: sqlite3.Connection, table: str, account: str, owner: str, name: str, doc: str) -> None:
        key = _OWNER_KEYS[table]
        conn.execute(
            f"INSERT OR REPLACE INTO {table} (account, {key}, name, document) VALUES (?,?,?,?)",
            (account, owner.lower(), name, doc),
        )

    def delete_inline(self, conn: sqlite3.Connection, table: str, account: str, owner: str, name: str) -> int:
        key = _OWNER_KEYS[table]
        cur = conn.execute(
            f"DELETE FROM {table} WHERE account=? AND {key}=? AND name=?", (account, owner.lower(), name)
        )
        return cur.rowcount

    # ------------------------------------------------------------------ managed policies
    def policy(self, arn: str) -> Row | None:
        return _row(self.db.query_one("SELECT * FROM iam_policies WHERE arn=?", (arn,)))

    def policy_by_name(self, account: str, name: str) -> Row | None:
        return _row(
            self.db.query_one("SELECT * FROM iam_policies WHERE account=? AND name_key=?", (account, name.lower()))
        )

    def policies(self, account: str) -> list[Row]:
        rows = self.db.query("SELECT * FROM iam_policies WHERE account=? ORDER BY name_key", (account,))
        return [r for r in map(_row, rows) if r]

    def insert_policy(self, conn: sqlite3.Connection, p: Row, document: str) -> None:
        conn.execute(
            "INSERT INTO iam_policies (account, name_key, name, policy_id, path, arn, description, created, updated,"
            " default_version, next_version, tags) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                p["account"],
                p["name"].lower(),
                p["name"],
                p["policy_id"],
                p["path"],
                p["arn"],
                p.get("description"),
                p["created"],
                p["created"],
                "v1",
                2,
                json.dumps(p.get("tags", [])),
            ),
        )
        conn.execute(
            "INSERT INTO iam_policy_versions (arn, version_id, document, created) VALUES (?,?,?,?)",
            (p["arn"], "v1", document, p["created"]),
        )

    def delete_policy(self, conn: sqlite3.Connection, arn: str) -> None:
        conn.execute("DELETE FROM iam_policy_versions WHERE arn=?", (arn,))
        conn.execute("DELETE FROM iam_policies WHERE arn=?", (arn,))

    def policy_version(self, arn: str, version: str) -> Row | None:
        return _row(self.db.query_one("SELECT * FROM iam_policy_versions WHERE arn=? AND version_id=?", (arn, version)))

    def policy_versions(self, arn: str) -> list[Row]:
        rows = self.db.query(
            "SELECT * FROM iam_policy_versions WHERE arn=? ORDER BY CAST(substr(version_id, 2) AS INTEGER)", (arn,)
        )
        return [r for r in map(_row, rows) if r]

    def add_version(self, conn: sqlite3.Connection, arn: str, document: str, created: str, default: bool) -> str:
        number = conn.execute("SELECT next_version FROM iam_policies WHERE arn=?", (arn,)).fetchone()[0]
        version = f"v{number}"
        conn.execute(
            "INSERT INTO iam_policy_versions (arn, version_id, document, created) VALUES (?,?,?,?)",
            (arn, version, document, created),
        )
        conn.execute("UPDATE iam_policies SET next_version=?, updated=? WHERE arn=?", (number + 1, created, arn))
        if default:
            conn.execute("UPDATE iam_policies SET default_version=? WHERE arn=?", (version, arn))
        return version

    def set_default_version(self, conn: sqlite3.Connection, arn: str, version: str, updated: str) -> None:
        conn.execute("UPDATE iam_policies SET default_version=?, updated=? WHERE arn=?", (version, updated, arn))

    def delete_version(self, conn: sqlite3.Connection, arn: str, version: str) -> None:
        conn.execute("DELETE FROM iam_policy_versions WHERE arn=? AND version_id=?", (arn, version))

    # ------------------------------------------------------------------ attachments
    def attached(self, account: str, kind: str, owner: str) -> list[str]:
        rows = self.db.query(
            "SELECT policy_arn FROM iam_attachments WHERE account=? AND entity_kind=? AND entity_key=?"
            " ORDER BY policy_arn",
            (account, kind, owner.lower()),
        )
        return [r[0] for r in rows]

    def attachment_count(self, account: str, arn: str) -> int:
        r = self.db.query_one("SELECT COUNT(*) FROM iam_attachments WHERE account=? AND policy_arn=?", (account, arn))
        return int(r[0]) if r else 0

    def boundary_count(self, account: str, arn: str) -> int:
        roles = self.db.query_one("SELECT COUNT(*) FROM iam_roles WHERE account=? AND boundary=?", (account, arn))
        users = self.db.query_one("SELECT COUNT(*) FROM iam_users WHERE account=? AND boundary=?", (account, arn))
        return int(roles[0] if roles else 0) + int(users[0] if users else 0)

    def set_boundary(self, conn: sqlite3.Connection, kind: str, account: str, name: str, arn: str | None) -> None:
        table = "iam_roles" if kind == "role" else "iam_users"
        conn.execute(f"UPDATE {table} SET boundary=? WHERE account=? AND name_key=?", (arn, account, name.lower()))

    def attach(self, conn: sqlite3.Connection, account: str, kind: str, owner: str, arn: str) -> None:
        conn.execute("INSERT OR IGNORE INTO iam_attachments VALUES (?,?,?,?)", (account, kind, owner.lower(), arn))

    def detach(self, conn: sqlite3.Connection, account: str, kind: str, owner: str, arn: str) -> int:
        cur = conn.execute(
            "DELETE FROM iam_attachments WHERE account=? AND entity_kind=? AND entity_key=? AND policy_arn=?",
            (account, kind, owner.lower(), arn),
        )
        return cur.rowcount

    # ------------------------------------------------------------------ users and access keys
    def user(self, account: str, name: str) -> Row | None:
        return _row(
            self.db.query_one("SELECT * FROM iam_users WHERE account=? AND name_key=?", (account, name.lower()))
        )

    def users(self, account: str) -> list[Row]:
        rows = self.db.query("SELECT * FROM iam_users WHERE account=? ORDER BY name_key", (account,))
        return [r for r in map(_row, rows) if r]

    def insert_user(self, conn: sqlite3.Connection, u: Row) -> None:
        conn.execute(
            "INSERT INTO iam_users (account, name_key, name, user_id, path, arn, created, tags, boundary)"
            " VALUES (?,?,?,?,?,?,?,?,?)",
            (
                u["account"],
                u["name"].lower(),
                u["name"],
                u["user_id"],
                u["path"],
                u["arn"],
                u["created"],
                json.dumps(u.get("tags", [])),
                u.get("boundary"),
            ),
        )

    def rename_user(self, conn: sqlite3.Connection, account: str, old: str, name: str, path: str, arn: str) -> None:
        """A new name moves the user's keys, inline policies, memberships and attachments with it."""
        old_key, key = old.lower(), name.lower()
        conn.execute(
            "UPDATE iam_users SET name_key=?, name=?, path=?, arn=? WHERE account=? AND name_key=?",
            (key, name, path, arn, account, old_key),
        )
        for table in ("iam_user_policies", "iam_access_keys", "iam_group_members"):
            conn.execute(f"UPDATE {table} SET user_key=? WHERE account=? AND user_key=?", (key, account, old_key))
        conn.execute(
            "UPDATE iam_attachments SET entity_key=? WHERE account=? AND entity_kind='user' AND entity_key=?",
            (key, account, old_key),
        )

    def delete_user(self, conn: sqlite3.Connection, account: str, name: str) -> None:
        conn.execute("DELETE FROM iam_users WHERE account=? AND name_key=?", (account, name.lower()))

    def access_keys(self, account: str, user: str) -> list[Row]:
        rows = self.db.query(
            "SELECT * FROM iam_access_keys WHERE account=? AND user_key=? ORDER BY created", (account, user.lower())
        )
        return [r for r in map(_row, rows) if r]

    def access_key(self, key_id: str) -> Row | None:
        return _row(self.db.query_one("SELECT * FROM iam_access_keys WHERE access_key_id=?", (key_id,)))

    def insert_access_key(self, conn: sqlite3.Connection, k: Row) -> None:
        conn.execute(
            "INSERT INTO iam_access_keys VALUES (?,?,?,?,?,?)",
            (k["access_key_id"], k["account"], k["user_key"], k["secret"], k["status"], k["created"]),
        )

    def set_access_key_status(self, conn: sqlite3.Connection, key_id: str, status: str) -> None:
        conn.execute("UPDATE iam_access_keys SET status=? WHERE access_key_id=?", (status, key_id))

    def delete_access_key(self, conn: sqlite3.Connection, key_id: str) -> None:
        conn.execute("DELETE FROM iam_access_keys WHERE access_key_id=?", (key_id,))

    # ------------------------------------------------------------------ groups and membership
    def group(self, account: str, name: str) -> Row | None:
        return _row(
            self.db.query_one("SELECT * FROM iam_groups WHERE account=? AND name_key=?", (account, name.lower()))
        )

    def groups(self, account: str) -> list[Row]:
        rows = self.db.query("SELECT * FROM iam_groups WHERE account=? ORDER BY name_key", (account,))
        return [r for r in map(_row, rows) if r]

    def insert_group(self, conn: sqlite3.Connection, g: Row) -> None:
        conn.execute(
            "INSERT INTO iam_groups (account, name_key, name, group_id, path, arn, created) VALUES (?,?,?,?,?,?,?)",
            (g["account"], g["name"].lower(), g["name"], g["group_id"], g["path"], g["arn"], g["created"]),
        )

    def rename_group(self, conn: sqlite3.Connection, account: str, old: str, name: str, path: str, arn: str) -> None:
        """A new name moves the group's memberships, inline policies and attachments with it."""
        old_key, key = old.lower(), name.lower()
        conn.execute(
            "UPDATE iam_groups SET name_key=?, name=?, path=?, arn=? WHERE account=? AND name_key=?",
            (key, name, path, arn, account, old_key),
        )
        for table in ("iam_group_members", "iam_group_policies"):
            conn.execute(f"UPDATE {table} SET group_key=? WHERE account=? AND group_key=?", (key, account, old_key))
        conn.execute(
            "UPDATE iam_attachments SET entity_key=? WHERE account=? AND entity_kind='group' AND entity_key=?",
            (key, account, old_key),
        )

    def delete_group(self, conn: sqlite3.Connection, account: str, name: str) -> None:
        conn.execute("DELETE FROM iam_groups WHERE account=? AND name_key=?", (account, name.lower()))

    def members(self, account: str, group: str) -> list[Row]:
        rows = self.db.query(
            "SELECT u.* FROM iam_group_members m JOIN iam_users u ON u.account=m.account AND u.name_key=m.user_key"
            " WHERE m.account=? AND m.group_key=? ORDER BY u.name_key",
            (account, group.lower()),
        )
        return [r for r in map(_row, rows) if r]

    def groups_of(self, account: str, user: str) -> list[Row]:
        rows = self.db.query(
            "SELECT g.* FROM iam_group_members m JOIN iam_groups g ON g.account=m.account AND g.name_key=m.group_key"
            " WHERE m.account=? AND m.user_key=? ORDER BY g.name_key",
            (account, user.lower()),
        )
        return [r for r in map(_row, rows) if r]

    def add_member(self, conn: sqlite3.Connection, account: str, group: str, user: str) -> None:
        conn.execute("INSERT OR IGNORE INTO iam_group_members VALUES (?,?,?)", (account, group.lower(), user.lower()))

    def remove_member(self, conn: sqlite3.Connection, account: str, group: str, user: str) -> int:
        cur = conn.execute(
            "DELETE FROM iam_group_members WHERE account=? AND group_key=? AND user_key=?",
            (account, group.lower(), user.lower()),
        )
        return cur.rowcount

    # ------------------------------------------------------------------ account objects kept whole as JSON
    # (instance profiles, identity providers, account aliases, the password policy), by kind and key.
    def obj(self, account: str, kind: str, key: str) -> Row | None:
        r = self.db.query_one("SELECT data FROM iam_objects WHERE account=? AND kind=? AND key=?", (account, kind, key))
        return json.loads(r[0]) if r else None

    def objs(self, account: str, kind: str) -> list[Row]:
        rows = self.db.query("SELECT data FROM iam_objects WHERE account=? AND kind=? ORDER BY key", (account, kind))
        return [json.loads(r[0]) for r in rows]

    def put_obj(self, conn: sqlite3.Connection, account: str, kind: str, key: str, data: Row) -> None:
        conn.execute("INSERT OR REPLACE INTO iam_objects VALUES (?,?,?,?)", (account, kind, key, json.dumps(data)))

    def delete_obj(self, conn: sqlite3.Connection, account: str, kind: str, key: str) -> int:
        cur = conn.execute("DELETE FROM iam_objects WHERE account=? AND kind=? AND key=?", (account, kind, key))
        return cur.rowcount
