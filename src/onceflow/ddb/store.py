"""DynamoDB's SQL. Items live in one WITHOUT ROWID table keyed by (table id, hash key bytes,
range key bytes); the table id stands for (account, region, table name) in ddb_tables. Key bytes
come from keys.encode_key, so a Query is a range scan of the primary key. Secondary indexes are
rows of (index key bytes, table key bytes) pointing back at the item.

A Scan reads a table in the order DynamoDB does: by a hash of the partition key (each item's `hh`,
key_hash below, indexed with the key), then by key, so no caller comes to rely on key order;
a parallel scan's segments are ranges of that hash, as DynamoDB's are."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from onceflow.ddb.schema import Table
from onceflow.store.db import Database

MIGRATIONS = [
    ("ddb-0001", """
CREATE TABLE ddb_tables (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account TEXT NOT NULL, region TEXT NOT NULL, name TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'ACTIVE',
  meta TEXT NOT NULL,
  UNIQUE (account, region, name)
);
CREATE TABLE ddb_items (
  table_id INTEGER NOT NULL, hk BLOB NOT NULL, rk BLOB NOT NULL,
  item TEXT NOT NULL, size INTEGER NOT NULL, expires REAL,
  PRIMARY KEY (table_id, hk, rk)
) WITHOUT ROWID;
CREATE INDEX ddb_items_expires ON ddb_items (expires) WHERE expires IS NOT NULL;
CREATE TABLE ddb_index_entries (
  table_id INTEGER NOT NULL, index_name TEXT NOT NULL, ihk BLOB NOT NULL, irk BLOB NOT NULL,
  hk BLOB NOT NULL, rk BLOB NOT NULL,
  PRIMARY KEY (table_id, index_name, ihk, irk, hk, rk)
) WITHOUT ROWID;
CREATE TABLE ddb_tx_tokens (
  account TEXT NOT NULL, region TEXT NOT NULL, token TEXT NOT NULL,
  digest TEXT NOT NULL, created REAL NOT NULL,
  PRIMARY KEY (account, region, token)
);
"""),
    # The partition key's hash, for Scan's order; rows from before it are given theirs by fill_key_hashes.
    ("ddb-0004", """
ALTER TABLE ddb_items ADD COLUMN hh BLOB;
CREATE INDEX ddb_items_by_hash ON ddb_items (table_id, hh, hk, rk);
"""),
]

IndexRow = tuple[str, bytes, bytes]  # (index name, index hash bytes, index range bytes)
HASH_BYTES = 8


def key_hash(hk: bytes) -> bytes:
    """Where a partition key falls in Scan's order (DynamoDB's own hash function is not published:
    MD5's first 8 bytes spread keys as evenly)."""
    return hashlib.md5(hk, usedforsecurity=False).digest()[:HASH_BYTES]


def segment_bounds(segment: int, total: int) -> tuple[bytes, bytes | None]:
    """The key_hash range [low, high) of one of `total` parallel-scan segments (high None: to the end)."""
    span = 1 << (8 * HASH_BYTES)
    low = (span * segment // total).to_bytes(HASH_BYTES, "big")
    high = None if segment + 1 == total else (span * (segment + 1) // total).to_bytes(HASH_BYTES, "big")
    return low, high


def fill_key_hashes(conn: sqlite3.Connection) -> None:
    """Give the items stored before ddb-0004 their key_hash (run once, right after that migration)."""
    rows = conn.execute("SELECT DISTINCT table_id, hk FROM ddb_items WHERE hh IS NULL").fetchall()
    conn.executemany("UPDATE ddb_items SET hh=? WHERE table_id=? AND hk=?",
                     [(key_hash(hk), table_id, hk) for table_id, hk in rows])


class Store:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -------------------------------------------------------------- tables
    def load_table(self, account: str, region: str, name: str) -> tuple[Table, str] | None:
        row = self.db.query_one("SELECT id, status, meta FROM ddb_tables WHERE account=? AND region=? AND name=?",
                                (account, region, name))
        if row is None:
            return None
        return Table.from_json(row[0], json.loads(row[2])), row[1]

    def table_by_id(self, table_id: int) -> Table | None:
        row = self.db.query_one("SELECT meta FROM ddb_tables WHERE id=?", (table_id,))
        return Table.from_json(table_id, json.loads(row[0])) if row else None

    def insert_table(self, conn: sqlite3.Connection, t: Table) -> int:
        cur = conn.execute("INSERT INTO ddb_tables (account, region, name, meta) VALUES (?,?,?,?)",
                           (t.account, t.region, t.name, json.dumps(t.to_json())))
        return int(cur.lastrowid or 0)

    def save_table(self, conn: sqlite3.Connection, t: Table) -> None:
        conn.execute("UPDATE ddb_tables SET meta=? WHERE id=?", (json.dumps(t.to_json()), t.id))

    def delete_table(self, conn: sqlite3.Connection, t: Table) -> None:
        conn.execute("DELETE FROM ddb_items WHERE table_id=?", (t.id,))
        conn.execute("DELETE FROM ddb_index_entries WHERE table_id=?", (t.id,))
        conn.execute("DELETE FROM ddb_tables WHERE id=?", (t.id,))

    def list_tables(self, account: str, region: str, after: str | None, limit: int) -> list[str]:
        rows = self.db.query(
            "SELECT name FROM ddb_tables WHERE account=? AND region=? AND name>? ORDER BY name LIMIT ?",
            (account, region, after or "", limit))
        return [r[0] for r in rows]

    def stats(self, table_id: int) -> tuple[int, int]:
        row = self.db.query_one("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM ddb_items WHERE table_id=?",
                                (table_id,))
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def index_counts(self, table_id: int) -> dict[str, int]:
        rows = self.db.query("SELECT index_name, COUNT(*) FROM ddb_index_entries WHERE table_id=? "
                             "GROUP BY index_name", (table_id,))
        return {r[0]: int(r[1]) for r in rows}

    # -------------------------------------------------------------- items
    @staticmethod
    def get(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes) -> str | None:
        row = conn.execute("SELECT item FROM ddb_items WHERE table_id=? AND hk=? AND rk=?",
                           (table_id, hk, rk)).fetchone()
        return row[0] if row else None

    def read(self, table_id: int, hk: bytes, rk: bytes) -> str | None:
        row = self.db.query_one("SELECT item FROM ddb_items WHERE table_id=? AND hk=? AND rk=?",
                                (table_id, hk, rk))
        return row[0] if row else None

    @staticmethod
    def collection_size(conn: sqlite3.Connection, table_id: int, hk: bytes) -> int:
        """Bytes of the items sharing one partition key (an item collection)."""
        row = conn.execute("SELECT COALESCE(SUM(size), 0) FROM ddb_items WHERE table_id=? AND hk=?",
                           (table_id, hk)).fetchone()
        return int(row[0])

    @staticmethod
    def put(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes, item_json: str, size: int,
            expires: float | None) -> None:
        conn.execute("INSERT OR REPLACE INTO ddb_items (table_id, hk, rk, item, size, expires, hh) "
                     "VALUES (?,?,?,?,?,?,?)", (table_id, hk, rk, item_json, size, expires, key_hash(hk)))

    @staticmethod
    def overwrite(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes, item_json: str, size: int,
                  expires: float | None) -> None:
        """`put` for a key believed stored: an UPDATE leaves the key and its Scan-order hash alone, so
        SQLite rewrites the item's leaf only, not the ddb_items_by_hash entry too (half the WAL frames of
        an INSERT OR REPLACE, which deletes and reinserts both). Inserts if the row was not there."""
        cur = conn.execute("UPDATE ddb_items SET item=?, size=?, expires=? WHERE table_id=? AND hk=? AND rk=?",
                           (item_json, size, expires, table_id, hk, rk))
        if not cur.rowcount:
            Store.put(conn, table_id, hk, rk, item_json, size, expires)

    @staticmethod
    def delete(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes) -> None:
        conn.execute("DELETE FROM ddb_items WHERE table_id=? AND hk=? AND rk=?", (table_id, hk, rk))

    @staticmethod
    def replace_index_rows(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes,
                           old: list[IndexRow], new: list[IndexRow]) -> None:
        if old == new:
            return
        for name, ihk, irk in old:
            conn.execute("DELETE FROM ddb_index_entries WHERE table_id=? AND index_name=? AND ihk=? AND irk=? "
                         "AND hk=? AND rk=?", (table_id, name, ihk, irk, hk, rk))
        for name, ihk, irk in new:
            conn.execute("INSERT OR REPLACE INTO ddb_index_entries VALUES (?,?,?,?,?,?)",
                         (table_id, name, ihk, irk, hk, rk))

    @staticmethod
    def set_expiry(conn: sqlite3.Connection, table_id: int, hk: bytes, rk: bytes, expires: float | None) -> None:
        conn.execute("UPDATE ddb_items SET expires=? WHERE table_id=? AND hk=? AND rk=?", (expires, table_id, hk, rk))

    @staticmethod
    def drop_index(conn: sqlite3.Connection, table_id: int, name: str) -> None:
        conn.execute("DELETE FROM ddb_index_entries WHERE table_id=? AND index_name=?", (table_id, name))

    @staticmethod
    def all_items(conn: sqlite3.Connection, table_id: int) -> Iterator[tuple[bytes, bytes, str]]:
        yield from conn.execute("SELECT hk, rk, item FROM ddb_items WHERE table_id=?", (table_id,))

    # -------------------------------------------------------------- range reads
    def range(self, table_id: int, hk: bytes, lo: tuple[bytes, bool] | None, hi: tuple[bytes, bool] | None,
              forward: bool, after: bytes | None, limit: int,
              cap: int | None = None) -> list[tuple[bytes, bytes, str | None, int]]:
        """Items of one partition with lo <= rk <= hi (bounds' bool: inclusive), after `after`. With a
        `cap`, an item larger than it comes back as None (its size only): never read out of SQLite."""
        sql = [f"SELECT hk, rk, {_capped('item', 'size', cap)}, size FROM ddb_items WHERE table_id=? AND hk=?"]
        args: list[Any] = [table_id, hk]
        _bounds(sql, args, "rk", lo, hi)
        if after is not None:
            sql.append("AND rk > ?" if forward else "AND rk < ?")
            args.append(after)
        sql.append("ORDER BY rk" + ("" if forward else " DESC") + " LIMIT ?")
        args.append(limit)
        return [tuple(r) for r in self.db.query(" ".join(sql), args)]

    def index_range(self, table_id: int, index: str, ihk: bytes, lo: tuple[bytes, bool] | None,
                    hi: tuple[bytes, bool] | None, forward: bool, after: tuple[bytes, bytes, bytes] | None,
                    limit: int, cap: int | None = None) -> list[tuple[bytes, bytes, bytes, str | None, int]]:
        """An index's entries of one index partition, with their items (`cap`: as in `range`)."""
        item = _capped("i.item", "i.size", cap)
        sql = [f"SELECT e.irk, e.hk, e.rk, {item}, i.size FROM ddb_index_entries e JOIN ddb_items i "
               "ON i.table_id=e.table_id AND i.hk=e.hk AND i.rk=e.rk "
               "WHERE e.table_id=? AND e.index_name=? AND e.ihk=?"]
        args: list[Any] = [table_id, index, ihk]
        _bounds(sql, args, "e.irk", lo, hi)
        if after is not None:
            sql.append("AND (e.irk, e.hk, e.rk) " + (">" if forward else "<") + " (?, ?, ?)")
            args.extend(after)
        d = "" if forward else " DESC"
        sql.append(f"ORDER BY e.irk{d}, e.hk{d}, e.rk{d} LIMIT ?")
        args.append(limit)
        return [tuple(r) for r in self.db.query(" ".join(sql), args)]

    def scan(self, table_id: int, after: tuple[bytes, bytes] | None, limit: int,
             segment: tuple[bytes, bytes | None] | None = None) -> list[tuple[bytes, bytes, str, int]]:
        """Items in Scan's order (key_hash, then key) after the item at `after`, within a segment's
        hash range when given."""
        sql = ["SELECT hk, rk, item, size FROM ddb_items INDEXED BY ddb_items_by_hash WHERE table_id=?"]
        args: list[Any] = [table_id]
        if segment is not None:
            sql.append("AND hh >= ?" + (" AND hh < ?" if segment[1] is not None else ""))
            args += [segment[0]] + ([segment[1]] if segment[1] is not None else [])
        if after is not None:
            sql.append("AND (hh, hk, rk) > (?, ?, ?)")
            args += [key_hash(after[0]), after[0], after[1]]
        sql.append("ORDER BY hh, hk, rk LIMIT ?")
        args.append(limit)
        return [tuple(r) for r in self.db.query(" ".join(sql), args)]

    def index_scan(self, table_id: int, index: str, after: tuple[bytes, bytes, bytes, bytes] | None,
                   limit: int) -> list[tuple[bytes, bytes, bytes, bytes, str, int]]:
        sql = ("SELECT e.ihk, e.irk, e.hk, e.rk, i.item, i.size FROM ddb_index_entries e JOIN ddb_items i "
               "ON i.table_id=e.table_id AND i.hk=e.hk AND i.rk=e.rk WHERE e.table_id=? AND e.index_name=? ")
        args: list[Any] = [table_id, index]
        if after is not None:
            sql += "AND (e.ihk, e.irk, e.hk, e.rk) > (?, ?, ?, ?) "
            args.extend(after)
        sql += "ORDER BY e.ihk, e.irk, e.hk, e.rk LIMIT ?"
        args.append(limit)
        return [tuple(r) for r in self.db.query(sql, args)]

    # -------------------------------------------------------------- TTL and transactions
    def expired(self, since: float, now: float, limit: int = 500) -> list[tuple[int, bytes, bytes, str]]:
        return [tuple(r) for r in self.db.query(
            "SELECT table_id, hk, rk, item FROM ddb_items WHERE expires > ? AND expires < ? LIMIT ?",
            (since, now, limit))]

    @staticmethod
    def token(conn: sqlite3.Connection, account: str, region: str, token: str) -> tuple[str, float] | None:
        row = conn.execute("SELECT digest, created FROM ddb_tx_tokens WHERE account=? AND region=? AND token=?",
                           (account, region, token)).fetchone()
        return (row[0], row[1]) if row else None

    @staticmethod
    def save_token(conn: sqlite3.Connection, account: str, region: str, token: str, digest: str,
                   now: float) -> None:
        conn.execute("DELETE FROM ddb_tx_tokens WHERE created < ?", (now - 600,))
        conn.execute("INSERT OR REPLACE INTO ddb_tx_tokens VALUES (?,?,?,?,?)",
                     (account, region, token, digest, now))


def _capped(item: str, size: str, cap: int | None) -> str:
    """The item column, or NULL in its place for an item whose size is past `cap` (an int, written in)."""
    return item if cap is None else f"CASE WHEN {size} <= {int(cap)} THEN {item} END"


def _bounds(sql: list[str], args: list[Any], col: str, lo: tuple[bytes, bool] | None,
            hi: tuple[bytes, bool] | None) -> None:
    if lo is not None:
        sql.append(f"AND {col} >= ?" if lo[1] else f"AND {col} > ?")
        args.append(lo[0])
    if hi is not None:
        sql.append(f"AND {col} <= ?" if hi[1] else f"AND {col} < ?")
        args.append(hi[0])
