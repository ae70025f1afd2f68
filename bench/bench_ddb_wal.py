"""What one overwrite of a stored item costs SQLite and the disk, INSERT OR REPLACE against UPDATE, on
DynamoDB's item schema (ddb/store.py): how much the WAL grows per commit, and commit + WAL fsync time, the two
ways interleaved in blocks of 25 so that a loaded machine's swings hit both alike.

    python bench/bench_ddb_wal.py [--dir /path/on/the/disk] [--blocks 40] [--items 20000]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from onceflow.ddb.store import MIGRATIONS, key_hash  # after the path: this checkout's onceflow

WAYS: dict[str, tuple[str, Callable[[bytes, str], tuple[object, ...]]]] = {
    "INSERT OR REPLACE": ("INSERT OR REPLACE INTO ddb_items (table_id, hk, rk, item, size, expires, hh) "
                          "VALUES (?,?,?,?,?,?,?)", lambda hk, v: (1, hk, b"", v, len(v), None, key_hash(hk))),
    "UPDATE": ("UPDATE ddb_items SET item=?, size=?, expires=? WHERE table_id=? AND hk=? AND rk=?",
               lambda hk, v: (v, len(v), None, 1, hk, b"")),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=None, help="where the database goes (default: the temp folder)")
    ap.add_argument("--blocks", type=int, default=40)
    ap.add_argument("--items", type=int, default=20000)
    opts = ap.parse_args()
    path = os.path.join(tempfile.mkdtemp(prefix="ddb-wal-", dir=opts.dir), "t.db")
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "wal_autocheckpoint=0"):  # as store/db.py
        conn.execute(f"PRAGMA {pragma}")
    for _, script in MIGRATIONS:
        conn.executescript(script)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO ddb_items (table_id, hk, rk, item, size, hh) VALUES (1,?,?,?,150,?)",
                     [(b"k%d" % i, b"", "x" * 150, key_hash(b"k%d" % i)) for i in range(opts.items)])
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    wal = os.open(path + "-wal", os.O_RDONLY)
    frame = conn.execute("PRAGMA page_size").fetchone()[0] + 24  # a WAL frame: its header and one page
    lat: dict[str, list[float]] = {w: [] for w in WAYS}
    cpu: dict[str, list[float]] = {w: [] for w in WAYS}
    frames: dict[str, int] = dict.fromkeys(WAYS, 0)  # bytes the WAL grew by
    for block in range(opts.blocks):
        order = list(WAYS.items()) if block % 2 else list(reversed(WAYS.items()))
        for name, (sql, args) in order:
            for i in range(25):
                hk = b"k%d" % ((block * 25 + i) * 37 % opts.items)
                before = os.fstat(wal).st_size
                t, tc = time.perf_counter(), time.thread_time()
                conn.execute("BEGIN IMMEDIATE")
                conn.execute(sql, args(hk, f"v{block}.{i}".ljust(150, "y")))
                conn.execute("COMMIT")
                os.fsync(wal)
                lat[name].append(time.perf_counter() - t)
                cpu[name].append(time.thread_time() - tc)
                frames[name] += os.fstat(wal).st_size - before
    print(f"{opts.blocks * 25} overwrites each way, {opts.items:,} items, in {os.path.dirname(path)}; load "
          + " ".join(Path("/proc/loadavg").read_text().split()[:3]))
    for name in WAYS:
        print(f"  {name:<18} WAL growth {frames[name] / frame / len(lat[name]):.2f} frames a commit, commit+fsync p50 "
              f"{statistics.median(lat[name]) * 1e3:.3f} ms (mean {statistics.mean(lat[name]) * 1e3:.3f}), "
              f"thread CPU p50 {statistics.median(cpu[name]) * 1e6:.0f} us")


if __name__ == "__main__":
    main()
