"""SQL for Step Functions: state machines, executions, their history events, timers and task tokens.

The history (sfn_history, keyed by the execution's seq; sfn_events is its view by ARN) is the source
of truth for an execution; the execution row is a summary written in the same transaction as the
events that change it, so reads never fold whole histories.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring as quote  # a JSON string literal, non-ASCII kept
from typing import Any

from onceflow.sfn.asl.json_text import dumps as dumps  # the one payload encoder (engine/events.py)
from onceflow.store.db import Database

MIGRATIONS = [
    (
        "sfn-0001",
        """
CREATE TABLE sfn_state_machines (
  arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
  type TEXT NOT NULL, definition TEXT NOT NULL, role_arn TEXT NOT NULL, created REAL NOT NULL,
  updated REAL, config TEXT NOT NULL, revision_id TEXT, description TEXT);
CREATE INDEX sfn_sm_by_account ON sfn_state_machines (account, region, name);
CREATE TABLE sfn_tags (arn TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (arn, key));
CREATE TABLE sfn_executions (
  arn TEXT PRIMARY KEY, sm_arn TEXT NOT NULL, account TEXT NOT NULL, region TEXT NOT NULL,
  name TEXT NOT NULL, status TEXT NOT NULL, input TEXT NOT NULL, output TEXT, error TEXT, cause TEXT,
  start REAL NOT NULL, stop REAL, definition TEXT NOT NULL, role_arn TEXT NOT NULL, type TEXT NOT NULL,
  redrive_count INTEGER NOT NULL DEFAULT 0, redrive_date REAL, seq INTEGER NOT NULL);
CREATE INDEX sfn_exec_by_sm ON sfn_executions (sm_arn, seq);
CREATE INDEX sfn_exec_running ON sfn_executions (status);
CREATE TABLE sfn_events (
  exec_arn TEXT NOT NULL, id INTEGER NOT NULL, prev INTEGER NOT NULL, type TEXT NOT NULL,
  ts REAL NOT NULL, details TEXT, fiber TEXT NOT NULL, PRIMARY KEY (exec_arn, id)) WITHOUT ROWID;
CREATE TABLE sfn_timers (exec_arn TEXT PRIMARY KEY, due REAL NOT NULL);
CREATE TABLE sfn_tokens (
  token TEXT PRIMARY KEY, exec_arn TEXT NOT NULL, status TEXT NOT NULL, output TEXT, error TEXT,
  cause TEXT, heartbeat REAL);
CREATE INDEX sfn_tokens_by_exec ON sfn_tokens (exec_arn);
""",
    ),
    (
        "sfn-0002",
        """
CREATE TABLE sfn_superseded (exec_arn TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (exec_arn, id)) WITHOUT ROWID;
""",
    ),
    ("sfn-0003", "CREATE INDEX sfn_exec_seq ON sfn_executions (seq);"),
    (
        "sfn-0004",
        # A task call handed to a Lambda worker or a service (by its ...Started event id): after a
        # crash, a started task without this mark provably never ran and is simply started again.
        "CREATE TABLE sfn_dispatched (exec_arn TEXT NOT NULL, event_id INTEGER NOT NULL, "
        "PRIMARY KEY (exec_arn, event_id)) WITHOUT ROWID;",
    ),
    (
        "sfn-0005",
        # Versions are frozen copies of a machine's revision; aliases route to one or two of them.
        # An execution remembers the version and alias it was started through.
        """
CREATE TABLE sfn_versions (
  arn TEXT PRIMARY KEY, sm_arn TEXT NOT NULL, number INTEGER NOT NULL, definition TEXT NOT NULL,
  role_arn TEXT NOT NULL, config TEXT NOT NULL, revision_id TEXT, description TEXT, created REAL NOT NULL);
CREATE INDEX sfn_versions_by_sm ON sfn_versions (sm_arn, number);
CREATE TABLE sfn_aliases (
  arn TEXT PRIMARY KEY, sm_arn TEXT NOT NULL, name TEXT NOT NULL, description TEXT, routing TEXT NOT NULL,
  created REAL NOT NULL, updated REAL NOT NULL);
CREATE INDEX sfn_aliases_by_sm ON sfn_aliases (sm_arn, name);
ALTER TABLE sfn_state_machines ADD COLUMN last_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sfn_executions ADD COLUMN version_arn TEXT;
ALTER TABLE sfn_executions ADD COLUMN alias_arn TEXT;
""",
    ),
    (
        "sfn-0006",
        # Activities, and the tasks waiting for a worker (oldest first). A task's token is an
        # ordinary sfn_tokens row; GetActivityTask takes the queue row and marks the start signal.
        """
CREATE TABLE sfn_activities (
  arn TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL, created REAL NOT NULL,
  config TEXT NOT NULL);
CREATE INDEX sfn_activities_by_account ON sfn_activities (account, region, created);
CREATE TABLE sfn_activity_tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, activity_arn TEXT NOT NULL, token TEXT NOT NULL UNIQUE,
  exec_arn TEXT NOT NULL, input TEXT NOT NULL);
CREATE INDEX sfn_activity_tasks_by_activity ON sfn_activity_tasks (activity_arn, seq);
""",
    ),
    (
        "sfn-0007",
        # A nested execution started with .sync / .sync:2: its end completes the parent's token.
        """
CREATE TABLE sfn_children (
  child_arn TEXT PRIMARY KEY, parent_arn TEXT NOT NULL, token TEXT NOT NULL, mode TEXT NOT NULL);
CREATE INDEX sfn_children_by_parent ON sfn_children (parent_arn);
CREATE INDEX sfn_children_by_token ON sfn_children (token);
""",
    ),
    (
        "sfn-mock-0001",
        # The mocked test case an execution runs (sfn/mocks.py TestCase JSON), NULL for a real one.
        "ALTER TABLE sfn_executions ADD COLUMN mock_case TEXT;",
    ),
    (
        "sfn-maprun-0001",
        # Distributed Map runs and their child executions (sfn/maprun.py), written in the parent's
        # commits; a child's events are the rows of its hidden fiber in the execution that runs it
        # (root_arn: exec_arn itself, or for a map run inside a child, the top execution).
        """
CREATE TABLE sfn_map_runs (
  arn TEXT PRIMARY KEY, exec_arn TEXT NOT NULL, sm_arn TEXT NOT NULL, label TEXT NOT NULL,
  child_type TEXT NOT NULL, status TEXT NOT NULL, start REAL NOT NULL, stop REAL,
  max_concurrency INTEGER NOT NULL, tolerated_count INTEGER, tolerated_percentage REAL,
  total_items INTEGER NOT NULL, total_execs INTEGER NOT NULL, written INTEGER NOT NULL DEFAULT 0,
  error TEXT, cause TEXT, seq INTEGER NOT NULL, redrive_count INTEGER NOT NULL DEFAULT 0, redrive_date REAL,
  definition TEXT NOT NULL, root_arn TEXT NOT NULL);
CREATE INDEX sfn_map_runs_by_exec ON sfn_map_runs (exec_arn, status);
CREATE INDEX sfn_map_runs_by_root ON sfn_map_runs (root_arn, status);
CREATE TABLE sfn_map_children (
  arn TEXT PRIMARY KEY, run_arn TEXT NOT NULL, idx INTEGER NOT NULL, name TEXT NOT NULL, fiber TEXT NOT NULL,
  items INTEGER NOT NULL, status TEXT NOT NULL, input TEXT NOT NULL, output TEXT, error TEXT, cause TEXT,
  start REAL NOT NULL, stop REAL, redrive_count INTEGER NOT NULL DEFAULT 0, redrive_date REAL,
  attempts TEXT NOT NULL DEFAULT '[]');
CREATE INDEX sfn_map_children_by_run ON sfn_map_children (run_arn, status);
""",
    ),
    (
        "sfn-0008",
        # History rows keyed by their execution's seq (an integer, unique: each is MAX + 1 under the
        # write lock, and executions are never deleted but all at once by a reset) instead of its
        # ~85-byte ARN in every row; sfn_events stays as a view of them, by ARN.
        """
CREATE TABLE sfn_history (
  exec_seq INTEGER NOT NULL, id INTEGER NOT NULL, prev INTEGER NOT NULL, type TEXT NOT NULL,
  ts REAL NOT NULL, details TEXT, fiber TEXT NOT NULL, PRIMARY KEY (exec_seq, id)) WITHOUT ROWID;
INSERT INTO sfn_history (exec_seq, id, prev, type, ts, details, fiber)
  SELECT x.seq, e.id, e.prev, e.type, e.ts, e.details, e.fiber FROM sfn_events e
  JOIN sfn_executions x ON x.arn = e.exec_arn;
DROP TABLE sfn_events;
CREATE VIEW sfn_events (exec_arn, id, prev, type, ts, details, fiber) AS
  SELECT x.arn, h.id, h.prev, h.type, h.ts, h.details, h.fiber FROM sfn_history h
  JOIN sfn_executions x ON x.seq = h.exec_seq;
""",
    ),
]

# An execution's seq, the key of its history rows, in a WHERE (a scalar subquery: evaluated once).
_SEQ_OF = "(SELECT seq FROM sfn_executions WHERE arn=?)"

EXEC_COLUMNS = (
    "arn, sm_arn, account, region, name, status, input, output, error, cause, start, stop, "
    "definition, role_arn, type, redrive_count, redrive_date, seq, version_arn, alias_arn, mock_case"
)


_NOT_TRUNCATED = '{"truncated":false}'
# Member names as encoded, with their colon: events have a few dozen ("name", "input", ...).
_KEYS: dict[str, str] = {}


def encode_details(details: dict[str, Any]) -> str:
    """An event's details as stored: the very text `dumps` writes, built member by member.

    Most members are strings (payloads already encoded as JSON text) or {"truncated": false};
    quoting those directly is several times cheaper than the encoder's walk of the dict, and
    storing the events was the largest part of a chain of Pass states."""
    parts = []
    for key, value in details.items():
        head = _KEYS.get(key)
        if head is None:
            head = quote(key) + ":"
            if len(_KEYS) < 256:  # bounded: a Parameters-built detail could bring any name
                _KEYS[key] = head
        kind = type(value)
        if kind is str:
            parts.append(head + quote(value))
        elif kind is dict and len(value) == 1 and value.get("truncated") is False:
            parts.append(head + _NOT_TRUNCATED)
        else:
            parts.append(head + dumps(value))
    return "{" + ",".join(parts) + "}"


INSERT_ROWS = 128  # rows per INSERT at most: 769 parameters, under even an old SQLite's 999


@functools.cache
def _insert_events(rows: int) -> str:
    """INSERT of `rows` history events of one execution (its seq: parameter 1); rows is a power of
    two up to INSERT_ROWS, so 8 texts, each prepared once per connection (sqlite3's statement cache)."""
    return ("INSERT INTO sfn_history (exec_seq, id, prev, type, ts, details, fiber) VALUES "
            + ",".join(["(?1,?,?,?,?,?,?)"] * rows))


class SfnStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Called with (conn, exec_arn, events) in the transaction that appends them (execution logs).
        self.on_append: list[Callable[[sqlite3.Connection, str, list[Any]], None]] = []
        # Called with (conn, token) in the transaction that marks a task token timed out (nested .sync).
        self.on_token_timed_out: list[Callable[[sqlite3.Connection, str], None]] = []

    # ------------------------------------------------------------------ state machines
    def get_machine(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one("SELECT * FROM sfn_state_machines WHERE arn=?", (arn,))

    def insert_machine(self, conn: sqlite3.Connection, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT INTO sfn_state_machines ({cols}) VALUES ({marks})", tuple(row.values()))

    def update_machine(self, conn: sqlite3.Connection, arn: str, changes: dict[str, Any]) -> None:
        sets = ", ".join(f"{k}=?" for k in changes)
        conn.execute(f"UPDATE sfn_state_machines SET {sets} WHERE arn=?", (*changes.values(), arn))

    def delete_machine(self, conn: sqlite3.Connection, arn: str) -> None:
        conn.execute("DELETE FROM sfn_state_machines WHERE arn=?", (arn,))
        conn.execute("DELETE FROM sfn_tags WHERE arn=?", (arn,))

    def list_machines(self, account: str, region: str) -> list[sqlite3.Row]:
        return self.db.query(
            "SELECT * FROM sfn_state_machines WHERE account=? AND region=? ORDER BY created, arn",
            (account, region),
        )

    # ------------------------------------------------------------------ tags
    def tags(self, arn: str) -> list[tuple[str, str]]:
        rows = self.db.query("SELECT key, value FROM sfn_tags WHERE arn=? ORDER BY rowid", (arn,))
        return [(r[0], r[1]) for r in rows]

    def put_tags(self, conn: sqlite3.Connection, arn: str, tags: Iterable[tuple[str, str]]) -> None:
        for key, value in tags:
            conn.execute(
                "INSERT INTO sfn_tags (arn, key, value) VALUES (?,?,?) "
                "ON CONFLICT(arn, key) DO UPDATE SET value=excluded.value",
                (arn, key, value),
            )

    def remove_tags(self, conn: sqlite3.Connection, arn: str, keys: Iterable[str]) -> None:
        for key in keys:
            conn.execute("DELETE FROM sfn_tags WHERE arn=? AND key=?", (arn, key))

    # ------------------------------------------------------------------ executions
    def get_execution(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one(f"SELECT {EXEC_COLUMNS} FROM sfn_executions WHERE arn=?", (arn,))

    def execution_in(self, conn: sqlite3.Connection, arn: str) -> sqlite3.Row | None:
        """The execution's row as the transaction on `conn` sees it."""
        row: sqlite3.Row | None = conn.execute(f"SELECT {EXEC_COLUMNS} FROM sfn_executions WHERE arn=?",
                                               (arn,)).fetchone()
        return row

    def insert_execution(self, conn: sqlite3.Connection, row: dict[str, Any]) -> None:
        # The next seq (ListExecutions' order) computed by the INSERT itself: one statement, not two.
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT INTO sfn_executions ({cols}, seq) VALUES ({marks}, "
                     "(SELECT COALESCE(MAX(seq), 0) + 1 FROM sfn_executions))", tuple(row.values()))

    def update_execution(self, conn: sqlite3.Connection, arn: str, changes: dict[str, Any]) -> None:
        sets = ", ".join(f"{k}=?" for k in changes)
        conn.execute(f"UPDATE sfn_executions SET {sets} WHERE arn=?", (*changes.values(), arn))

    def list_executions(self, sm_arn: str, status: str | None) -> list[sqlite3.Row]:
        sql = f"SELECT {EXEC_COLUMNS} FROM sfn_executions WHERE sm_arn=?"
        args: list[Any] = [sm_arn]
        if status:
            sql += " AND status=?"
            args.append(status)
        return self.db.query(sql + " ORDER BY seq DESC", args)

    def running_executions(self) -> list[str]:
        return [r[0] for r in self.db.query("SELECT arn FROM sfn_executions WHERE status='RUNNING'")]

    # ------------------------------------------------------------------ history
    def events(self, exec_arn: str) -> list[sqlite3.Row]:
        return self.db.query(
            f"SELECT id, prev, type, ts, details, fiber FROM sfn_history WHERE exec_seq={_SEQ_OF} ORDER BY id",
            (exec_arn,))

    def visible_events(self, exec_arn: str, reverse: bool = False, offset: int = 0,
                       limit: int = -1) -> list[sqlite3.Row]:
        """One page of the history API's events (hidden child-run events have negative ids)."""
        order = "DESC" if reverse else "ASC"
        return self.db.query(
            f"SELECT id, prev, type, ts, details, fiber FROM sfn_history WHERE exec_seq={_SEQ_OF} AND id>0 "
            f"ORDER BY id {order} LIMIT ? OFFSET ?",
            (exec_arn, limit, offset),
        )

    def append_events(self, conn: sqlite3.Connection, exec_arn: str, events: Iterable[Any],
                      seq: int | None = None) -> None:
        """Append events to the history of an execution whose row exists (in this transaction);
        `seq`: its row's seq where the caller has just read it."""
        events = list(events)
        if not events:
            return
        if seq is None:
            found = conn.execute("SELECT seq FROM sfn_executions WHERE arn=?", (exec_arn,)).fetchone()
            if found is None:
                raise LookupError(f"no execution {exec_arn} to append events to")
            seq = found[0]
        values: list[Any] = []
        for e in events:
            values += (e.id, e.prev, e.type, e.ts,
                       e.text if e.text is not None else None if e.details is None else encode_details(e.details),
                       e.fiber)
        # A few multi-row INSERTs (sizes: the powers of two that add up to the batch) instead of one
        # statement step per row, the execution's seq bound once per statement (?1 in every row).
        at, left = 0, len(events)
        while left:
            size = min(INSERT_ROWS, 1 << (left.bit_length() - 1))
            conn.execute(_insert_events(size), (seq, *values[at:at + 6 * size]))
            at, left = at + 6 * size, left - size
        for hook in self.on_append:
            hook(conn, exec_arn, events)

    def superseded(self, exec_arn: str) -> set[int]:
        """Events a redrive set aside: still in the history, no longer replayed."""
        return {r[0] for r in self.db.query("SELECT id FROM sfn_superseded WHERE exec_arn=?", (exec_arn,))}

    def supersede(self, conn: sqlite3.Connection, exec_arn: str, ids: Iterable[int]) -> None:
        conn.executemany("INSERT OR IGNORE INTO sfn_superseded (exec_arn, id) VALUES (?, ?)",
                         [(exec_arn, i) for i in ids])

    # ------------------------------------------------------------------ hand-over marks
    def mark_dispatched(self, conn: sqlite3.Connection, exec_arn: str, event_id: int) -> None:
        conn.execute("INSERT OR IGNORE INTO sfn_dispatched (exec_arn, event_id) VALUES (?, ?)", (exec_arn, event_id))

    def dispatched(self, exec_arn: str) -> set[int]:
        return {r[0] for r in self.db.query("SELECT event_id FROM sfn_dispatched WHERE exec_arn=?", (exec_arn,))}

    def clear_dispatched(self, conn: sqlite3.Connection, exec_arn: str) -> None:
        conn.execute("DELETE FROM sfn_dispatched WHERE exec_arn=?", (exec_arn,))

    # ------------------------------------------------------------------ timers
    def set_timer(self, conn: sqlite3.Connection, exec_arn: str, due: float | None) -> None:
        if due is None:
            conn.execute("DELETE FROM sfn_timers WHERE exec_arn=?", (exec_arn,))
        else:
            conn.execute(
                "INSERT INTO sfn_timers (exec_arn, due) VALUES (?, ?) "
                "ON CONFLICT(exec_arn) DO UPDATE SET due=excluded.due",
                (exec_arn, due),
            )

    def timers(self) -> list[tuple[str, float]]:
        return [(r[0], r[1]) for r in self.db.query("SELECT exec_arn, due FROM sfn_timers")]

    # ------------------------------------------------------------------ task tokens
    def insert_token(self, conn: sqlite3.Connection, token: str, exec_arn: str, now: float) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO sfn_tokens (token, exec_arn, status, heartbeat) VALUES (?,?,'WAITING',?)",
            (token, exec_arn, now),
        )

    def get_token(self, token: str) -> sqlite3.Row | None:
        return self.db.query_one("SELECT * FROM sfn_tokens WHERE token=?", (token,))

    def complete_token(
        self, conn: sqlite3.Connection, token: str, status: str, output: str | None, error: str | None,
        cause: str | None,
    ) -> None:
        conn.execute(
            "UPDATE sfn_tokens SET status=?, output=?, error=?, cause=? WHERE token=?",
            (status, output, error, cause, token),
        )
        if status == "TIMED_OUT":
            for hook in self.on_token_timed_out:
                hook(conn, token)

    def heartbeat_token(self, conn: sqlite3.Connection, token: str, now: float) -> None:
        conn.execute("UPDATE sfn_tokens SET heartbeat=? WHERE token=?", (now, token))

    def close_tokens(self, conn: sqlite3.Connection, exec_arn: str) -> None:
        conn.execute("UPDATE sfn_tokens SET status='CLOSED' WHERE exec_arn=? AND status='WAITING'", (exec_arn,))

    # ------------------------------------------------------------------ versions and aliases
    def get_version(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one("SELECT * FROM sfn_versions WHERE arn=?", (arn,))

    def versions(self, sm_arn: str) -> list[sqlite3.Row]:
        """Newest first, as ListStateMachineVersions orders them."""
        return self.db.query("SELECT * FROM sfn_versions WHERE sm_arn=? ORDER BY number DESC", (sm_arn,))

    def insert_version(self, conn: sqlite3.Connection, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT INTO sfn_versions ({cols}) VALUES ({marks})", tuple(row.values()))

    def delete_version(self, conn: sqlite3.Connection, arn: str) -> None:
        conn.execute("DELETE FROM sfn_versions WHERE arn=?", (arn,))

    def get_alias(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one("SELECT * FROM sfn_aliases WHERE arn=?", (arn,))

    def aliases(self, sm_arn: str) -> list[sqlite3.Row]:
        return self.db.query("SELECT * FROM sfn_aliases WHERE sm_arn=? ORDER BY created, arn", (sm_arn,))

    def put_alias(self, conn: sqlite3.Connection, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT OR REPLACE INTO sfn_aliases ({cols}) VALUES ({marks})", tuple(row.values()))

    def delete_alias(self, conn: sqlite3.Connection, arn: str) -> None:
        conn.execute("DELETE FROM sfn_aliases WHERE arn=?", (arn,))
        conn.execute("DELETE FROM sfn_tags WHERE arn=?", (arn,))

    def delete_machine_family(self, conn: sqlite3.Connection, sm_arn: str) -> None:
        """A deleted machine takes its versions and aliases with it."""
        for table in ("sfn_versions", "sfn_aliases"):
            arns = [r[0] for r in conn.execute(f"SELECT arn FROM {table} WHERE sm_arn=?", (sm_arn,))]
            conn.execute(f"DELETE FROM {table} WHERE sm_arn=?", (sm_arn,))
            conn.executemany("DELETE FROM sfn_tags WHERE arn=?", [(a,) for a in arns])

    # ------------------------------------------------------------------ activities
    def get_activity(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one("SELECT * FROM sfn_activities WHERE arn=?", (arn,))

    def activities(self, account: str, region: str) -> list[sqlite3.Row]:
        return self.db.query("SELECT * FROM sfn_activities WHERE account=? AND region=? ORDER BY created, arn",
                             (account, region))

    def insert_activity(self, conn: sqlite3.Connection, row: dict[str, Any]) -> None:
        cols = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        conn.execute(f"INSERT INTO sfn_activities ({cols}) VALUES ({marks})", tuple(row.values()))

    def delete_activity(self, conn: sqlite3.Connection, arn: str) -> None:
        conn.execute("DELETE FROM sfn_activities WHERE arn=?", (arn,))
        conn.execute("DELETE FROM sfn_tags WHERE arn=?", (arn,))

    def queue_activity_task(self, conn: sqlite3.Connection, activity_arn: str, token: str, exec_arn: str,
                            task_input: str) -> None:
        conn.execute("INSERT OR IGNORE INTO sfn_activity_tasks (activity_arn, token, exec_arn, input) "
                     "VALUES (?,?,?,?)", (activity_arn, token, exec_arn, task_input))

    def has_activity_task(self, activity_arn: str) -> bool:
        return self.db.query_one("SELECT 1 FROM sfn_activity_tasks WHERE activity_arn=? LIMIT 1",
                                 (activity_arn,)) is not None

    def take_activity_task(self, conn: sqlite3.Connection, activity_arn: str) -> sqlite3.Row | None:
        """The oldest task still awaited (tasks of closed executions are dropped on the way)."""
        while True:
            row = conn.execute(
                "SELECT q.seq, q.token, q.exec_arn, q.input, t.status FROM sfn_activity_tasks q "
                "LEFT JOIN sfn_tokens t ON t.token = q.token WHERE q.activity_arn=? ORDER BY q.seq LIMIT 1",
                (activity_arn,)).fetchone()
            if row is None:
                return None
            conn.execute("DELETE FROM sfn_activity_tasks WHERE seq=?", (row["seq"],))
            if row["status"] == "WAITING":
                return row

    # ------------------------------------------------------------------ nested executions
    def link_child(self, conn: sqlite3.Connection, child_arn: str, parent_arn: str, token: str, mode: str) -> None:
        conn.execute("INSERT OR REPLACE INTO sfn_children (child_arn, parent_arn, token, mode) VALUES (?,?,?,?)",
                     (child_arn, parent_arn, token, mode))

    def child_link(self, conn: sqlite3.Connection, child_arn: str) -> sqlite3.Row | None:
        return conn.execute("SELECT * FROM sfn_children WHERE child_arn=?", (child_arn,)).fetchone()

    def close_links(self, arn: str) -> tuple[bool, bool, bool]:
        """Whether an execution that just ended has map runs still RUNNING (as their root), a
        .sync parent waiting on it, .sync children it waits on: one read for all three."""
        row = self.db.query_one(
            "SELECT EXISTS (SELECT 1 FROM sfn_map_runs WHERE root_arn=?1 AND status='RUNNING'), "
            "EXISTS (SELECT 1 FROM sfn_children WHERE child_arn=?1 AND token<>''), "
            "EXISTS (SELECT 1 FROM sfn_children WHERE parent_arn=?1 AND token<>'')", (arn,))
        assert row is not None  # a SELECT of three EXISTS always has its row
        return bool(row[0]), bool(row[1]), bool(row[2])

    def waiting_children(self, parent_arn: str) -> list[str]:
        """Children a .sync task of this parent still waits on."""
        rows = self.db.query("SELECT child_arn FROM sfn_children WHERE parent_arn=? AND token<>''", (parent_arn,))
        return [r[0] for r in rows]
