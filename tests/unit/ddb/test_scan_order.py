"""Scan's hash order: the key hash given to items stored before it, and segment bounds that tile it."""

from __future__ import annotations

import sqlite3

from onceflow.ddb.store import MIGRATIONS, fill_key_hashes, key_hash, segment_bounds


def test_items_stored_before_the_hash_column_get_their_hash() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(dict(MIGRATIONS)["ddb-0001"])
    conn.executemany("INSERT INTO ddb_items (table_id, hk, rk, item, size) VALUES (?,?,?,?,?)",
                     [(1, b"a", b"", "{}", 2), (1, b"a", b"x", "{}", 2), (2, b"b", b"", "{}", 2)])
    conn.executescript(dict(MIGRATIONS)["ddb-0004"])
    fill_key_hashes(conn)
    got = conn.execute("SELECT table_id, hk, hh FROM ddb_items ORDER BY table_id, hk, rk").fetchall()
    assert got == [(1, b"a", key_hash(b"a")), (1, b"a", key_hash(b"a")), (2, b"b", key_hash(b"b"))]


def test_segments_tile_the_hash_space_in_order() -> None:
    bounds = [segment_bounds(s, 3) for s in range(3)]
    assert bounds[0][0] == bytes(8) and bounds[-1][1] is None
    assert all(bounds[i][1] == bounds[i + 1][0] for i in range(2))
    assert all(low < high for low, high in bounds[:-1] if high is not None)


def test_ddb_migration_ids_are_unique() -> None:
    from onceflow.ddb.backups import MIGRATIONS as BACKUPS
    from onceflow.ddb.export import MIGRATIONS as EXPORTS
    from onceflow.ddb.policies import MIGRATIONS as POLICIES
    from onceflow.ddb.streams import MIGRATIONS as STREAMS

    ids = [m[0] for m in MIGRATIONS + STREAMS + BACKUPS + POLICIES + EXPORTS]
    assert len(ids) == len(set(ids))
