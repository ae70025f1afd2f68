"""SQL for Lambda: functions ($LATEST), published versions, aliases and code zips (JSON + blobs)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from onceflow.store.db import Database

MIGRATIONS = [
    (
        "lambda-0001",
        """
        CREATE TABLE lambda_functions (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            config TEXT NOT NULL,
            reserved_concurrency INTEGER,
            next_version INTEGER NOT NULL DEFAULT 1,
            tags TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (account, region, name)
        );
        CREATE TABLE lambda_versions (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, name, version)
        );
        CREATE TABLE lambda_aliases (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            alias TEXT NOT NULL,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, name, alias)
        );
        CREATE TABLE lambda_code (
            sha256 TEXT PRIMARY KEY,
            zip BLOB NOT NULL
        );
        """,
    ),
    (
        # Per function and qualifier ('' for the unqualified function): the resource policy, the
        # asynchronous invocation configuration and the function URL.
        "lambda-0002",
        """
        CREATE TABLE lambda_policies (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            qualifier TEXT NOT NULL,
            policy TEXT NOT NULL,
            revision TEXT NOT NULL,
            PRIMARY KEY (account, region, name, qualifier)
        );
        CREATE TABLE lambda_invoke_configs (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            qualifier TEXT NOT NULL,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, name, qualifier)
        );
        CREATE TABLE lambda_urls (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            qualifier TEXT NOT NULL,
            url_id TEXT NOT NULL UNIQUE,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, name, qualifier)
        );
        """,
    ),
    (
        # Layer versions (their zips live in lambda_code); next_version never goes back, as on AWS.
        "lambda-0003",
        """
        CREATE TABLE lambda_layers (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,
            config TEXT NOT NULL,
            code TEXT NOT NULL,
            PRIMARY KEY (account, region, name, version)
        );
        CREATE TABLE lambda_layer_names (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            next_version INTEGER NOT NULL,
            PRIMARY KEY (account, region, name)
        );
        """,
    ),
    (
        # Code signing configs (a function names its own in its record's `_csc`).
        "lambda-0004",
        """
        CREATE TABLE lambda_code_signing_configs (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            id TEXT NOT NULL,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, id)
        );
        """,
    ),
    (
        # Capacity providers (Lambda Managed Instances); a function names its own in its record's
        # CapacityProviderConfig.
        "lambda-0005",
        """
        CREATE TABLE lambda_capacity_providers (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            config TEXT NOT NULL,
            PRIMARY KEY (account, region, name)
        );
        """,
    ),
]
_PER_QUALIFIER = ("lambda_policies", "lambda_invoke_configs", "lambda_urls")

Key = tuple[str, str, str]  # (account, region, function name)


class LambdaStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(MIGRATIONS)

    # ------------------------------------------------------------------ functions
    def get_function(self, key: Key) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config, reserved_concurrency FROM lambda_functions WHERE account=? AND region=? AND name=?",
            key,
        )
        if row is None:
            return None
        config = json.loads(row["config"])
        config["_reserved"] = row["reserved_concurrency"]
        return config

    def list_functions(self, account: str, region: str, after: str | None, limit: int) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_functions WHERE account=? AND region=? AND name>? ORDER BY name LIMIT ?",
            (account, region, after or "", limit),
        )
        return [json.loads(r["config"]) for r in rows]

    def provisioned(self) -> list[tuple[Key, dict[str, Any]]]:
        """Every function with provisioned concurrency configs: (key, {qualifier: entry})."""
        rows = self.db.query(
            "SELECT account, region, name, json_extract(config, '$._provisioned') AS p FROM lambda_functions "
            "WHERE json_extract(config, '$._provisioned') IS NOT NULL"
        )
        out = [((r["account"], r["region"], r["name"]), json.loads(r["p"])) for r in rows]
        return [(key, entries) for key, entries in out if entries]

    def runtimes_in_use(self) -> list[str]:
        rows = self.db.query("SELECT DISTINCT json_extract(config, '$.Runtime') AS r FROM lambda_functions")
        return [r["r"] for r in rows]

    def insert_function(self, conn: sqlite3.Connection, key: Key, config: dict[str, Any]) -> bool:
        """Insert a new function; False when the name is taken."""
        try:
            conn.execute(
                "INSERT INTO lambda_functions (account, region, name, config) VALUES (?, ?, ?, ?)",
                (*key, _dump(config)),
            )
        except sqlite3.IntegrityError:
            return False
        return True

    def update_function(self, conn: sqlite3.Connection, key: Key, config: dict[str, Any]) -> None:
        conn.execute(
            "UPDATE lambda_functions SET config=? WHERE account=? AND region=? AND name=?", (_dump(config), *key)
        )

    def delete_function(self, conn: sqlite3.Connection, key: Key) -> None:
        for table in ("lambda_functions", "lambda_versions", "lambda_aliases", *_PER_QUALIFIER):
            conn.execute(f"DELETE FROM {table} WHERE account=? AND region=? AND name=?", key)
        self._collect_code(conn)

    def set_reserved(self, conn: sqlite3.Connection, key: Key, value: int | None) -> None:
        conn.execute(
            "UPDATE lambda_functions SET reserved_concurrency=? WHERE account=? AND region=? AND name=?",
            (value, *key),
        )

    def total_reserved(self, account: str, region: str, excluding: str | None = None) -> int:
        row = self.db.query_one(
            "SELECT COALESCE(SUM(reserved_concurrency), 0) AS n FROM lambda_functions "
            "WHERE account=? AND region=? AND name IS NOT ?",
            (account, region, excluding),
        )
        return int(row["n"]) if row else 0

    def get_tags(self, key: Key) -> dict[str, str] | None:
        row = self.db.query_one("SELECT tags FROM lambda_functions WHERE account=? AND region=? AND name=?", key)
        return json.loads(row["tags"]) if row else None

    def set_tags(self, conn: sqlite3.Connection, key: Key, tags: dict[str, str]) -> None:
        conn.execute(
            "UPDATE lambda_functions SET tags=? WHERE account=? AND region=? AND name=?", (json.dumps(tags), *key)
        )

    def usage(self, account: str, region: str) -> tuple[int, int]:
        """(function count, total code size of $LATEST and versions) in an account and region."""
        rows = self.db.query(
            "SELECT config FROM lambda_functions WHERE account=? AND region=? "
            "UNION ALL SELECT config FROM lambda_versions WHERE account=? AND region=?",
            (account, region, account, region),
        )
        count = self.db.query_one(
            "SELECT COUNT(*) AS n FROM lambda_functions WHERE account=? AND region=?", (account, region)
        )
        return int(count["n"]) if count else 0, sum(int(json.loads(r["config"])["CodeSize"]) for r in rows)

    # ------------------------------------------------------------------ versions
    def next_version(self, conn: sqlite3.Connection, key: Key) -> int:
        row = conn.execute(
            "SELECT next_version FROM lambda_functions WHERE account=? AND region=? AND name=?", key
        ).fetchone()
        conn.execute(
            "UPDATE lambda_functions SET next_version=next_version+1 WHERE account=? AND region=? AND name=?", key
        )
        return int(row[0])

    def insert_version(self, conn: sqlite3.Connection, key: Key, version: int, config: dict[str, Any]) -> None:
        conn.execute(
            "INSERT INTO lambda_versions (account, region, name, version, config) VALUES (?, ?, ?, ?, ?)",
            (*key, version, _dump(config)),
        )

    def update_version(self, conn: sqlite3.Connection, key: Key, version: int, config: dict[str, Any]) -> None:
        """A version's own settings that change (its RevisionId, with its policy); its code never does."""
        conn.execute(
            "UPDATE lambda_versions SET config=? WHERE account=? AND region=? AND name=? AND version=?",
            (_dump(config), *key, version),
        )

    def get_version(self, key: Key, version: int) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_versions WHERE account=? AND region=? AND name=? AND version=?",
            (*key, version),
        )
        return json.loads(row["config"]) if row else None

    def list_versions(self, key: Key) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_versions WHERE account=? AND region=? AND name=? ORDER BY version", key
        )
        return [json.loads(r["config"]) for r in rows]

    def delete_version(self, conn: sqlite3.Connection, key: Key, version: int) -> None:
        conn.execute(
            "DELETE FROM lambda_versions WHERE account=? AND region=? AND name=? AND version=?", (*key, version)
        )
        self.delete_qualified(conn, key, str(version))
        self._collect_code(conn)

    def delete_qualified(self, conn: sqlite3.Connection, key: Key, qualifier: str) -> None:
        """What belongs to a version or alias that is deleted: its policy, invoke config and URL."""
        for table in _PER_QUALIFIER:
            conn.execute(
                f"DELETE FROM {table} WHERE account=? AND region=? AND name=? AND qualifier=?", (*key, qualifier)
            )

    # ------------------------------------------------------------------ aliases
    def get_alias(self, key: Key, alias: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_aliases WHERE account=? AND region=? AND name=? AND alias=?", (*key, alias)
        )
        return json.loads(row["config"]) if row else None

    def list_aliases(self, key: Key) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_aliases WHERE account=? AND region=? AND name=? ORDER BY alias", key
        )
        return [json.loads(r["config"]) for r in rows]

    def put_alias(self, conn: sqlite3.Connection, key: Key, alias: str, config: dict[str, Any]) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO lambda_aliases (account, region, name, alias, config) VALUES (?, ?, ?, ?, ?)",
            (*key, alias, _dump(config)),
        )

    def delete_alias(self, conn: sqlite3.Connection, key: Key, alias: str) -> None:
        conn.execute("DELETE FROM lambda_aliases WHERE account=? AND region=? AND name=? AND alias=?", (*key, alias))
        self.delete_qualified(conn, key, alias)

    # ------------------------------------------------------------------ policies
    def get_policy(self, key: Key, qualifier: str) -> tuple[dict[str, Any], str] | None:
        row = self.db.query_one(
            "SELECT policy, revision FROM lambda_policies WHERE account=? AND region=? AND name=? AND qualifier=?",
            (*key, qualifier),
        )
        return (json.loads(row["policy"]), row["revision"]) if row else None

    def put_policy(
        self, conn: sqlite3.Connection, key: Key, qualifier: str, policy: dict[str, Any], revision: str
    ) -> None:
        if not policy["Statement"]:  # the last statement removed: the function has no policy
            conn.execute(
                "DELETE FROM lambda_policies WHERE account=? AND region=? AND name=? AND qualifier=?",
                (*key, qualifier),
            )
            return
        conn.execute(
            "INSERT OR REPLACE INTO lambda_policies (account, region, name, qualifier, policy, revision) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (*key, qualifier, json.dumps(policy, separators=(",", ":")), revision),
        )

    # ------------------------------------------------------------------ asynchronous invocation configs
    def get_invoke_config(self, key: Key, qualifier: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_invoke_configs WHERE account=? AND region=? AND name=? AND qualifier=?",
            (*key, qualifier),
        )
        return json.loads(row["config"]) if row else None

    def list_invoke_configs(self, key: Key) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_invoke_configs WHERE account=? AND region=? AND name=? ORDER BY qualifier",
            key,
        )
        return [json.loads(r["config"]) for r in rows]

    def put_invoke_config(self, conn: sqlite3.Connection, key: Key, qualifier: str, config: dict[str, Any]) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO lambda_invoke_configs (account, region, name, qualifier, config) "
            "VALUES (?, ?, ?, ?, ?)",
            (*key, qualifier, json.dumps(config)),
        )

    def delete_invoke_config(self, conn: sqlite3.Connection, key: Key, qualifier: str) -> None:
        conn.execute(
            "DELETE FROM lambda_invoke_configs WHERE account=? AND region=? AND name=? AND qualifier=?",
            (*key, qualifier),
        )

    # ------------------------------------------------------------------ function URLs
    def get_url(self, key: Key, qualifier: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_urls WHERE account=? AND region=? AND name=? AND qualifier=?",
            (*key, qualifier),
        )
        return json.loads(row["config"]) if row else None

    def url_by_id(self, url_id: str) -> tuple[Key, str, dict[str, Any]] | None:
        row = self.db.query_one(
            "SELECT account, region, name, qualifier, config FROM lambda_urls WHERE url_id=?", (url_id,)
        )
        if row is None:
            return None
        return (row["account"], row["region"], row["name"]), row["qualifier"], json.loads(row["config"])

    def list_urls(self, key: Key) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_urls WHERE account=? AND region=? AND name=? ORDER BY qualifier", key
        )
        return [json.loads(r["config"]) for r in rows]

    def put_url(
        self, conn: sqlite3.Connection, key: Key, qualifier: str, url_id: str, config: dict[str, Any]
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO lambda_urls (account, region, name, qualifier, url_id, config) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (*key, qualifier, url_id, json.dumps(config)),
        )

    def delete_url(self, conn: sqlite3.Connection, key: Key, qualifier: str) -> None:
        conn.execute(
            "DELETE FROM lambda_urls WHERE account=? AND region=? AND name=? AND qualifier=?", (*key, qualifier)
        )

    # ------------------------------------------------------------------ layers
    def next_layer_version(self, conn: sqlite3.Connection, key: Key) -> int:
        row = conn.execute(
            "SELECT next_version FROM lambda_layer_names WHERE account=? AND region=? AND name=?", key
        ).fetchone()
        number = int(row[0]) if row else 1
        conn.execute(
            "INSERT OR REPLACE INTO lambda_layer_names (account, region, name, next_version) VALUES (?, ?, ?, ?)",
            (*key, number + 1),
        )
        return number

    def put_layer(self, conn: sqlite3.Connection, key: Key, version: int, config: dict[str, Any], code: str) -> None:
        conn.execute(
            "INSERT INTO lambda_layers (account, region, name, version, config, code) VALUES (?, ?, ?, ?, ?, ?)",
            (*key, version, json.dumps(config), code),
        )

    def update_layer(self, conn: sqlite3.Connection, key: Key, version: int, config: dict[str, Any]) -> None:
        conn.execute(
            "UPDATE lambda_layers SET config=? WHERE account=? AND region=? AND name=? AND version=?",
            (json.dumps(config), *key, version),
        )

    def get_layer(self, key: Key, version: int) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_layers WHERE account=? AND region=? AND name=? AND version=?", (*key, version)
        )
        return json.loads(row["config"]) if row else None

    def list_layer_versions(self, key: Key) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_layers WHERE account=? AND region=? AND name=? ORDER BY version DESC", key
        )
        return [json.loads(r["config"]) for r in rows]

    def list_layer_names(self, account: str, region: str) -> list[str]:
        rows = self.db.query(
            "SELECT DISTINCT name FROM lambda_layers WHERE account=? AND region=? ORDER BY name", (account, region)
        )
        return [r["name"] for r in rows]

    def delete_layer(self, conn: sqlite3.Connection, key: Key, version: int) -> None:
        conn.execute(
            "DELETE FROM lambda_layers WHERE account=? AND region=? AND name=? AND version=?", (*key, version)
        )
        self._collect_code(conn)

    # ------------------------------------------------------------------ code
    # ------------------------------------------------------------------ code signing configs
    def get_csc(self, account: str, region: str, csc_id: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_code_signing_configs WHERE account=? AND region=? AND id=?",
            (account, region, csc_id),
        )
        return json.loads(row["config"]) if row is not None else None

    def list_cscs(self, account: str, region: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_code_signing_configs WHERE account=? AND region=? ORDER BY id",
            (account, region),
        )
        return [json.loads(r["config"]) for r in rows]

    def put_csc(self, conn: sqlite3.Connection, account: str, region: str, csc_id: str, config: dict[str, Any]) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO lambda_code_signing_configs (account, region, id, config) VALUES (?, ?, ?, ?)",
            (account, region, csc_id, _dump(config)),
        )

    def delete_csc(self, conn: sqlite3.Connection, account: str, region: str, csc_id: str) -> None:
        conn.execute(
            "DELETE FROM lambda_code_signing_configs WHERE account=? AND region=? AND id=?", (account, region, csc_id)
        )

    def functions_signed_by(self, account: str, region: str, csc_arn: str) -> list[str]:
        rows = self.db.query(
            "SELECT name FROM lambda_functions WHERE account=? AND region=? AND json_extract(config, '$._csc')=? "
            "ORDER BY name",
            (account, region, csc_arn),
        )
        return [r["name"] for r in rows]

    # ------------------------------------------------------------------ capacity providers
    def get_capacity_provider(self, account: str, region: str, name: str) -> dict[str, Any] | None:
        row = self.db.query_one(
            "SELECT config FROM lambda_capacity_providers WHERE account=? AND region=? AND name=?",
            (account, region, name),
        )
        return json.loads(row["config"]) if row is not None else None

    def list_capacity_providers(self, account: str, region: str) -> list[dict[str, Any]]:
        rows = self.db.query(
            "SELECT config FROM lambda_capacity_providers WHERE account=? AND region=? ORDER BY name",
            (account, region),
        )
        return [json.loads(r["config"]) for r in rows]

    def put_capacity_provider(
        self, conn: sqlite3.Connection, account: str, region: str, name: str, config: dict[str, Any]
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO lambda_capacity_providers (account, region, name, config) VALUES (?, ?, ?, ?)",
            (account, region, name, _dump(config)),
        )

    def delete_capacity_provider(self, conn: sqlite3.Connection, account: str, region: str, name: str) -> None:
        conn.execute(
            "DELETE FROM lambda_capacity_providers WHERE account=? AND region=? AND name=?", (account, region, name)
        )

    def configs_on_provider(self, account: str, region: str, arn: str) -> list[dict[str, Any]]:
        """$LATEST and published versions whose CapacityProviderConfig names `arn`, by name then version."""
        path = "$.CapacityProviderConfig.LambdaManagedInstancesCapacityProviderConfig.CapacityProviderArn"
        rows = self.db.query(
            f"SELECT name, -1 AS v, config FROM lambda_functions WHERE account=? AND region=? "
            f"AND json_extract(config, '{path}')=? UNION ALL "
            f"SELECT name, version AS v, config FROM lambda_versions WHERE account=? AND region=? "
            f"AND json_extract(config, '{path}')=? ORDER BY name, v",
            (account, region, arn, account, region, arn),
        )
        return [json.loads(r["config"]) for r in rows]

    def put_code(self, conn: sqlite3.Connection, sha256_hex: str, data: bytes) -> None:
        conn.execute("INSERT OR IGNORE INTO lambda_code (sha256, zip) VALUES (?, ?)", (sha256_hex, data))

    def get_code(self, sha256_hex: str) -> bytes:
        row = self.db.query_one("SELECT zip FROM lambda_code WHERE sha256=?", (sha256_hex,))
        if row is None:
            raise KeyError(sha256_hex)
        return bytes(row["zip"])

    def _collect_code(self, conn: sqlite3.Connection) -> None:
        """Drop zips no function or version refers to any more."""
        configs = [json.loads(r[0]) for r in conn.execute(
            "SELECT config FROM lambda_functions UNION ALL SELECT config FROM lambda_versions")]  # fmt: skip
        used = {c.get("_code") for c in configs}
        used |= {(c.get("_latest_published") or {}).get("_code") for c in configs}  # $LATEST.PUBLISHED's zip
        used |= {r[0] for r in conn.execute("SELECT code FROM lambda_layers")}
        for (sha,) in conn.execute("SELECT sha256 FROM lambda_code").fetchall():
            if sha not in used:
                conn.execute("DELETE FROM lambda_code WHERE sha256=?", (sha,))


def _dump(config: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in config.items() if k != "_reserved"}, separators=(",", ":"))
