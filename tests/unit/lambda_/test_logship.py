"""LogShipper: batches are written in one transaction whose commit does not wait for an fsync of
its own (log lines are acknowledged to nobody), and are readable once flush() returns."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from onceflow.lambda_.logship import LogShipper
from onceflow.store.db import Database


class _Logs:
    def __init__(self, db: Database) -> None:
        self.db = db

    def append(self, account: str, region: str, group: str, stream: str, events: list[tuple[int, str]]) -> None:
        conn: sqlite3.Connection = self.db._conn  # inside the shipper's transaction
        conn.executemany("INSERT INTO lines (stream, ts, msg) VALUES (?, ?, ?)", [(stream, t, m) for t, m in events])


def _database(tmp_path: Path) -> Database:
    db = Database(str(tmp_path / "db.sqlite"))
    with db.transaction() as conn:
        conn.execute("CREATE TABLE lines (stream TEXT, ts INTEGER, msg TEXT)")
    return db


def test_log_lines_commit_without_their_own_fsync(tmp_path: Path) -> None:
    db = _database(tmp_path)
    syncs: list[int] = []
    real_sync = db._sync

    def counting_sync(seq: int) -> Any:
        syncs.append(seq)
        return real_sync(seq)

    db._sync = counting_sync  # type: ignore[method-assign]  # counting the commits that wait for a sync
    shipper = LogShipper(lambda: _Logs(db), db.transaction, db.deferred_sync)
    try:
        shipper.ship("000000000000", "us-east-1", "/aws/lambda/f", "s1", [(1, "START"), (2, "END")])
        shipper.flush()
        rows = db._conn.execute("SELECT stream, ts, msg FROM lines ORDER BY ts").fetchall()
        assert [tuple(r) for r in rows] == [("s1", 1, "START"), ("s1", 2, "END")]
        assert syncs == []
        db.sync_all()  # the next durable commit (here: an explicit sync) covers them
        assert db.is_synced(db._committed)
    finally:
        shipper.close()
        db.close()


def test_without_a_deferred_context_each_batch_waits_for_its_sync(tmp_path: Path) -> None:
    db = _database(tmp_path)
    syncs: list[int] = []
    real_sync = db._sync
    db._sync = lambda seq: (syncs.append(seq), real_sync(seq))[1]  # type: ignore[method-assign]
    shipper = LogShipper(lambda: _Logs(db), db.transaction)
    try:
        shipper.ship("000000000000", "us-east-1", "/aws/lambda/f", "s1", [(1, "START")])
        shipper.flush()
        assert len(syncs) == 1
    finally:
        shipper.close()
        db.close()
