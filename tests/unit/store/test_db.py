"""The shared SQLite store: transactions, nesting, migrations, group commit, reset."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from onceflow.store.db import Database

MIGRATIONS = [("t-0001", "CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL);"),
              ("t-0002", "CREATE INDEX t_v ON t (v);\nCREATE TABLE u (x INTEGER);")]


@pytest.fixture(params=["memory", "file"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    database = Database(":memory:" if request.param == "memory" else str(tmp_path / "x.db"))
    database.migrate(MIGRATIONS)
    yield database
    database.close()


def test_migrations_are_recorded_once(db: Database) -> None:
    assert db.migrate(MIGRATIONS) == []
    ids = [r["id"] for r in db.query("SELECT id FROM schema_migrations ORDER BY id")]
    assert ids == ["t-0001", "t-0002"]


def test_a_failed_transaction_changes_nothing(db: Database) -> None:
    with pytest.raises(RuntimeError), db.transaction() as conn:
        conn.execute("INSERT INTO t VALUES ('a', 1)")
        raise RuntimeError("abort")
    assert db.query("SELECT * FROM t") == []


def test_nested_transactions_join_the_outer_one(db: Database) -> None:
    with pytest.raises(RuntimeError), db.transaction() as outer:
        outer.execute("INSERT INTO t VALUES ('a', 1)")
        with db.transaction() as inner:
            inner.execute("INSERT INTO t VALUES ('b', 2)")
        raise RuntimeError("abort the outer")
    assert db.query("SELECT * FROM t") == []
    db.write(lambda c: c.execute("INSERT INTO t VALUES ('c', 3)"))
    assert [r["k"] for r in db.query("SELECT k FROM t")] == ["c"]


def test_concurrent_writers_all_commit(db: Database) -> None:
    def writer(n: int) -> None:
        for i in range(25):
            db.write(lambda c, i=i: c.execute("INSERT INTO t VALUES (?, ?)", (f"{n}-{i}", i)))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert db.query_one("SELECT count(*) AS n FROM t")["n"] == 200


def test_group_commit_shares_syncs(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "g.db"))
    db.migrate(MIGRATIONS)
    syncs = []
    real = db._fsync_wal

    def counting() -> None:
        syncs.append(1)
        time.sleep(0.05)  # a slow disk: writers that commit meanwhile must share the next sync
        real()

    db._fsync_wal = counting  # type: ignore[method-assign]
    barrier = threading.Barrier(16)

    def writer(n: int) -> None:
        barrier.wait()
        db.write(lambda c: c.execute("INSERT INTO t VALUES (?, 1)", (str(n),)))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert db.query_one("SELECT count(*) AS n FROM t")["n"] == 16
    assert 1 <= len(syncs) <= 4, f"{len(syncs)} syncs for 16 concurrent commits"
    db.close()


def test_writer_if_free_declines_while_another_thread_writes(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "w.db"))
    db.migrate(MIGRATIONS)
    inside, release = threading.Event(), threading.Event()

    def long_writer() -> None:
        with db.transaction() as conn:
            conn.execute("INSERT INTO t VALUES ('long', 1)")
            inside.set()
            release.wait(5)

    t = threading.Thread(target=long_writer)
    t.start()
    inside.wait(5)
    with db.writer_if_free() as free:
        assert free is False
    release.set()
    t.join()
    with db.writer_if_free() as free:
        assert free is True
        db.write(lambda c: c.execute("INSERT INTO t VALUES ('mine', 2)"))  # re-enters the held lock
    assert {r["k"] for r in db.query("SELECT k FROM t")} == {"long", "mine"}
    db.close()


def test_deferred_sync_commits_first_and_syncs_when_asked(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "d.db"))
    db.migrate(MIGRATIONS)
    syncs: list[int] = []
    real = db._fsync_wal

    def counting() -> None:
        syncs.append(db._committed)
        real()

    db._fsync_wal = counting  # type: ignore[method-assign]
    with db.deferred_sync() as pending:
        db.write(lambda c: c.execute("INSERT INTO t VALUES ('a', 1)"))
        db.write(lambda c: c.execute("INSERT INTO t VALUES ('b', 2)"))
    assert syncs == [] and pending.seq == db._committed
    assert db.query_one("SELECT count(*) AS n FROM t")["n"] == 2  # committed: readers see it
    db.sync(pending.seq)
    assert syncs == [pending.seq]
    db.sync(pending.seq)  # already on disk: no second fsync
    assert syncs == [pending.seq]
    with db.deferred_sync() as nothing:
        db.query("SELECT * FROM t")
    assert nothing.seq == 0
    db.write(lambda c: c.execute("INSERT INTO t VALUES ('c', 3)"))  # outside the block: synced at once
    assert syncs == [pending.seq, db._committed]
    db.close()


def test_truncate_all_keeps_the_schema(db: Database) -> None:
    db.write(lambda c: c.execute("INSERT INTO t VALUES ('a', 1)"))
    db.truncate_all()
    assert db.query("SELECT * FROM t") == []
    assert len(db.query("SELECT id FROM schema_migrations")) == 2


def test_committed_rows_survive_reopen(tmp_path: Path) -> None:
    path = str(tmp_path / "r.db")
    db = Database(path)
    db.migrate(MIGRATIONS)
    db.write(lambda c: c.execute("INSERT INTO t VALUES ('kept', 7)"))
    db.close()
    again = Database(path)
    assert again.query_one("SELECT v FROM t WHERE k='kept'")["v"] == 7
    again.close()


def test_reads_do_not_wait_behind_a_writer_and_see_only_commits(tmp_path: Path) -> None:
    db = Database(str(tmp_path / "w.db"))
    db.migrate(MIGRATIONS)
    db.write(lambda c: c.execute("INSERT INTO t VALUES ('old', 1)"))
    inside, release = threading.Event(), threading.Event()

    def writer() -> None:
        with db.transaction() as conn:
            conn.execute("INSERT INTO t VALUES ('new', 2)")
            # Inside its own transaction the writer reads its own write.
            assert db.query_one("SELECT v FROM t WHERE k='new'")["v"] == 2
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    assert inside.wait(10)
    # The writer still holds its transaction: a read answers at once, from the last commit.
    assert [r["k"] for r in db.query("SELECT k FROM t ORDER BY k")] == ["old"]
    assert db.read(lambda c: c.execute("SELECT count(*) FROM t").fetchone()[0]) == 1
    release.set()
    thread.join()
    assert [r["k"] for r in db.query("SELECT k FROM t ORDER BY k")] == ["new", "old"]
    db.close()


def test_checkpoints_run_beside_the_commits_and_keep_the_wal_bounded(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import onceflow.store.db as store_db

    monkeypatch.setattr(store_db, "CHECKPOINT_EVERY", 16)
    monkeypatch.setattr(store_db, "RESTART_FRAMES", 64)
    monkeypatch.setattr(store_db, "CHECKPOINT_GAP_S", 0.0)
    path = str(tmp_path / "c.db")
    db = Database(path)
    db.migrate(MIGRATIONS)
    # A commit never checkpoints (that held the writers' lock for tens of milliseconds).
    with db.transaction() as conn:
        assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    blob = "x" * 6000  # two pages of overflow: every commit adds a few WAL frames
    for batch in range(12):
        for i in range(50):
            with db.deferred_sync(), db.transaction() as conn:
                conn.execute("INSERT INTO t VALUES (?, ?)", (f"{batch}-{i}-{blob}", i))
        # The gaps between a client's calls, where a checkpoint completes: waited for, not slept
        # (a fixed sleep let a loaded machine run the next batch before the round had finished).
        assert db.checkpoint_round()
    wal = Path(path + "-wal").stat().st_size
    # 600 commits of 2+ frames each: 5 MB of WAL unless it restarts from its start.
    assert wal < 2_500_000, wal
    db.close()
    again = Database(path)
    assert again.query_one("SELECT count(*) AS n FROM t")["n"] == 600
    assert again.query_one("PRAGMA integrity_check")[0] == "ok"
    again.close()


def test_a_reader_beyond_the_pool_waits_for_one_given_back(tmp_path: Path) -> None:
    from onceflow.store.db import READERS

    db = Database(str(tmp_path / "x.db"))
    db.migrate(MIGRATIONS)
    with db.transaction() as conn:
        conn.execute("INSERT INTO t (k, v) VALUES ('a', 1)")
    release = threading.Event()
    holding = threading.Semaphore(0)

    def hold() -> None:
        with db.reading() as conn:
            conn.execute("SELECT v FROM t").fetchall()
            holding.release()
            release.wait(10)

    holders = [threading.Thread(target=hold) for _ in range(READERS)]
    for t in holders:
        t.start()
    for _ in holders:
        assert holding.acquire(timeout=10)
    answers: list[int] = []
    waiters = [threading.Thread(target=lambda: answers.append(db.query_one("SELECT v FROM t")["v"]))
               for _ in range(3)]
    for t in waiters:
        t.start()
    time.sleep(0.1)
    assert answers == []  # every reader is held: the queries wait, no ninth connection is opened
    release.set()
    for t in holders + waiters:
        t.join(10)
    assert answers == [1, 1, 1]
    assert len(db._all_readers) == READERS
    for _ in range(50):  # given back: taken again without waiting
        assert db.query("SELECT v FROM t")[0]["v"] == 1
    db.close()
