"""S3 SQL: buckets (a global namespace, as in AWS), object versions, multipart uploads and parts.

One table holds every version of every object; `latest` marks the current one of a key (its
delete marker, if the key was deleted under versioning). Without versioning a key has one row with
version 'null'. A body is inline in its row (small) or named by `segments`: [[blob id, size], ...]
(one per part of a multipart object). Every function takes an open connection.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

MIGRATIONS = [
    (
        "s3-0001",
        """
        CREATE TABLE s3_buckets (
            name TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            created REAL NOT NULL,
            versioning TEXT NOT NULL DEFAULT '',
            configs TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX s3_buckets_by_account ON s3_buckets (account, name);
        CREATE TABLE s3_objects (
            id INTEGER PRIMARY KEY,
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            version_id TEXT NOT NULL,
            latest INTEGER NOT NULL,
            delete_marker INTEGER NOT NULL DEFAULT 0,
            size INTEGER NOT NULL DEFAULT 0,
            etag TEXT NOT NULL DEFAULT '',
            modified REAL NOT NULL,
            headers TEXT NOT NULL DEFAULT '{}',
            metadata TEXT NOT NULL DEFAULT '{}',
            checksum TEXT NOT NULL DEFAULT '{}',
            tags TEXT NOT NULL DEFAULT '{}',
            parts TEXT NOT NULL DEFAULT '[]',
            inline BLOB,
            segments TEXT NOT NULL DEFAULT '[]',
            UNIQUE (bucket, key, version_id)
        );
        CREATE INDEX s3_objects_latest ON s3_objects (bucket, latest, key);
        CREATE TABLE s3_uploads (
            upload_id TEXT PRIMARY KEY,
            bucket TEXT NOT NULL,
            key TEXT NOT NULL,
            initiated REAL NOT NULL,
            fields TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX s3_uploads_by_bucket ON s3_uploads (bucket, key, initiated);
        CREATE TABLE s3_parts (
            upload_id TEXT NOT NULL,
            number INTEGER NOT NULL,
            size INTEGER NOT NULL,
            etag TEXT NOT NULL,
            modified REAL NOT NULL,
            checksum TEXT NOT NULL DEFAULT '{}',
            inline BLOB,
            segments TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (upload_id, number)
        );
        """,
    ),
    # An object version's ACL grants (JSON), '' for the default private ACL (acl.py).
    ("s3-0002", "ALTER TABLE s3_objects ADD COLUMN acl TEXT NOT NULL DEFAULT ''"),
    # Event notifications to deliver (notify.py): written in the change's own transaction, deleted once sent.
    ("s3-0003", "CREATE TABLE s3_notify_outbox (id INTEGER PRIMARY KEY, job TEXT NOT NULL)"),
]

TOP = "\U0010ffff"  # above every character: `key < prefix + TOP` bounds a prefix range

_OBJECT_COLUMNS = ("bucket", "key", "version_id", "latest", "delete_marker", "size", "etag", "modified", "headers",
                   "metadata", "checksum", "tags", "parts", "inline", "segments", "acl")
_JSON = {"headers", "metadata", "checksum", "tags", "parts", "segments", "configs", "fields"}


def row_dict(row: sqlite3.Row | None) -> dict[str, Any] | None:
    if row is None:
        return None
    out = dict(row)
    for name in _JSON & out.keys():
        out[name] = json.loads(out[name])
    return out


# ---------------------------------------------------------------------- buckets
def get_bucket(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
    return row_dict(conn.execute("SELECT * FROM s3_buckets WHERE name = ?", (name,)).fetchone())


def insert_bucket(conn: sqlite3.Connection, name: str, account: str, region: str, created: float,
                  configs: dict[str, Any], versioning: str = "") -> None:
    conn.execute("INSERT INTO s3_buckets (name, account, region, created, configs, versioning) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (name, account, region, created, json.dumps(configs), versioning))


def delete_bucket(conn: sqlite3.Connection, name: str) -> None:
    conn.execute("DELETE FROM s3_buckets WHERE name = ?", (name,))


def list_buckets(conn: sqlite3.Connection, account: str, after: str, prefix: str, limit: int) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM s3_buckets WHERE account = ? AND name > ? AND name >= ? AND name < ? "
                        "ORDER BY name LIMIT ?", (account, after, prefix, prefix + TOP, limit)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def set_configs(conn: sqlite3.Connection, name: str, configs: dict[str, Any]) -> None:
    conn.execute("UPDATE s3_buckets SET configs = ? WHERE name = ?", (json.dumps(configs), name))


def set_versioning(conn: sqlite3.Connection, name: str, status: str) -> None:
    conn.execute("UPDATE s3_buckets SET versioning = ? WHERE name = ?", (status, name))


def bucket_has_content(conn: sqlite3.Connection, name: str) -> bool:
    if conn.execute("SELECT 1 FROM s3_objects WHERE bucket = ? LIMIT 1", (name,)).fetchone():
        return True
    return conn.execute("SELECT 1 FROM s3_uploads WHERE bucket = ? LIMIT 1", (name,)).fetchone() is not None


# ---------------------------------------------------------------------- objects
def latest(conn: sqlite3.Connection, bucket: str, key: str) -> dict[str, Any] | None:
    return row_dict(conn.execute("SELECT * FROM s3_objects WHERE bucket = ? AND key = ? AND latest = 1",
                                 (bucket, key)).fetchone())


def version(conn: sqlite3.Connection, bucket: str, key: str, version_id: str) -> dict[str, Any] | None:
    return row_dict(conn.execute("SELECT * FROM s3_objects WHERE bucket = ? AND key = ? AND version_id = ?",
                                 (bucket, key, version_id)).fetchone())


def insert_object(conn: sqlite3.Connection, obj: dict[str, Any]) -> None:
    values = [json.dumps(obj[c]) if c in _JSON else obj.get(c, "") for c in _OBJECT_COLUMNS]
    conn.execute(f"INSERT INTO s3_objects ({', '.join(_OBJECT_COLUMNS)}) VALUES ({', '.join('?' * len(values))})",
                 values)


def unmark_latest(conn: sqlite3.Connection, bucket: str, key: str) -> None:
    conn.execute("UPDATE s3_objects SET latest = 0 WHERE bucket = ? AND key = ? AND latest = 1", (bucket, key))


def delete_version(conn: sqlite3.Connection, bucket: str, key: str, version_id: str) -> None:
    conn.execute("DELETE FROM s3_objects WHERE bucket = ? AND key = ? AND version_id = ?", (bucket, key, version_id))


def promote_newest(conn: sqlite3.Connection, bucket: str, key: str) -> None:
    """After the latest version went: the newest one left becomes the latest."""
    conn.execute("UPDATE s3_objects SET latest = 1 WHERE id = (SELECT id FROM s3_objects WHERE bucket = ? AND key = ? "
                 "ORDER BY id DESC LIMIT 1)", (bucket, key))


def set_acl(conn: sqlite3.Connection, bucket: str, key: str, version_id: str, acl: str) -> None:
    conn.execute("UPDATE s3_objects SET acl = ? WHERE bucket = ? AND key = ? AND version_id = ?",
                 (acl, bucket, key, version_id))


def set_headers(conn: sqlite3.Connection, bucket: str, key: str, version_id: str, headers: dict[str, Any]) -> None:
    conn.execute("UPDATE s3_objects SET headers = ? WHERE bucket = ? AND key = ? AND version_id = ?",
                 (json.dumps(headers), bucket, key, version_id))


def set_tags(conn: sqlite3.Connection, bucket: str, key: str, version_id: str, tags: dict[str, str]) -> None:
    conn.execute("UPDATE s3_objects SET tags = ? WHERE bucket = ? AND key = ? AND version_id = ?",
                 (json.dumps(tags), bucket, key, version_id))


def current_keys(conn: sqlite3.Connection, bucket: str, after: str, prefix: str, limit: int) -> list[dict[str, Any]]:
    """Live objects (not delete markers) with keys after `after` under `prefix`, in key order."""
    rows = conn.execute(
        "SELECT key, size, etag, modified, headers, checksum, version_id FROM s3_objects "
        "WHERE bucket = ? AND latest = 1 AND delete_marker = 0 AND key > ? AND key >= ? AND key < ? "
        "ORDER BY key LIMIT ?", (bucket, after, prefix, prefix + TOP, limit)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def versions_after(conn: sqlite3.Connection, bucket: str, after_key: str, after_id: int | None, prefix: str,
                   limit: int) -> list[dict[str, Any]]:
    """Every version of keys under `prefix`, by key then newest first, from a (key, id) position."""
    args: list[object]
    if after_id is None:
        cond, args = "key > ?", [after_key]
    else:
        cond, args = "(key > ? OR (key = ? AND id < ?))", [after_key, after_key, after_id]
    rows = conn.execute(
        f"SELECT id, key, version_id, latest, delete_marker, size, etag, modified, headers, checksum FROM s3_objects "
        f"WHERE bucket = ? AND {cond} AND key >= ? AND key < ? ORDER BY key, id DESC LIMIT ?",
        (bucket, *args, prefix, prefix + TOP, limit)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def buckets_with(conn: sqlite3.Connection, config: str) -> list[dict[str, Any]]:
    """The buckets that have configuration `config` (e.g. 'lifecycle')."""
    rows = conn.execute("SELECT * FROM s3_buckets WHERE json_extract(configs, ?) IS NOT NULL",
                        (f"$.{config}",)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def versions_under(conn: sqlite3.Connection, bucket: str, prefix: str) -> list[dict[str, Any]]:
    """Every version under `prefix` (no bodies), by key then oldest first: what lifecycle rules weigh."""
    rows = conn.execute(
        "SELECT id, key, version_id, latest, delete_marker, size, etag, modified, tags FROM s3_objects "
        "WHERE bucket = ? AND key >= ? AND key < ? ORDER BY key, id", (bucket, prefix, prefix + TOP)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def restored_versions(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every version with a restored copy (its Restore header), for the expiry of those copies."""
    rows = conn.execute("SELECT bucket, key, version_id, size, etag, headers FROM s3_objects "
                        "WHERE json_extract(headers, '$.Restore') IS NOT NULL").fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def all_segments(conn: sqlite3.Connection) -> set[str]:
    """Every blob id a row names (the start-up sweep keeps these)."""
    names: set[str] = set()
    for table in ("s3_objects", "s3_parts"):
        for (segments,) in conn.execute(f"SELECT segments FROM {table} WHERE segments != '[]'"):
            names.update(blob for blob, _ in json.loads(segments))
    return names


# ---------------------------------------------------------------------- multipart uploads
def insert_upload(conn: sqlite3.Connection, upload_id: str, bucket: str, key: str, initiated: float,
                  fields: dict[str, Any]) -> None:
    conn.execute("INSERT INTO s3_uploads (upload_id, bucket, key, initiated, fields) VALUES (?, ?, ?, ?, ?)",
                 (upload_id, bucket, key, initiated, json.dumps(fields)))


def get_upload(conn: sqlite3.Connection, upload_id: str) -> dict[str, Any] | None:
    return row_dict(conn.execute("SELECT * FROM s3_uploads WHERE upload_id = ?", (upload_id,)).fetchone())


def delete_upload(conn: sqlite3.Connection, upload_id: str) -> list[dict[str, Any]]:
    """Drop an upload and its parts; returns the parts (their blobs are the caller's to remove)."""
    parts = list_parts(conn, upload_id, 0, 1_000_000)
    conn.execute("DELETE FROM s3_parts WHERE upload_id = ?", (upload_id,))
    conn.execute("DELETE FROM s3_uploads WHERE upload_id = ?", (upload_id,))
    return parts


def put_part(conn: sqlite3.Connection, upload_id: str, number: int, part: dict[str, Any]) -> list[str]:
    """Store a part (replacing one of the same number); returns the blobs of the one it replaced."""
    old = conn.execute("SELECT segments FROM s3_parts WHERE upload_id = ? AND number = ?",
                       (upload_id, number)).fetchone()
    conn.execute("INSERT OR REPLACE INTO s3_parts (upload_id, number, size, etag, modified, checksum, inline, "
                 "segments) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (upload_id, number, part["size"], part["etag"], part["modified"], json.dumps(part["checksum"]),
                  part["inline"], json.dumps(part["segments"])))
    return [blob for blob, _ in json.loads(old[0])] if old else []


def list_parts(conn: sqlite3.Connection, upload_id: str, after: int, limit: int) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM s3_parts WHERE upload_id = ? AND number > ? ORDER BY number LIMIT ?",
                        (upload_id, after, limit)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]


def list_uploads(conn: sqlite3.Connection, bucket: str, prefix: str, after_key: str,
                 limit: int) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM s3_uploads WHERE bucket = ? AND key > ? AND key >= ? AND key < ? "
                        "ORDER BY key, initiated LIMIT ?", (bucket, after_key, prefix, prefix + TOP, limit)).fetchall()
    return [row_dict(r) for r in rows]  # type: ignore[misc]
