"""Logs Insights SQL: saved query definitions, and the event pages a running query reads."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

MIGRATIONS = [
    (
        "logs-0003",
        """
        CREATE TABLE logs_query_definitions (
            id TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            language TEXT NOT NULL,
            query TEXT NOT NULL,
            groups TEXT NOT NULL,
            modified INTEGER NOT NULL
        );
        CREATE INDEX logs_query_definitions_by_name ON logs_query_definitions (account, region, name);
        """,
    ),
]


def event_page(conn: sqlite3.Connection, group_id: int, start: int, end: int, after: tuple[int, int],
               limit: int, with_message: bool = True) -> list[tuple[int, int, int, int, str, int]]:
    """(id, stream_id, ts, ingested, message, UTF-8 bytes) of a group's events with start <= ts <=
    end after (ts, id), in (ts, id) order: one group per statement, so the (group_id, ts, id) index
    gives the order and a page costs its own rows (an IN over groups would sort the whole range each
    page). Without `with_message` the text is left out ("") and only measured."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: a query reads millions of rows
    text = "message" if with_message else "''"
    return cur.execute(
        f"SELECT id, stream_id, ts, ingested, {text}, length(CAST(message AS BLOB)) FROM logs_events"
        " INDEXED BY logs_events_by_group"
        " WHERE group_id = ? AND ts >= ? AND ts <= ? AND (ts, id) > (?, ?) ORDER BY ts, id LIMIT ?",
        # The page's lower bound on ts is spelled out: SQLite seeks the index by it, not by the row value.
        (group_id, max(start, after[0]), end, *after, limit)).fetchall()


def event_by_id(conn: sqlite3.Connection, account: str, region: str, event_id: int) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT e.id, e.ts, e.ingested, e.message, g.name AS group_name, s.name AS stream_name FROM logs_events e"
        " JOIN logs_groups g ON g.id = e.group_id JOIN logs_streams s ON s.id = e.stream_id"
        " WHERE e.id = ? AND g.account = ? AND g.region = ?", (event_id, account, region)).fetchone()


def definition_shape(row: sqlite3.Row) -> dict[str, Any]:
    out: dict[str, Any] = {"queryLanguage": row["language"], "queryDefinitionId": row["id"], "name": row["name"],
                           "queryString": row["query"], "lastModified": row["modified"]}
    groups = json.loads(row["groups"])
    if groups:
        out["logGroupNames"] = groups
    return out
