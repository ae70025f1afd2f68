"""Store.overwrite: an UPDATE in place of INSERT OR REPLACE for an item already stored, which must
leave the row, its Scan-order hash and its expiry index as a replace would, and insert when the row
is not there after all."""

from __future__ import annotations

import sqlite3

from onceflow.ddb.store import MIGRATIONS, Store, key_hash


def _conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(dict(MIGRATIONS)["ddb-0001"])
    conn.executescript(dict(MIGRATIONS)["ddb-0004"])
    return conn


def _rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return conn.execute("SELECT table_id, hk, rk, item, size, expires, hh FROM ddb_items "
                        "ORDER BY table_id, hk, rk").fetchall()


def test_overwrite_stores_what_a_replace_stores() -> None:
    replaced, updated = _conn(), _conn()
    for conn in (replaced, updated):
        Store.put(conn, 1, b"a", b"", '{"v": 1}', 8, None)
        Store.put(conn, 1, b"b", b"x", '{"v": 2}', 8, 100.0)
    Store.put(replaced, 1, b"a", b"", '{"v": 3}', 9, 50.0)
    Store.put(replaced, 1, b"b", b"x", '{"v": 4}', 9, None)
    Store.overwrite(updated, 1, b"a", b"", '{"v": 3}', 9, 50.0)
    Store.overwrite(updated, 1, b"b", b"x", '{"v": 4}', 9, None)
    assert _rows(updated) == _rows(replaced)
    expiring = "SELECT hk FROM ddb_items INDEXED BY ddb_items_expires WHERE expires IS NOT NULL AND expires > 0"
    assert updated.execute(expiring).fetchall() == [(b"a",)]
    by_hash = "SELECT hk FROM ddb_items INDEXED BY ddb_items_by_hash WHERE table_id=1 AND hh=?"
    assert updated.execute(by_hash, (key_hash(b"a"),)).fetchall() == [(b"a",)]


def test_overwrite_of_a_missing_row_inserts_it() -> None:
    conn = _conn()
    Store.overwrite(conn, 1, b"a", b"", '{"v": 1}', 8, None)
    assert _rows(conn) == [(1, b"a", b"", '{"v": 1}', 8, None, key_hash(b"a"))]
