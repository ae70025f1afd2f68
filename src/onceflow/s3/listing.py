"""Listing keys with a prefix and a delimiter: keys that share a prefix up to the delimiter are
rolled up into one common prefix, and the listing jumps past all of them at once."""

from __future__ import annotations

import sqlite3
from typing import Any

from onceflow.s3 import store


def list_current(conn: sqlite3.Connection, bucket: str, prefix: str, delimiter: str, after: str,
                 limit: int) -> tuple[list[dict[str, Any]], list[str], bool, str]:
    """(objects, common prefixes, truncated, the last key or prefix returned), at most `limit` of
    objects and prefixes together, for live keys after `after`."""
    objects: list[dict[str, Any]] = []
    prefixes: list[str] = []
    cursor = after
    if delimiter and after and _common_prefix(after, prefix, delimiter) == after:
        cursor = after + store.TOP  # a marker that is a common prefix: listed already, with all under it
    last = ""
    if limit <= 0:
        more = bool(store.current_keys(conn, bucket, cursor, prefix, 1))
        return [], [], more, ""
    while True:
        rows = store.current_keys(conn, bucket, cursor, prefix, limit + 1)
        if not rows:
            return objects, prefixes, False, last
        for row in rows:
            key = row["key"]
            if key <= cursor:
                continue
            if len(objects) + len(prefixes) == limit:
                return objects, prefixes, True, last
            rolled = _common_prefix(key, prefix, delimiter)
            if rolled is not None:
                prefixes.append(rolled)
                last = rolled
                cursor = rolled + store.TOP  # past every key under it
                break
            objects.append(row)
            last = cursor = key
        else:
            if len(rows) <= limit:
                return objects, prefixes, False, last


def _common_prefix(key: str, prefix: str, delimiter: str) -> str | None:
    if not delimiter:
        return None
    at = key.find(delimiter, len(prefix))
    return key[:at + len(delimiter)] if at >= 0 else None


def list_versions(conn: sqlite3.Connection, bucket: str, prefix: str, delimiter: str, key_marker: str,
                  version_marker_id: int | None, limit: int) -> tuple[list[dict[str, Any]], list[str], bool]:
    """Every version (newest first within a key) after (key_marker, version), with roll-up."""
    out: list[dict[str, Any]] = []
    prefixes: list[str] = []
    cursor_key, cursor_id = key_marker, version_marker_id
    while True:
        rows = store.versions_after(conn, bucket, cursor_key, cursor_id, prefix, limit + 1)
        if not rows:
            return out, prefixes, False
        for row in rows:
            if len(out) + len(prefixes) == limit:
                return out, prefixes, True
            rolled = _common_prefix(row["key"], prefix, delimiter)
            if rolled is not None:
                prefixes.append(rolled)
                cursor_key, cursor_id = rolled + store.TOP, None
                break
            out.append(row)
            cursor_key, cursor_id = row["key"], row["id"]
        else:
            if len(rows) <= limit:
                return out, prefixes, False
