"""A stream mapping's open tumbling window and the state its function returned in it, kept with the
mapping's checkpoint: a server restarted mid-window goes on from that state, and makes the window's
final invocation with it, as Lambda does (it keeps the state on its side, not the function)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from onceflow.store.db import Database

MIGRATIONS = [
    ("lambda-esm-windows-0001", """
CREATE TABLE lambda_esm_windows (
  uuid TEXT PRIMARY KEY, start INTEGER NOT NULL, "end" INTEGER NOT NULL, state TEXT NOT NULL
);
"""),
]

Window = tuple[int, int]


def save(conn: sqlite3.Connection, key: str, window: Window | None, state: Any) -> None:
    """Inside the checkpoint's transaction: the window open after the batch (None: none is)."""
    if window is None:
        forget(conn, key)
        return
    # Only while the mapping exists: a poller finishing a batch after DeleteEventSourceMapping must not
    # bring back the window row the delete removed (forget below).
    conn.execute('INSERT INTO lambda_esm_windows (uuid, start, "end", state) '
                 'SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM lambda_esm WHERE uuid=?) '
                 'ON CONFLICT (uuid) DO UPDATE SET start=excluded.start, "end"=excluded."end", state=excluded.state',
                 (key, window[0], window[1], json.dumps(state), key))


def forget(conn: sqlite3.Connection, key: str) -> None:
    """Inside the mapping's delete: its open window goes with it."""
    conn.execute("DELETE FROM lambda_esm_windows WHERE uuid=?", (key,))


def load(db: Database, key: str) -> tuple[Window, Any] | None:
    row = db.query_one('SELECT start, "end", state FROM lambda_esm_windows WHERE uuid=?', (key,))
    return None if row is None else ((int(row[0]), int(row[1])), json.loads(row[2]))
