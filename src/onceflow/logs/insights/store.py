"""Logs Insights SQL: queries with their results, saved query definitions, and the event pages a
running query reads."""

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
    (
        # A query and its outcome: results outlive a restart, as AWS keeps them for 7 days. start_ms,
        # end_ms and lim are what a query interrupted by a restart is run again with.
        "logs-insights-0001",
        """
        CREATE TABLE logs_queries (
            id TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            query TEXT NOT NULL,
            groups TEXT NOT NULL,
            created INTEGER NOT NULL,
            start_ms INTEGER NOT NULL,
            end_ms INTEGER NOT NULL,
            lim INTEGER,
            status TEXT NOT NULL,
            results TEXT NOT NULL DEFAULT '[]',
            statistics TEXT NOT NULL DEFAULT '{}',
            duration INTEGER NOT NULL DEFAULT 0,
            language TEXT NOT NULL DEFAULT 'CWLI'
        );
        CREATE INDEX logs_queries_by_account ON logs_queries (account, region, created);
        """,
    ),
]

KEPT_S = 7 * 86_400  # AWS keeps a query's results for 7 days
MAX_KEPT = 1000  # and we keep at most this many queries, the newest


def add_query(conn: sqlite3.Connection, row: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO logs_queries (id, account, region, query, groups, created, start_ms, end_ms, lim, status,"
        " language) VALUES (:id, :account, :region, :query, :groups, :created, :start_ms, :end_ms, :lim, :status,"
        " :language)", row)
    conn.execute("DELETE FROM logs_queries WHERE created < ?", (row["created"] - KEPT_S,))
    conn.execute("DELETE FROM logs_queries WHERE rowid <= (SELECT max(rowid) FROM logs_queries) - ?", (MAX_KEPT,))


def finish_query(conn: sqlite3.Connection, query_id: str, status: str, results: list[Any],
                 statistics: dict[str, float], duration: int) -> None:
    conn.execute("UPDATE logs_queries SET status=?, results=?, statistics=?, duration=? WHERE id=?",
                 (status, json.dumps(results), json.dumps(statistics), duration, query_id))


def set_status(conn: sqlite3.Connection, query_id: str, status: str) -> None:
    conn.execute("UPDATE logs_queries SET status=? WHERE id=?", (status, query_id))


def get_query(conn: sqlite3.Connection, account: str, region: str, query_id: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM logs_queries WHERE id=? AND account=? AND region=?",
                        (query_id, account, region)).fetchone()


def list_queries(conn: sqlite3.Connection, account: str, region: str) -> list[sqlite3.Row]:
    """Newest first, without their results."""
    return conn.execute(
        "SELECT id, query, groups, created, status, statistics, duration, language, start_ms, end_ms FROM logs_queries"
        " WHERE account=? AND region=? ORDER BY created DESC, rowid DESC", (account, region)).fetchall()


def unfinished(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM logs_queries WHERE status IN ('Scheduled', 'Running')"
                        " ORDER BY rowid").fetchall()


def event_page(conn: sqlite3.Connection, group_id: int, start: int, end: int, before: tuple[int, int],
               limit: int, with_message: bool = True) -> list[tuple[int, int, int, int, str, int]]:
    """(id, stream_id, ts, ingested, message, UTF-8 bytes) of a group's events with start <= ts <=
    end before (ts, id), newest first ((ts, id) descending: Logs Insights' order when a query does
    not sort, documented under `dedup`): one group per statement, so the (group_id, ts, id) index
    gives the order and a page costs its own rows (an IN over groups would sort the whole range each
    page). Without `with_message` the text is left out ("") and only measured."""
    cur = conn.cursor()
    cur.row_factory = None  # plain tuples: a query reads millions of rows
    text = "message" if with_message else "''"
    return cur.execute(
        f"SELECT id, stream_id, ts, ingested, {text}, length(CAST(message AS BLOB)) FROM logs_events"
        " INDEXED BY logs_events_by_group"
        " WHERE group_id = ? AND ts >= ? AND ts <= ? AND (ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT ?",
        # The page's upper bound on ts is spelled out: SQLite seeks the index by it, not by the row value.
        (group_id, start, min(end, before[0]), *before, limit)).fetchall()


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
