"""EventBridge SQL: buses, rules, targets, and the outbox of deliveries still to make.

The outbox is what makes delivery durable: PutEvents (and a schedule firing) writes one row per
(event, target) in the transaction that acknowledges it, and a row leaves the outbox only once its
delivery succeeded or was given up (to the dead-letter queue). `due` is when it may be tried next;
`claimed` marks rows a delivery thread holds, and is cleared at start (a crash leaves rows claimed).
Every function takes an open connection (writes inside `db.transaction()`).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

MIGRATIONS = [
    (
        "events-0001",
        """
        CREATE TABLE events_buses (
            account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
            description TEXT, policy TEXT, created REAL NOT NULL, modified REAL NOT NULL,
            tags TEXT NOT NULL DEFAULT '{}', extra TEXT NOT NULL DEFAULT '{}',
            PRIMARY KEY (account, region, name)
        );
        CREATE TABLE events_rules (
            account TEXT NOT NULL, region TEXT NOT NULL, bus TEXT NOT NULL, name TEXT NOT NULL,
            pattern TEXT, schedule TEXT, state TEXT NOT NULL, description TEXT, role_arn TEXT,
            managed_by TEXT, created REAL NOT NULL, tags TEXT NOT NULL DEFAULT '{}',
            nominal_next REAL, next_fire REAL,
            PRIMARY KEY (account, region, bus, name)
        );
        CREATE INDEX events_rules_due ON events_rules (next_fire) WHERE next_fire IS NOT NULL;
        CREATE TABLE events_targets (
            account TEXT NOT NULL, region TEXT NOT NULL, bus TEXT NOT NULL, rule TEXT NOT NULL,
            id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, last_result TEXT,
            PRIMARY KEY (account, region, bus, rule, id)
        );
        CREATE TABLE events_outbox (
            id INTEGER PRIMARY KEY, due REAL NOT NULL, claimed INTEGER NOT NULL DEFAULT 0, body TEXT NOT NULL
        );
        CREATE INDEX events_outbox_due ON events_outbox (claimed, due);
        """,
    ),
    (
        "events-0002",
        """
        CREATE TABLE events_archives (
            account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, bus TEXT NOT NULL,
            description TEXT, pattern TEXT, retention INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL,
            PRIMARY KEY (account, region, name)
        );
        CREATE TABLE events_archived (
            id INTEGER PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, archive TEXT NOT NULL,
            ts REAL NOT NULL, event TEXT NOT NULL
        );
        CREATE INDEX events_archived_by_time ON events_archived (account, region, archive, ts);
        CREATE TABLE events_replays (
            account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
            PRIMARY KEY (account, region, name)
        );
        """,
    ),
    ("events-0003",
    """
    CREATE TABLE events_connections (
        account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (account, region, name)
    );
    CREATE TABLE events_destinations (
        account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (account, region, name)
    );
    """),
    ("events-0004",
    """
    CREATE TABLE events_endpoints (
        account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (account, region, name)
    );
    """),
    ("events-0005",
    """
    CREATE TABLE events_partner_sources (
        region TEXT NOT NULL, name TEXT NOT NULL, partner TEXT NOT NULL, account TEXT NOT NULL,
        state TEXT NOT NULL, created REAL NOT NULL, expires REAL,
        PRIMARY KEY (region, name)
    );
    """),
]

Key = tuple[str, str]  # (account, region)


# ------------------------------------------------------------------------------ buses
def get_bus(conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM events_buses WHERE account=? AND region=? AND name=?", (*key, name)).fetchone()


def insert_bus(conn: sqlite3.Connection, key: Key, name: str, now: float, description: str | None,
               tags: dict[str, str], extra: dict[str, Any]) -> None:
    conn.execute("INSERT INTO events_buses (account, region, name, description, created, modified, tags, extra) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 (*key, name, description, now, now, json.dumps(tags), json.dumps(extra)))


def list_buses(conn: sqlite3.Connection, key: Key) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_buses WHERE account=? AND region=? ORDER BY name", key).fetchall()


def delete_bus(conn: sqlite3.Connection, key: Key, name: str) -> None:
    conn.execute("DELETE FROM events_buses WHERE account=? AND region=? AND name=?", (*key, name))
    conn.execute("DELETE FROM events_targets WHERE account=? AND region=? AND bus=?", (*key, name))
    conn.execute("DELETE FROM events_rules WHERE account=? AND region=? AND bus=?", (*key, name))


def set_bus(conn: sqlite3.Connection, key: Key, name: str, **cols: Any) -> None:
    sets = ", ".join(f"{c}=?" for c in cols)
    conn.execute(f"UPDATE events_buses SET {sets} WHERE account=? AND region=? AND name=?",
                 (*cols.values(), *key, name))


# ------------------------------------------------------------------------------ rules
def get_rule(conn: sqlite3.Connection, key: Key, bus: str, name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM events_rules WHERE account=? AND region=? AND bus=? AND name=?",
                        (*key, bus, name)).fetchone()


def put_rule(conn: sqlite3.Connection, key: Key, bus: str, name: str, cols: dict[str, Any]) -> None:
    if get_rule(conn, key, bus, name) is None:
        names = ", ".join(cols)
        marks = ", ".join("?" for _ in cols)
        conn.execute(f"INSERT INTO events_rules (account, region, bus, name, {names}) VALUES (?, ?, ?, ?, {marks})",
                     (*key, bus, name, *cols.values()))
    else:
        update_rule(conn, key, bus, name, **cols)


def update_rule(conn: sqlite3.Connection, key: Key, bus: str, name: str, **cols: Any) -> None:
    sets = ", ".join(f"{c}=?" for c in cols)
    conn.execute(f"UPDATE events_rules SET {sets} WHERE account=? AND region=? AND bus=? AND name=?",
                 (*cols.values(), *key, bus, name))


def delete_rule(conn: sqlite3.Connection, key: Key, bus: str, name: str) -> None:
    conn.execute("DELETE FROM events_targets WHERE account=? AND region=? AND bus=? AND rule=?", (*key, bus, name))
    conn.execute("DELETE FROM events_rules WHERE account=? AND region=? AND bus=? AND name=?", (*key, bus, name))


def list_rules(conn: sqlite3.Connection, key: Key, bus: str, prefix: str = "") -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_rules WHERE account=? AND region=? AND bus=? AND substr(name, 1, ?)=? "
                        "ORDER BY name", (*key, bus, len(prefix), prefix)).fetchall()


def pattern_rules(conn: sqlite3.Connection, key: Key, bus: str) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_rules WHERE account=? AND region=? AND bus=? AND pattern IS NOT NULL "
                        "AND state != 'DISABLED' ORDER BY name", (*key, bus)).fetchall()


def next_rule_fire(conn: sqlite3.Connection) -> float | None:
    row = conn.execute("SELECT MIN(next_fire) FROM events_rules WHERE next_fire IS NOT NULL").fetchone()
    return row[0] if row else None


def due_rules(conn: sqlite3.Connection, now: float) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_rules WHERE next_fire IS NOT NULL AND next_fire <= ? "
                        "ORDER BY next_fire", (now,)).fetchall()


# ------------------------------------------------------------------------------ targets
def targets(conn: sqlite3.Connection, key: Key, bus: str, rule: str) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT body FROM events_targets WHERE account=? AND region=? AND bus=? AND rule=? "
                        "ORDER BY seq", (*key, bus, rule)).fetchall()
    return [json.loads(r[0]) for r in rows]


def target_rows(conn: sqlite3.Connection, key: Key, bus: str, rule: str) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_targets WHERE account=? AND region=? AND bus=? AND rule=? "
                        "ORDER BY seq", (*key, bus, rule)).fetchall()


def put_target(conn: sqlite3.Connection, key: Key, bus: str, rule: str, target: dict[str, Any]) -> None:
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events_targets WHERE account=? AND region=? AND bus=? "
                       "AND rule=?", (*key, bus, rule)).fetchone()[0]
    conn.execute("INSERT INTO events_targets (account, region, bus, rule, id, seq, body) VALUES (?, ?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (account, region, bus, rule, id) DO UPDATE SET body=excluded.body",
                 (*key, bus, rule, target["Id"], seq, json.dumps(target)))


def remove_target(conn: sqlite3.Connection, key: Key, bus: str, rule: str, target_id: str) -> bool:
    cur = conn.execute("DELETE FROM events_targets WHERE account=? AND region=? AND bus=? AND rule=? AND id=?",
                       (*key, bus, rule, target_id))
    return cur.rowcount > 0


def rules_by_target(conn: sqlite3.Connection, key: Key, bus: str, arn: str) -> list[str]:
    rows = conn.execute("SELECT DISTINCT rule FROM events_targets WHERE account=? AND region=? AND bus=? "
                        "AND json_extract(body, '$.Arn')=? ORDER BY rule", (*key, bus, arn)).fetchall()
    return [r[0] for r in rows]


def set_last_result(conn: sqlite3.Connection, key: Key, bus: str, rule: str, target_id: str,
                    result: dict[str, Any]) -> None:
    conn.execute("UPDATE events_targets SET last_result=? WHERE account=? AND region=? AND bus=? AND rule=? AND id=?",
                 (json.dumps(result), *key, bus, rule, target_id))


# ------------------------------------------------------------------------------ outbox
def enqueue(conn: sqlite3.Connection, due: float, job: dict[str, Any]) -> None:
    conn.execute("INSERT INTO events_outbox (due, body) VALUES (?, ?)", (due, json.dumps(job)))


def next_due(conn: sqlite3.Connection) -> float | None:
    row = conn.execute("SELECT MIN(due) FROM events_outbox WHERE claimed=0").fetchone()
    return row[0] if row else None


def claim_due(conn: sqlite3.Connection, now: float, limit: int) -> list[tuple[int, dict[str, Any]]]:
    rows = conn.execute("SELECT id, body FROM events_outbox WHERE claimed=0 AND due <= ? ORDER BY due, id LIMIT ?",
                        (now, limit)).fetchall()
    conn.executemany("UPDATE events_outbox SET claimed=1 WHERE id=?", [(r[0],) for r in rows])
    return [(r[0], json.loads(r[1])) for r in rows]


def finish(conn: sqlite3.Connection, job_id: int) -> None:
    conn.execute("DELETE FROM events_outbox WHERE id=?", (job_id,))


def retry_later(conn: sqlite3.Connection, job_id: int, due: float, job: dict[str, Any]) -> None:
    conn.execute("UPDATE events_outbox SET claimed=0, due=?, body=? WHERE id=?", (due, json.dumps(job), job_id))


def release_all(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE events_outbox SET claimed=0 WHERE claimed=1")


def pending_count(conn: sqlite3.Connection) -> int:
    return conn.execute("SELECT COUNT(*) FROM events_outbox").fetchone()[0]


def rescale(conn: sqlite3.Connection, table: str, column: str, factor: float, now: float) -> None:
    """Stretch the waits still ahead in `table.column` by `factor` (a new time scale). Table and
    column are this package's own names, never a caller's input."""
    conn.execute(f"UPDATE {table} SET {column} = ? + ({column} - ?) * ? WHERE {column} > ?", (now, now, factor, now))


# ------------------------------------------------------------------------------ archives and replays


def get_archive(conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM events_archives WHERE account=? AND region=? AND name=?",
                        (*key, name)).fetchone()


def put_archive(conn: sqlite3.Connection, key: Key, name: str, cols: dict[str, Any]) -> None:
    names = ", ".join(cols)
    marks = ", ".join("?" for _ in cols)
    updates = ", ".join(f"{c}=excluded.{c}" for c in cols)
    conn.execute(f"INSERT INTO events_archives (account, region, name, {names}) VALUES (?, ?, ?, {marks}) "
                 f"ON CONFLICT (account, region, name) DO UPDATE SET {updates}", (*key, name, *cols.values()))


def list_archives(conn: sqlite3.Connection, key: Key) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM events_archives WHERE account=? AND region=? ORDER BY name", key).fetchall()


def delete_archive(conn: sqlite3.Connection, key: Key, name: str) -> None:
    conn.execute("DELETE FROM events_archived WHERE account=? AND region=? AND archive=?", (*key, name))
    conn.execute("DELETE FROM events_archives WHERE account=? AND region=? AND name=?", (*key, name))


def archive_event(conn: sqlite3.Connection, key: Key, archive: str, ts: float, event: dict[str, Any]) -> None:
    conn.execute("INSERT INTO events_archived (account, region, archive, ts, event) VALUES (?, ?, ?, ?, ?)",
                 (*key, archive, ts, json.dumps(event)))


def archive_stats(conn: sqlite3.Connection, key: Key, archive: str) -> tuple[int, int]:
    row = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(event)), 0) FROM events_archived WHERE account=? "
                       "AND region=? AND archive=?", (*key, archive)).fetchone()
    return row[0], row[1]


def archived_between(conn: sqlite3.Connection, key: Key, archive: str, start: float,
                     end: float) -> list[tuple[float, dict[str, Any]]]:
    rows = conn.execute("SELECT ts, event FROM events_archived WHERE account=? AND region=? AND archive=? "
                        "AND ts >= ? AND ts <= ? ORDER BY ts, id", (*key, archive, start, end)).fetchall()
    return [(r[0], json.loads(r[1])) for r in rows]


def get_replay(conn: sqlite3.Connection, key: Key, name: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT body FROM events_replays WHERE account=? AND region=? AND name=?",
                       (*key, name)).fetchone()
    return json.loads(row[0]) if row else None


def put_replay(conn: sqlite3.Connection, key: Key, name: str, body: dict[str, Any]) -> None:
    conn.execute("INSERT INTO events_replays (account, region, name, body) VALUES (?, ?, ?, ?) "
                 "ON CONFLICT (account, region, name) DO UPDATE SET body=excluded.body",
                 (*key, name, json.dumps(body)))


def replays_in_flight(conn: sqlite3.Connection) -> list[tuple[Key, dict[str, Any]]]:
    """Every account's replays still to run or to end (STARTING, CANCELLING)."""
    rows = conn.execute("SELECT account, region, body FROM events_replays").fetchall()
    found = [((r[0], r[1]), json.loads(r[2])) for r in rows]
    return [(key, body) for key, body in found if "_due" in body]


def list_replays(conn: sqlite3.Connection, key: Key) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT body FROM events_replays WHERE account=? AND region=? ORDER BY name", key).fetchall()
    return [json.loads(r[0]) for r in rows]


# ------------------------------------------------------------------------------ connections, API destinations
_JSON_TABLES = frozenset({"events_connections", "events_destinations", "events_endpoints"})  # name -> JSON body tables


def json_get(conn: sqlite3.Connection, table: str, key: Key, name: str) -> dict[str, Any] | None:
    assert table in _JSON_TABLES
    row = conn.execute(f"SELECT body FROM {table} WHERE account=? AND region=? AND name=?", (*key, name)).fetchone()
    return json.loads(row[0]) if row else None


def json_put(conn: sqlite3.Connection, table: str, key: Key, name: str, body: dict[str, Any]) -> None:
    assert table in _JSON_TABLES
    conn.execute(f"INSERT INTO {table} (account, region, name, body) VALUES (?, ?, ?, ?) ON CONFLICT (account, "
                 "region, name) DO UPDATE SET body=excluded.body", (*key, name, json.dumps(body)))


def json_all(conn: sqlite3.Connection, table: str, key: Key) -> list[dict[str, Any]]:
    assert table in _JSON_TABLES
    rows = conn.execute(f"SELECT body FROM {table} WHERE account=? AND region=? ORDER BY name", key).fetchall()
    return [json.loads(r[0]) for r in rows]


def json_all_regions(conn: sqlite3.Connection, table: str, account: str) -> list[tuple[str, dict[str, Any]]]:
    """Every body of `account` in `table`, with its region."""
    assert table in _JSON_TABLES
    rows = conn.execute(f"SELECT region, body FROM {table} WHERE account=? ORDER BY region, name", (account,))
    return [(r[0], json.loads(r[1])) for r in rows.fetchall()]


def json_delete(conn: sqlite3.Connection, table: str, key: Key, name: str) -> None:
    assert table in _JSON_TABLES
    conn.execute(f"DELETE FROM {table} WHERE account=? AND region=? AND name=?", (*key, name))


# ------------------------------------------------------------------------------ partner event sources
def partner_source(conn: sqlite3.Connection, region: str, name: str, now: float) -> sqlite3.Row | None:
    """A partner event source of `region` that has not expired (a PENDING one goes after two weeks)."""
    return conn.execute("SELECT * FROM events_partner_sources WHERE region=? AND name=? AND (expires IS NULL OR "
                        "expires > ?)", (region, name, now)).fetchone()


def partner_sources(conn: sqlite3.Connection, region: str, column: str, value: str, now: float) -> list[sqlite3.Row]:
    assert column in ("partner", "account")
    return conn.execute(f"SELECT * FROM events_partner_sources WHERE region=? AND {column}=? AND (expires IS NULL "
                        "OR expires > ?) ORDER BY name", (region, value, now)).fetchall()


def put_partner_source(conn: sqlite3.Connection, region: str, name: str, partner: str, account: str, state: str,
                       created: float, expires: float | None) -> None:
    conn.execute("INSERT OR REPLACE INTO events_partner_sources VALUES (?, ?, ?, ?, ?, ?, ?)",
                 (region, name, partner, account, state, created, expires))


def set_partner_state(conn: sqlite3.Connection, region: str, name: str, state: str, expires: float | None) -> None:
    conn.execute("UPDATE events_partner_sources SET state=?, expires=? WHERE region=? AND name=?",
                 (state, expires, region, name))


def delete_partner_source(conn: sqlite3.Connection, region: str, name: str, account: str) -> None:
    conn.execute("DELETE FROM events_partner_sources WHERE region=? AND name=? AND account=?", (region, name, account))
