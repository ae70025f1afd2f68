"""CloudWatch Logs SQL: log groups, log streams and events, keyed by account and region.

Events are ordered within a stream and a group by (timestamp, id); `id` grows with ingestion, so
that order is AWS's "timestamp, then ingestion". Every function takes an open connection: callers
run writes inside `db.transaction()` (one transaction per API call) and reads inside `db.read`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

MIGRATIONS = [
    (
        "logs-0001",
        """
        CREATE TABLE logs_groups (
            id INTEGER PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            retention INTEGER,
            kms_key_id TEXT,
            class TEXT NOT NULL DEFAULT 'STANDARD',
            deletion_protection INTEGER NOT NULL DEFAULT 0,
            tags TEXT NOT NULL DEFAULT '{}',
            stored_bytes INTEGER NOT NULL DEFAULT 0,
            UNIQUE (account, region, name)
        );
        CREATE TABLE logs_streams (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            first_ts INTEGER,
            last_ts INTEGER,
            last_ingestion INTEGER,
            upload_seq INTEGER NOT NULL DEFAULT 0,
            UNIQUE (group_id, name)
        );
        CREATE TABLE logs_events (
            id INTEGER PRIMARY KEY,
            group_id INTEGER NOT NULL,
            stream_id INTEGER NOT NULL,
            ts INTEGER NOT NULL,
            ingested INTEGER NOT NULL,
            message TEXT NOT NULL
        );
        CREATE INDEX logs_events_by_stream ON logs_events (stream_id, ts, id);
        CREATE INDEX logs_events_by_group ON logs_events (group_id, ts, id);
        """,
    ),
    (
        "logs-0002",
        """
        CREATE TABLE logs_filters (
            group_id INTEGER NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (group_id, kind, name)
        );
        """,
    ),
    (
        # Deliveries, destinations, export tasks, data protection and account policies (resources.py).
        "logs-0005",
        """
        CREATE TABLE logs_resources (
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (account, region, kind, name)
        );
        """,
    ),
]

Key = tuple[int, int]  # (timestamp, event id): a position in a stream or a group
_TOP = "\U0010ffff"  # above every character: `name < prefix + _TOP` bounds a prefix range


# ------------------------------------------------------------------------------------------- groups
def get_group(conn: sqlite3.Connection, account: str, region: str, name: str) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT * FROM logs_groups WHERE account=? AND region=? AND name=?", (account, region, name)
    ).fetchone()


def insert_group(
    conn: sqlite3.Connection,
    account: str,
    region: str,
    name: str,
    created: int,
    *,
    kms_key_id: str | None = None,
    log_class: str = "STANDARD",
    deletion_protection: bool = False,
    tags: dict[str, str] | None = None,
) -> int:
    cur = conn.execute(
        "INSERT INTO logs_groups (account, region, name, created, kms_key_id, class, deletion_protection,"
        " tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (account, region, name, created, kms_key_id, log_class, int(deletion_protection),
         json.dumps(tags or {})),
    )
    return int(cur.lastrowid or 0)


def delete_group(conn: sqlite3.Connection, group_id: int) -> None:
    # Its data protection and field index policies (logs_resources: policies.py, index_policies.py) go with it.
    conn.execute("DELETE FROM logs_resources WHERE kind IN ('data-protection-policy', 'index-policy', 'index-inactive')"
                 " AND (account, region, name) ="
                 " (SELECT account, region, name FROM logs_groups WHERE id=?)", (group_id,))
    conn.execute("DELETE FROM logs_filters WHERE group_id=?", (group_id,))
    conn.execute("DELETE FROM logs_events WHERE group_id=?", (group_id,))
    conn.execute("DELETE FROM logs_streams WHERE group_id=?", (group_id,))
    conn.execute("DELETE FROM logs_groups WHERE id=?", (group_id,))


# Column order is what service._group_shape unpacks.
_LISTED = (
    "name, created, retention, kms_key_id, class, deletion_protection, stored_bytes, (SELECT COUNT(*) FROM"
    " logs_filters f WHERE f.group_id = logs_groups.id AND f.kind = 'metric') AS metric_filters,"
    # A group's own data protection policy, looked for only when the account has any (evaluated once).
    " CASE WHEN EXISTS (SELECT 1 FROM logs_resources d WHERE d.account = ? AND d.region = ? AND d.kind ="
    " 'data-protection-policy') THEN EXISTS (SELECT 1 FROM logs_resources r WHERE r.account ="
    " logs_groups.account AND r.region = logs_groups.region AND r.kind = 'data-protection-policy' AND r.name ="
    " logs_groups.name) ELSE 0 END AS protected,"
    # The account's own data protection policy (policies.py), the same for every row: evaluated once.
    " EXISTS (SELECT 1 FROM logs_resources a WHERE a.account = ? AND a.region = ? AND a.kind = 'account-policy'"
    " AND a.name >= 'DATA_PROTECTION_POLICY/' AND a.name < 'DATA_PROTECTION_POLICY0') AS account_protected"
)


def list_groups(
    conn: sqlite3.Connection,
    account: str,
    region: str,
    *,
    prefix: str | None,
    pattern: str | None,
    log_class: str | None,
    after: str | None,
    limit: int,
    names: Sequence[str] | None = None,
) -> list[sqlite3.Row]:
    sql = [f"SELECT {_LISTED} FROM logs_groups WHERE account=? AND region=?"]
    args: list[Any] = [account, region, account, region, account, region]
    if names is not None:
        sql.append(f"AND name IN ({','.join('?' * len(names))})")
        args += list(names)
    if prefix:
        sql.append("AND name >= ? AND name < ?")
        args += [prefix, prefix + _TOP]
    if pattern:
        sql.append("AND instr(name, ?) > 0")  # case-sensitive substring (model documentation)
        args.append(pattern)
    if log_class:
        sql.append("AND class=?")
        args.append(log_class)
    if after is not None:
        sql.append("AND name > ?")
        args.append(after)
    sql.append("ORDER BY name LIMIT ?")
    args.append(limit)
    return conn.execute(" ".join(sql), args).fetchall()


def set_retention(conn: sqlite3.Connection, group_id: int, days: int | None) -> None:
    conn.execute("UPDATE logs_groups SET retention=? WHERE id=?", (days, group_id))


def set_deletion_protection(conn: sqlite3.Connection, group_id: int, enabled: bool) -> None:
    conn.execute("UPDATE logs_groups SET deletion_protection=? WHERE id=?", (int(enabled), group_id))


def set_kms_key(conn: sqlite3.Connection, group_id: int, key: str | None) -> None:
    conn.execute("UPDATE logs_groups SET kms_key_id=? WHERE id=?", (key, group_id))


def set_tags(conn: sqlite3.Connection, group_id: int, tags: dict[str, str]) -> None:
    conn.execute("UPDATE logs_groups SET tags=? WHERE id=?", (json.dumps(tags, sort_keys=True), group_id))


# ------------------------------------------------------------------------------------------ streams
def get_stream(conn: sqlite3.Connection, group_id: int, name: str) -> sqlite3.Row | None:
    return conn.execute(
        "SELECT * FROM logs_streams WHERE group_id=? AND name=?", (group_id, name)
    ).fetchone()


def insert_stream(conn: sqlite3.Connection, group_id: int, name: str, created: int) -> int:
    cur = conn.execute(
        "INSERT INTO logs_streams (group_id, name, created) VALUES (?, ?, ?)", (group_id, name, created)
    )
    return int(cur.lastrowid or 0)


def delete_stream(conn: sqlite3.Connection, group_id: int, stream_id: int) -> None:
    freed = conn.execute(
        "SELECT coalesce(sum(length(CAST(message AS BLOB))), 0) FROM logs_events WHERE stream_id=?",
        (stream_id,),
    ).fetchone()[0]
    conn.execute("DELETE FROM logs_events WHERE stream_id=?", (stream_id,))
    conn.execute("DELETE FROM logs_streams WHERE id=?", (stream_id,))
    conn.execute("UPDATE logs_groups SET stored_bytes = stored_bytes - ? WHERE id=?", (freed, group_id))


def list_streams(
    conn: sqlite3.Connection,
    group_id: int,
    *,
    prefix: str | None,
    by_time: bool,
    descending: bool,
    after: tuple[int, str] | None,
    limit: int,
) -> list[sqlite3.Row]:
    """Streams in name or last-event-time order; `after` is the (time, name) of the previous page's last."""
    order_key = "coalesce(last_ts, 0)" if by_time else "0"
    sql = [f"SELECT *, {order_key} AS order_ts FROM logs_streams WHERE group_id=?"]
    args: list[Any] = [group_id]
    if prefix:
        sql.append("AND name >= ? AND name < ?")
        args += [prefix, prefix + _TOP]
    if after is not None:
        sql.append(f"AND ({order_key}, name) {'<' if descending else '>'} (?, ?)")
        args += list(after)
    direction = "DESC" if descending else "ASC"
    sql.append(f"ORDER BY order_ts {direction}, name {direction} LIMIT ?")
    args.append(limit)
    return conn.execute(" ".join(sql), args).fetchall()


def streams_named(conn: sqlite3.Connection, group_id: int, names: Sequence[str]) -> list[sqlite3.Row]:
    marks = ",".join("?" * len(names))
    return conn.execute(
        f"SELECT id, name FROM logs_streams WHERE group_id=? AND name IN ({marks})", (group_id, *names)
    ).fetchall()


def streams_with_prefix(conn: sqlite3.Connection, group_id: int, prefix: str) -> list[sqlite3.Row]:
    return conn.execute(
        "SELECT id, name FROM logs_streams WHERE group_id=? AND name >= ? AND name < ?",
        (group_id, prefix, prefix + _TOP),
    ).fetchall()


def stream_names(conn: sqlite3.Connection, group_id: int) -> dict[int, str]:
    rows = conn.execute("SELECT id, name FROM logs_streams WHERE group_id=?", (group_id,))
    return {row[0]: row[1] for row in rows}


# ------------------------------------------------------------------------------------------- events
def insert_events(
    conn: sqlite3.Connection, group_id: int, stream_id: int, events: Sequence[tuple[int, str]], ingested: int
) -> None:
    """Append events (already sorted by timestamp) and update the stream's and group's counters."""
    if not events:
        return
    conn.executemany(
        "INSERT INTO logs_events (group_id, stream_id, ts, ingested, message) VALUES (?, ?, ?, ?, ?)",
        [(group_id, stream_id, ts, ingested, message) for ts, message in events],
    )
    first, last = events[0][0], events[-1][0]
    conn.execute(
        "UPDATE logs_streams SET first_ts = min(coalesce(first_ts, ?), ?), last_ts = max(coalesce(last_ts, ?), ?),"
        " last_ingestion=?, upload_seq = upload_seq + 1 WHERE id=?",
        (first, first, last, last, ingested, stream_id),
    )
    size = sum(len(message.encode("utf-8")) for _, message in events)
    conn.execute("UPDATE logs_groups SET stored_bytes = stored_bytes + ? WHERE id=?", (size, group_id))


def stream_events(
    conn: sqlite3.Connection,
    stream_id: int,
    *,
    start: int | None,
    end: int | None,
    after: Key | None = None,
    before: Key | None = None,
    limit: int,
    newest_first: bool = False,
) -> list[sqlite3.Row]:
    """Events of one stream in [start, end) strictly between `after` and `before`."""
    sql = ["SELECT id, ts, ingested, message FROM logs_events WHERE stream_id=?"]
    args: list[Any] = [stream_id]
    _bounds(sql, args, start, end, end_inclusive=False, after=after, before=before)
    sql.append(f"ORDER BY ts {'DESC' if newest_first else 'ASC'}, id {'DESC' if newest_first else 'ASC'}")
    sql.append("LIMIT ?")
    args.append(limit)
    return conn.execute(" ".join(sql), args).fetchall()


def group_events(
    conn: sqlite3.Connection,
    group_id: int,
    stream_ids: Iterable[int] | None,
    *,
    start: int | None,
    end: int | None,
    after: Key | None,
    limit: int,
) -> list[sqlite3.Row]:
    """Events of a group (optionally some streams) in [start, end], after `after`, by (ts, id)."""
    sql = ["SELECT id, stream_id, ts, ingested, message FROM logs_events WHERE group_id=?"]
    args: list[Any] = [group_id]
    if stream_ids is not None:
        ids = list(stream_ids)
        sql.append(f"AND stream_id IN ({','.join('?' * len(ids))})")
        args += ids
    _bounds(sql, args, start, end, end_inclusive=True, after=after, before=None)
    sql.append("ORDER BY ts, id LIMIT ?")
    args.append(limit)
    return conn.execute(" ".join(sql), args).fetchall()


def _bounds(
    sql: list[str],
    args: list[Any],
    start: int | None,
    end: int | None,
    *,
    end_inclusive: bool,
    after: Key | None,
    before: Key | None,
) -> None:
    if start is not None:
        sql.append("AND ts >= ?")
        args.append(start)
    if end is not None:
        sql.append("AND ts <= ?" if end_inclusive else "AND ts < ?")
        args.append(end)
    if after is not None:
        sql.append("AND (ts, id) > (?, ?)")
        args += list(after)
    if before is not None:
        sql.append("AND (ts, id) < (?, ?)")
        args += list(before)


# ---------------------------------------------------------------------------------- metric and subscription filters
def filters(conn: sqlite3.Connection, group_id: int, kind: str) -> list[dict[str, Any]]:
    """A group's filters of one kind ('metric' or 'subscription'), by name."""
    rows = conn.execute(
        "SELECT name, created, data FROM logs_filters WHERE group_id=? AND kind=? ORDER BY name", (group_id, kind)
    ).fetchall()
    return [{"name": r[0], "created": r[1], **json.loads(r[2])} for r in rows]


def put_filter(conn: sqlite3.Connection, group_id: int, kind: str, name: str, created: int, data: Any) -> None:
    conn.execute(
        "INSERT INTO logs_filters (group_id, kind, name, created, data) VALUES (?,?,?,?,?)"
        " ON CONFLICT (group_id, kind, name) DO UPDATE SET data=excluded.data",
        (group_id, kind, name, created, json.dumps(data)),
    )


def delete_filter(conn: sqlite3.Connection, group_id: int, kind: str, name: str) -> int:
    cur = conn.execute("DELETE FROM logs_filters WHERE group_id=? AND kind=? AND name=?", (group_id, kind, name))
    return cur.rowcount

