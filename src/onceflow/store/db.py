"""One SQLite database for every service: WAL, migrations recorded in the database, group commit.

Every write transaction runs on one connection under one lock (SQLite serialises writers anyway,
and the critical sections are short). Reads outside a transaction use a small pool of WAL reader
connections, so they never wait behind a writer; inside a transaction they see its own writes.

Commits use synchronous=NORMAL, so a COMMIT only writes the WAL; the caller then waits in `_sync`
until one fsync of the WAL that started after its commit has finished.
Concurrent writers therefore share one fsync (group commit), and an acknowledged write is on disk.

Checkpoints (copying the WAL back into the database file, two fsyncs) run in a thread of their own
instead of inside whichever COMMIT crosses SQLite's 1,000-page mark: there they held the writers'
lock, and the event loop when it committed, for 7-40 ms about every 200 commits (see _checkpoints).

A caller that must not block (the event loop running a quick write handler) takes the writers'
lock only if it is free (`writer_if_free`) and defers the sync (`deferred_sync`): its commits are
recorded, and it calls `sync` itself, on the loop or in a thread, before it answers.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)

Migration = tuple[str, str]  # (unique id, SQL script)
READERS = 8  # WAL reader connections, opened as needed
# Reads through a memory map of the database file instead of read() calls into each connection's own
# small page cache: a point read on a table of a million items then costs what it costs on a thousand
# (GetItem p50 1.32 -> 1.04 ms at 1,000,000 items, bench/bench_ddb.py --sizes). Address space only.
MMAP_BYTES = 1 << 30
# Commits between two background checkpoints (a small commit writes a few pages: about SQLite's own
# 1,000-page threshold), the least time between two (a page written again and again is copied once
# per checkpoint, so fewer of them write less beside the commits' own WAL appends), and the WAL's
# length past which one round holds the writers' lock.
CHECKPOINT_EVERY = 256
CHECKPOINT_GAP_S = 0.5
RESTART_FRAMES = 4096


class Database:
    def __init__(self, path: str) -> None:
        self.path = path
        self.in_memory = path == ":memory:"
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        if not self.in_memory:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            self._conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer thread does it (see above)
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._lock = threading.RLock()
        self._local = threading.local()
        self._committed = 0
        self._synced = 0
        self._syncing = False
        self._sync_cond = threading.Condition()
        self._wal_fd: int | None = None
        self._closed = False
        # Idle reader connections, newest last (list.pop/append are atomic: no lock on the way in
        # and out, which a queue.Queue's Condition cost on every read); a reader waits on
        # _readers_free only when all READERS are in use.
        self._idle: list[sqlite3.Connection] = []
        self._reader_count = 0
        self._readers_lock = threading.Lock()
        self._readers_free = threading.Condition(self._readers_lock)
        self._reader_waiters = 0
        self._all_readers: list[sqlite3.Connection] = []
        self._checkpoint_due = threading.Event()
        self._stopping = threading.Event()
        self._checkpointer: threading.Thread | None = None
        # Rounds begun and finished, so a caller can wait for one that began after its commits.
        self._rounds = threading.Condition()
        self._rounds_begun = self._rounds_done = 0
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; nested use joins the outer one. Durable when the outermost exits."""
        depth = getattr(self._local, "depth", 0)
        if depth:
            self._local.depth = depth + 1
            try:
                yield self._conn
            finally:
                self._local.depth = depth
            return
        with self._lock:
            if self._closed:
                raise RuntimeError("database is closed")
            self._conn.execute("BEGIN IMMEDIATE")
            self._local.depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
                self._committed += 1
                seq = self._committed
                if not seq % CHECKPOINT_EVERY and not self.in_memory:
                    self._wake_checkpointer()
            finally:
                self._local.depth = 0
                for fn in self._local.__dict__.pop("after", ()):
                    fn()  # still under the writers' lock, outside any transaction
        deferred = getattr(self._local, "deferred", None)
        if deferred is not None:
            deferred.seq = seq
            return
        self._sync(seq)

    def in_transaction(self) -> bool:
        """Whether this thread is inside a write transaction."""
        return getattr(self._local, "depth", 0) > 0

    def after_transaction(self, fn: Callable[[], None]) -> None:
        """Run `fn` once this thread's write transaction has ended, committed or rolled back (now if
        there is none): work that must not start on uncommitted state, nor be lost with a rollback."""
        if self.in_transaction():
            self._local.__dict__.setdefault("after", []).append(fn)
        else:
            fn()

    @contextmanager
    def writer_if_free(self) -> Iterator[bool]:
        """Hold the writers' lock if no other thread holds it (yields False, holding nothing, if one does).
        Transactions opened while it is held take it again without waiting."""
        got = self._lock.acquire(blocking=False)
        try:
            yield got
        finally:
            if got:
                self._lock.release()

    @contextmanager
    def writers_lock(self) -> Iterator[None]:
        """Hold the writers' lock without a transaction (a deferred service setup runs under it, its
        migrations' transactions joining the lock)."""
        with self._lock:
            yield

    @contextmanager
    def deferred_sync(self) -> Iterator[PendingSync]:
        """Commits in this block return before their fsync; the caller must `sync(pending.seq)`
        before it acknowledges them (pending.seq stays 0 when nothing was committed)."""
        pending = PendingSync()
        self._local.deferred = pending
        try:
            yield pending
        finally:
            self._local.deferred = None

    def sync(self, seq: int) -> None:
        """Return once commit number `seq` is on disk (sharing one fsync with concurrent committers)."""
        self._sync(seq)

    def sync_all(self) -> None:
        """Return once every commit made before this call is on disk."""
        self._sync(self._committed)

    def is_synced(self, seq: int) -> bool:
        """Whether commit number `seq` is on disk already (no waiting)."""
        return self.in_memory or self._synced >= seq

    def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self.transaction() as conn:
            return fn(conn)

    def _depth(self) -> int:
        """How many transaction() blocks this thread is inside (0: none)."""
        return int(getattr(self._local, "depth", 0))

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several statements (one read transaction)."""
        if self.in_memory or self._depth():
            with self._lock:
                yield self._conn
            return
        conn = self._take_reader()
        try:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")
        finally:
            self._give_back(conn)

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self.reading() as conn:
            return fn(conn)

    def query(self, sql: str, args: Sequence[object] = ()) -> list[sqlite3.Row]:
        # One statement is its own snapshot: no BEGIN/COMMIT around it.
        if self.in_memory or getattr(self._local, "depth", False):  # inside a transaction: its own writes
            with self._lock:
                return self._conn.execute(sql, args).fetchall()
        conn = self._take_reader()
        try:
            return conn.execute(sql, args).fetchall()
        finally:
            self._give_back(conn)

    def query_one(self, sql: str, args: Sequence[object] = ()) -> sqlite3.Row | None:
        if self.in_memory or getattr(self._local, "depth", False):  # inside a transaction: its own writes
            with self._lock:
                return self._conn.execute(sql, args).fetchone()
        conn = self._take_reader()
        try:
            return conn.execute(sql, args).fetchone()
        finally:
            self._give_back(conn)

    def _take_reader(self) -> sqlite3.Connection:
        try:
            return self._idle.pop()
        except IndexError:
            pass
        with self._readers_lock:  # not the writers' lock: a reader must not wait for a writer
            if self._closed:
                raise RuntimeError("database is closed")
            if self._reader_count < READERS:
                self._reader_count += 1
                conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
                conn.row_factory = sqlite3.Row
                conn.execute("PRAGMA query_only=ON")
                conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
                self._all_readers.append(conn)
                return conn
            # Counted before the check, so a reader given back meanwhile either is seen here or
            # sees this waiter and notifies (under the lock, so after this wait has begun).
            self._reader_waiters += 1
            try:
                while True:
                    try:
                        return self._idle.pop()
                    except IndexError:  # none idle, or one taken by a reader outside the lock
                        self._readers_free.wait(1.0)
            finally:
                self._reader_waiters -= 1

    def _give_back(self, conn: sqlite3.Connection) -> None:
        self._idle.append(conn)
        if self._reader_waiters:
            with self._readers_lock:
                self._readers_free.notify()

    # ------------------------------------------------------------------ group commit
    def _sync(self, seq: int) -> None:
        if self.in_memory:
            return
        with self._sync_cond:
            while self._synced < seq:
                if self._syncing:
                    self._sync_cond.wait()
                    continue
                self._syncing = True
                target = self._committed
                self._sync_cond.release()
                try:
                    self._fsync_wal()
                finally:
                    self._sync_cond.acquire()
                    self._syncing = False
                    self._synced = max(self._synced, target)
                    self._sync_cond.notify_all()

    def _fsync_wal(self) -> None:
        if self._wal_fd is None:
            wal = self.path + "-wal"
            if not os.path.exists(wal):
                return
            self._wal_fd = os.open(wal, os.O_RDONLY)
        os.fsync(self._wal_fd)

    # ------------------------------------------------------------------ checkpoints
    def _wake_checkpointer(self) -> None:
        """Called under the writers' lock: start the checkpointer thread once, then just signal it."""
        if self._checkpointer is None:
            self._checkpointer = threading.Thread(target=self._checkpoints, name="store-checkpoint", daemon=True)
            self._checkpointer.start()
        self._checkpoint_due.set()

    def checkpoint_round(self, timeout: float = 30.0) -> bool:
        """Wake the checkpointer and wait until a round that began after this call has finished
        (False if none did within timeout): what a commit made before the call has been copied, unless
        a reader still held it."""
        if self.in_memory:
            return True
        with self._rounds:  # read before the signal: any round begun since began after the caller's commits
            wanted = self._rounds_begun + 1
        with self._lock:
            self._wake_checkpointer()
        with self._rounds:
            return self._rounds.wait_for(lambda: self._rounds_done >= wanted, timeout)

    def _checkpoints(self) -> None:
        """PASSIVE checkpoints on a connection of their own, outside the writers' lock: commits go on
        meanwhile. The WAL only restarts from its start at a commit that finds it wholly copied, which
        commits arriving during every checkpoint prevent: once it is RESTART_FRAMES long, a second
        round copies the few frames left while holding the writers' lock (the WAL stays bounded, and
        the lock is held a quarter as often as SQLite's own checkpoints held it, and shorter)."""
        conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            while True:
                self._checkpoint_due.wait()
                self._checkpoint_due.clear()
                if self._stopping.is_set():
                    return
                with self._rounds:
                    self._rounds_begun += 1
                try:
                    _, frames, _ = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if frames >= RESTART_FRAMES:
                        with self._lock:
                            if not self._stopping.is_set():
                                conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error:  # busy or closing: the next signal tries again
                    log.debug("background checkpoint failed", exc_info=True)
                with self._rounds:
                    self._rounds_done += 1
                    self._rounds.notify_all()
                if self._stopping.wait(CHECKPOINT_GAP_S):
                    return
        finally:
            conn.close()

    # ------------------------------------------------------------------ schema
    def migrate(self, migrations: Sequence[Migration]) -> list[str]:
        """Apply the migrations not yet recorded, each in its own transaction; return the applied ids.
        Inside a write transaction (a service set up by a request's first lookup) they join it, and are
        applied again once it ends: a request that fails must not take a service's tables with it."""
        if self.in_transaction():
            def again() -> None:  # a no-op once the transaction has committed
                self.migrate(migrations)

            self.after_transaction(again)
        applied = []
        for mig_id, script in migrations:
            with self._lock:
                done = self._conn.execute("SELECT 1 FROM schema_migrations WHERE id=?", (mig_id,)).fetchone()
            if done:
                continue
            with self.transaction() as conn:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (id, applied_at) VALUES (?, datetime('now'))", (mig_id,)
                )
            applied.append(mig_id)
        return applied

    def tables_with_rows(self) -> set[str]:
        """The tables (but the migration record) that hold at least one row."""
        with self._lock:
            return _tables_with_rows(self._conn)

    def truncate_all(self) -> None:
        """Empty every table but the migration record (POST /_onceflow/reset), in one transaction;
        empty tables are left alone (a reset after a small test touches a few of ~80)."""
        with self.transaction() as conn:
            for name in _tables_with_rows(conn):
                conn.execute(f'DELETE FROM "{name}"')

    def close(self) -> None:
        if self._checkpointer is not None:  # before the lock: its last round may be waiting for it
            self._stopping.set()
            self._checkpoint_due.set()
            self._checkpointer.join(timeout=10)
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for reader in self._all_readers:
                reader.close()
            if not self.in_memory:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            if self._wal_fd is not None:
                os.close(self._wal_fd)
                self._wal_fd = None


class PendingSync:
    """The commit a deferred-sync block must wait for before it answers."""

    __slots__ = ("seq",)

    def __init__(self) -> None:
        self.seq = 0


def _tables_with_rows(conn: sqlite3.Connection) -> set[str]:
    tables = "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
    names = [r[0] for r in conn.execute(tables)]
    return {name for name in names
            if name != "schema_migrations" and conn.execute(f'SELECT 1 FROM "{name}" LIMIT 1').fetchone() is not None}


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (sqlite3.complete_statement keeps triggers whole)."""
    out, buf = [], ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
