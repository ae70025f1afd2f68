"""Scheduler SQL: schedule groups and schedules; a schedule's next firing is in its row (the
outbox that delivers it is EventBridge's, events/store.py)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

MIGRATIONS = [
    (
        "scheduler-0001",
        """
        CREATE TABLE scheduler_groups (
            account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, created REAL NOT NULL,
            modified REAL NOT NULL, tags TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (account, region, name)
        );
        CREATE TABLE scheduler_schedules (
            account TEXT NOT NULL, region TEXT NOT NULL, grp TEXT NOT NULL, name TEXT NOT NULL,
            body TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL, modified REAL NOT NULL,
            nominal_next REAL, next_fire REAL, PRIMARY KEY (account, region, grp, name)
        );
        CREATE INDEX scheduler_due ON scheduler_schedules (next_fire) WHERE next_fire IS NOT NULL;
        """,
    ),
]

Key = tuple[str, str]


def get_group(conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM scheduler_groups WHERE account=? AND region=? AND name=?",
                        (*key, name)).fetchone()


def insert_group(conn: sqlite3.Connection, key: Key, name: str, now: float, tags: dict[str, str]) -> None:
    conn.execute("INSERT INTO scheduler_groups (account, region, name, created, modified, tags) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (*key, name, now, now, json.dumps(tags)))


def list_groups(conn: sqlite3.Connection, key: Key) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM scheduler_groups WHERE account=? AND region=? ORDER BY name", key).fetchall()


def delete_group(conn: sqlite3.Connection, key: Key, name: str) -> None:
    conn.execute("DELETE FROM scheduler_schedules WHERE account=? AND region=? AND grp=?", (*key, name))
    conn.execute("DELETE FROM scheduler_groups WHERE account=? AND region=? AND name=?", (*key, name))


def set_group_tags(conn: sqlite3.Connection, key: Key, name: str, tags: dict[str, str]) -> None:
    conn.execute("UPDATE scheduler_groups SET tags=? WHERE account=? AND region=? AND name=?",
                 (json.dumps(tags), *key, name))


def get(conn: sqlite3.Connection, key: Key, group: str, name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM scheduler_schedules WHERE account=? AND region=? AND grp=? AND name=?",
                        (*key, group, name)).fetchone()


def put(conn: sqlite3.Connection, key: Key, group: str, name: str, body: dict[str, Any], state: str,
        created: float, modified: float, nominal_next: float | None, next_fire: float | None) -> None:
    conn.execute(
        "INSERT INTO scheduler_schedules (account, region, grp, name, body, state, created, modified, nominal_next, "
        "next_fire) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account, region, grp, name) DO UPDATE SET "
        "body=excluded.body, state=excluded.state, modified=excluded.modified, nominal_next=excluded.nominal_next, "
        "next_fire=excluded.next_fire",
        (*key, group, name, json.dumps(body, default=str), state, created, modified, nominal_next, next_fire))


def delete(conn: sqlite3.Connection, key: Key, group: str, name: str) -> None:
    conn.execute("DELETE FROM scheduler_schedules WHERE account=? AND region=? AND grp=? AND name=?",
                 (*key, group, name))


def list_schedules(conn: sqlite3.Connection, key: Key, group: str | None) -> list[sqlite3.Row]:
    if group is None:
        return conn.execute("SELECT * FROM scheduler_schedules WHERE account=? AND region=? ORDER BY grp, name",
                            key).fetchall()
    return conn.execute("SELECT * FROM scheduler_schedules WHERE account=? AND region=? AND grp=? ORDER BY name",
                        (*key, group)).fetchall()


def next_fire(conn: sqlite3.Connection) -> float | None:
    row = conn.execute("SELECT MIN(next_fire) FROM scheduler_schedules WHERE next_fire IS NOT NULL").fetchone()
    return row[0] if row else None


def due(conn: sqlite3.Connection, now: float) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM scheduler_schedules WHERE next_fire IS NOT NULL AND next_fire <= ? "
                        "ORDER BY next_fire", (now,)).fetchall()


def set_next(conn: sqlite3.Connection, key: Key, group: str, name: str, nominal: float | None,
             nxt: float | None) -> None:
    conn.execute("UPDATE scheduler_schedules SET nominal_next=?, next_fire=? WHERE account=? AND region=? AND grp=? "
                 "AND name=?", (nominal, nxt, *key, group, name))
