"""DynamoDB Streams: a table's change records, written in the same transaction as the item write
they describe, and read back through shards and shard iterators.

Each enabled stream is one row of ddb_streams. Records carry a global, ever-growing sequence
number (the rowid of ddb_stream_records), so a stream's records are in the order their writes
committed. DynamoDB rolls a stream's shard over about every 4 hours: here shard k holds the records
written from SHARD_SECONDS * k after the stream's creation (by sequence number: from the first
record written then), a closed shard ends where its child begins, and each child names its
parent (ParentShardId), so a reader that finishes a shard goes on to the next. One shard at a time
is open: a table's records stay in one order. A write to a table without a stream costs one
attribute test. Records are kept 24 hours, and so are shards that ended; a disabled stream stays
readable (its last shard closed) for as long."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.ddb import errors
from onceflow.ddb.schema import Table
from onceflow.ddb.values import Item, dumps, item_size, loads
from onceflow.errors import validation_error
from onceflow.longpoll import Waiters, Watch
from onceflow.store.db import Database

MIGRATIONS = [
    ("ddb-0002", """
CREATE TABLE ddb_streams (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account TEXT NOT NULL, region TEXT NOT NULL, table_name TEXT NOT NULL, label TEXT NOT NULL,
  view_type TEXT NOT NULL, key_schema TEXT NOT NULL, created REAL NOT NULL, start_seq INTEGER NOT NULL,
  disabled REAL, end_seq INTEGER,
  UNIQUE (account, region, table_name, label)
);
CREATE TABLE ddb_stream_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id INTEGER NOT NULL, created REAL NOT NULL, record TEXT NOT NULL
);
CREATE INDEX ddb_stream_records_by_stream ON ddb_stream_records (stream_id, seq);
CREATE TABLE ddb_stream_trim (id INTEGER PRIMARY KEY CHECK (id = 1), below INTEGER NOT NULL);
"""),
]

RETENTION = 24 * 3600.0
# How long a shard takes records before its child does (AWS: about 4 hours). The environment variable
# makes rollover observable in tests without waiting hours.
SHARD_SECONDS = float(os.environ.get("ONCEFLOW_DDB_SHARD_SECONDS") or 4 * 3600)
ITERATOR_TTL = 15 * 60.0
MAX_RECORDS = 1000
TTL_IDENTITY = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}  # the model's member names


def seq_text(seq: int) -> str:
    return f"{seq:021d}"


def stream_arn(account: str, region: str, table: str, label: str) -> str:
    return f"arn:{partition(region)}:dynamodb:{region}:{account}:table/{table}/stream/{label}"


def _label(now: float) -> str:
    """DynamoDB labels a stream with its creation time: 2015-05-11T21:21:33.291."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


@dataclass(frozen=True)
class Shard:
    index: int  # k: the k-th SHARD_SECONDS of the stream's life
    id: str
    start: int  # the first sequence number it may hold
    end: int | None  # one past the last it holds; None while it is open
    parent: str | None


class Streams:
    def __init__(self, db: Database, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock
        self.waiters = Waiters()  # a Lambda stream poller waits here for a stream's next record (events3)

    # ============================================================== the write side (ddb/service.py)
    def open(self, conn: sqlite3.Connection, t: Table, view_type: str) -> None:
        """Start a new stream for `t` (CreateTable/UpdateTable enabling one); sets t.stream_id/label."""
        now = self.clock()
        label = _label(now)
        while conn.execute("SELECT 1 FROM ddb_streams WHERE account=? AND region=? AND table_name=? AND label=?",
                           (t.account, t.region, t.name, label)).fetchone():
            now += 0.001  # a stream re-enabled within the same millisecond still gets a label of its own
            label = _label(now)
        start = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM ddb_stream_records").fetchone()[0]
        keys = [{"AttributeName": t.hash[0], "KeyType": "HASH"}]
        if t.range:
            keys.append({"AttributeName": t.range[0], "KeyType": "RANGE"})
        cur = conn.execute("INSERT INTO ddb_streams (account, region, table_name, label, view_type, key_schema, "
                           "created, start_seq) VALUES (?,?,?,?,?,?,?,?)",
                           (t.account, t.region, t.name, label, view_type, json.dumps(keys), now, start))
        t.stream_id, t.stream_label = int(cur.lastrowid or 0), label

    def close(self, conn: sqlite3.Connection, t: Table) -> None:
        """Disable the table's stream (UpdateTable, DeleteTable): its shard ends at its last record."""
        if t.stream_id is None:
            return
        last = conn.execute("SELECT MAX(seq) FROM ddb_stream_records WHERE stream_id=?", (t.stream_id,)).fetchone()[0]
        conn.execute("UPDATE ddb_streams SET disabled=?, end_seq=? WHERE id=?", (self.clock(), last, t.stream_id))
        t.stream_id = None

    def capture(self, conn: sqlite3.Connection, t: Table, old: Item | None, new: Item | None,
                identity: dict[str, str] | None = None) -> None:
        """Record one item change, as the table's StreamViewType shapes it."""
        view = (t.stream or {}).get("StreamViewType", "KEYS_ONLY")
        some = new if new is not None else old
        assert some is not None
        keys = {k: some[k] for k in t.key_names}
        rec: dict[str, Any] = {"e": "INSERT" if old is None else "REMOVE" if new is None else "MODIFY", "k": keys}
        size = item_size(keys)
        if new is not None and view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES"):
            rec["n"] = new
            size += item_size(new)
        if old is not None and view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES"):
            rec["o"] = old
            size += item_size(old)
        rec["s"] = size
        if identity:
            rec["u"] = identity
        conn.execute("INSERT INTO ddb_stream_records (stream_id, created, record) VALUES (?,?,?)",
                     (t.stream_id, self.clock(), dumps(rec)))
        self.waiters.notify(t.stream_id)  # fired inside the write: see watch()

    def trim(self) -> int:
        """Drop records older than 24 hours (and streams disabled as long ago); returns how many went."""
        horizon = self.clock() - RETENTION
        first = self.db.query_one("SELECT seq, created FROM ddb_stream_records ORDER BY seq LIMIT 1")
        stale = self.db.query_one("SELECT 1 FROM ddb_streams WHERE disabled < ? LIMIT 1", (horizon,))
        if (first is None or first[1] >= horizon) and stale is None:
            return 0
        with self.db.transaction() as conn:
            row = conn.execute("SELECT MAX(seq) FROM (SELECT seq FROM ddb_stream_records WHERE created < ? "
                               "ORDER BY seq LIMIT 5000)", (horizon,)).fetchone()
            upto = row[0] if row and row[0] is not None else None
            if upto is not None:
                conn.execute("DELETE FROM ddb_stream_records WHERE seq <= ?", (upto,))
                conn.execute("INSERT INTO ddb_stream_trim (id, below) VALUES (1, ?) "
                             "ON CONFLICT (id) DO UPDATE SET below = MAX(below, excluded.below)", (upto,))
            gone = conn.execute("SELECT id FROM ddb_streams WHERE disabled < ?", (horizon,)).fetchall()
            for (sid,) in gone:
                conn.execute("DELETE FROM ddb_stream_records WHERE stream_id=?", (sid,))
                conn.execute("DELETE FROM ddb_streams WHERE id=?", (sid,))
        return 1

    # ============================================================== the read side (dynamodbstreams)
    def _stream(self, account: str, region: str, arn: str) -> dict[str, Any]:
        prefix = f"arn:{partition(region)}:dynamodb:{region}:{account}:table/"
        if not arn.startswith(prefix) or "/stream/" not in arn:
            raise errors.stream_not_found(arn)
        table, _, label = arn[len(prefix):].partition("/stream/")
        row = self.db.query_one("SELECT id, table_name, label, view_type, key_schema, created, start_seq, disabled, "
                                "end_seq FROM ddb_streams WHERE account=? AND region=? AND table_name=? AND label=?",
                                (account, region, table, label))
        if row is None:
            raise errors.stream_not_found(arn)
        keys = ("id", "table", "label", "view", "key_schema", "created", "start", "disabled", "end")
        s = dict(zip(keys, row, strict=True))
        s["arn"] = arn
        return s

    @staticmethod
    def _shard_id(s: dict[str, Any], k: int) -> str:
        if k == 0:
            digest = hashlib.sha256(s["arn"].encode()).hexdigest()[:8]
        else:
            digest = hashlib.sha256(f"{s['arn']}#{k}".encode()).hexdigest()[:8]
        return f"shardId-{int((s['created'] + k * SHARD_SECONDS) * 1000):020d}-{digest}"

    def _shards(self, s: dict[str, Any]) -> list[Shard]:
        """The stream's shards still kept, oldest first; the last is open unless the stream is disabled."""
        now = self.clock()
        until = s["disabled"] if s["disabled"] is not None else now
        last_k = max(0, int((until - s["created"]) // SHARD_SECONDS))
        first_k = max(0, int((now - RETENTION - s["created"]) // SHARD_SECONDS))  # ended a day ago: gone
        first_k = min(first_k, last_k)
        row = self.db.query_one("SELECT MAX(seq) FROM ddb_stream_records WHERE stream_id=?", (s["id"],))
        following = max(row[0] + 1 if row and row[0] is not None else s["start"], s["start"])
        starts: list[int] = []
        for k in range(first_k, last_k + 1):
            if k == 0:
                b = s["start"]
            else:
                found = self.db.query_one("SELECT MIN(seq) FROM ddb_stream_records WHERE stream_id=? AND created >= ?",
                                          (s["id"], s["created"] + k * SHARD_SECONDS))
                b = found[0] if found and found[0] is not None else following
            starts.append(max(b, starts[-1] if starts else b))  # a clock step back cannot reorder shards
        out = []
        for i, k in enumerate(range(first_k, last_k + 1)):
            end = starts[i + 1] if i + 1 < len(starts) else None
            if end is None and s["disabled"] is not None:
                end = (s["end"] if s["end"] is not None else starts[i] - 1) + 1
            out.append(Shard(k, self._shard_id(s, k), starts[i], end, self._shard_id(s, k - 1) if k else None))
        return out

    def _shard(self, s: dict[str, Any], shard_id: str) -> Shard:
        found = next((sh for sh in self._shards(s) if sh.id == shard_id), None)
        if found is None:
            raise errors.shard_not_found(shard_id)
        return found

    def list_streams(self, account: str, region: str, table: str | None = None, after: str | None = None,
                     limit: int | None = None) -> dict[str, Any]:
        sql = "SELECT table_name, label FROM ddb_streams WHERE account=? AND region=?"
        args: list[Any] = [account, region]
        if table is not None:
            sql += " AND table_name=?"
            args.append(table)
        rows = self.db.query(sql + " ORDER BY id", args)
        streams = [{"StreamArn": stream_arn(account, region, n, lb), "TableName": n, "StreamLabel": lb}
                   for n, lb in rows]
        if after is not None:
            arns = [s["StreamArn"] for s in streams]
            streams = streams[arns.index(after) + 1:] if after in arns else []
        limit = limit or 100
        out: dict[str, Any] = {"Streams": streams[:limit]}
        if len(streams) > limit:
            out["LastEvaluatedStreamArn"] = streams[limit - 1]["StreamArn"]
        return out

    def describe_stream(self, account: str, region: str, arn: str) -> dict[str, Any]:
        s = self._stream(account, region, arn)
        first = self.db.query_one("SELECT MIN(seq) FROM ddb_stream_records WHERE stream_id=?", (s["id"],))
        oldest = first[0] if first and first[0] is not None else s["start"]
        shards = []
        for sh in self._shards(s):
            start = max(sh.start, oldest) if sh.end is None else max(sh.start, min(oldest, sh.end - 1))
            rng = {"StartingSequenceNumber": seq_text(start)}
            if sh.end is not None:
                rng["EndingSequenceNumber"] = seq_text(max(sh.end - 1, start))
            shard: dict[str, Any] = {"ShardId": sh.id, "SequenceNumberRange": rng}
            if sh.parent is not None:
                shard["ParentShardId"] = sh.parent
            shards.append(shard)
        return {"StreamDescription": {
            "StreamArn": arn, "StreamLabel": s["label"],
            "StreamStatus": "DISABLED" if s["disabled"] is not None else "ENABLED",
            "StreamViewType": s["view"], "CreationRequestDateTime": datetime.fromtimestamp(s["created"], UTC),
            "TableName": s["table"], "KeySchema": json.loads(s["key_schema"]),
            "Shards": shards,
        }}

    def get_shard_iterator(self, account: str, region: str, arn: str, shard: str, kind: str,
                           sequence: str | None = None, at: datetime | None = None) -> str:
        s = self._stream(account, region, arn)
        sh = self._shard(s, shard)
        below = self._trimmed_below()
        if kind == "TRIM_HORIZON":
            after = max(below, sh.start - 1)
        elif kind == "LATEST":
            bound = "AND seq < ?" if sh.end is not None else ""
            last = self.db.query_one(f"SELECT MAX(seq) FROM ddb_stream_records WHERE stream_id=? {bound}",
                                     (s["id"], sh.end) if sh.end is not None else (s["id"],))
            after = max(last[0] if last and last[0] is not None else sh.start - 1, sh.start - 1)
        elif kind == "AT_TIMESTAMP":
            after = max(self._before_time(s, at, below), sh.start - 1)
        else:
            if sequence is None or not sequence.isdigit():
                raise errors.sequence_required(kind)
            n = int(sequence)
            if n <= below:
                raise errors.trimmed(sequence)
            after = max(n - 1 if kind == "AT_SEQUENCE_NUMBER" else n, sh.start - 1)
        return self._iterator(account, region, s["id"], arn, after, sh.index)

    def _before_time(self, s: dict[str, Any], at: datetime | None, below: int) -> int:
        """The position just before the first record written at or after `at`."""
        if at is None:
            raise validation_error(errors.TIMESTAMP_REQUIRED)
        ts = at.timestamp()
        if ts > self.clock():
            raise errors.timestamp_in_future(at.isoformat())
        row = self.db.query_one("SELECT MAX(seq) FROM ddb_stream_records WHERE stream_id=? AND created < ?",
                                (s["id"], ts))
        found = row[0] if row and row[0] is not None else s["start"] - 1
        return max(found, below)

    def _iterator(self, account: str, region: str, sid: int, arn: str, after: int, shard: int) -> str:
        body = {"a": account, "r": region, "i": sid, "arn": arn, "p": after, "k": shard, "t": self.clock()}
        return base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).decode()

    def _trimmed_below(self) -> int:
        row = self.db.query_one("SELECT below FROM ddb_stream_trim WHERE id=1")
        return int(row[0]) if row else 0

    def iterator_stream(self, token: str) -> str | None:
        """The stream ARN an iterator reads (for IAM), or None for a token that is not one of ours."""
        try:
            return str(json.loads(base64.urlsafe_b64decode(token))["arn"])
        except (binascii.Error, ValueError, KeyError, TypeError):
            return None

    def get_records(self, account: str, region: str, token: str, limit: int | None = None) -> dict[str, Any]:
        try:
            it = json.loads(base64.urlsafe_b64decode(token))
            sid, arn, after, issued = int(it["i"]), str(it["arn"]), int(it["p"]), float(it["t"])
            k = int(it.get("k", 0))
            mine = it["a"] == account and it["r"] == region
        except (binascii.Error, ValueError, KeyError, TypeError):
            raise validation_error(errors.INVALID_SHARD_ITERATOR) from None
        if not mine:
            raise validation_error(errors.INVALID_SHARD_ITERATOR)
        if self.clock() - issued > ITERATOR_TTL:
            raise errors.iterator_expired(_http_date(issued), _http_date(self.clock()))
        s = self._stream(account, region, arn)
        if s["id"] != sid:
            raise errors.stream_not_found(arn)
        sh = next((x for x in self._shards(s) if x.index == k), None)
        if sh is None:  # its records are past the 24 hours kept
            raise errors.trimmed(seq_text(after + 1))
        n = min(limit or MAX_RECORDS, MAX_RECORDS)
        end = sh.end if sh.end is not None else 1 << 62
        rows = self.db.query("SELECT seq, created, record FROM ddb_stream_records WHERE stream_id=? AND seq > ? "
                             "AND seq < ? ORDER BY seq LIMIT ?", (sid, after, end, n))
        records = [self.record(region, s["view"], r[0], r[1], r[2]) for r in rows]
        out: dict[str, Any] = {"Records": records}
        last = rows[-1][0] if rows else after
        if sh.end is None or (len(rows) == n and last < sh.end - 1):  # a closed shard read to its end has none
            out["NextShardIterator"] = self._iterator(account, region, sid, arn, last, k)
        return out

    @staticmethod
    def record(region: str, view: str, seq: int, created: float, text: str) -> dict[str, Any]:
        """A stored record in the shape GetRecords gives it."""
        r = loads(text)
        d: dict[str, Any] = {"ApproximateCreationDateTime": datetime.fromtimestamp(int(created), UTC), "Keys": r["k"]}
        if "n" in r:
            d["NewImage"] = r["n"]
        if "o" in r:
            d["OldImage"] = r["o"]
        d.update({"SequenceNumber": seq_text(seq), "SizeBytes": r["s"], "StreamViewType": view})
        out: dict[str, Any] = {"eventID": hashlib.md5(f"{seq}:{created}".encode(), usedforsecurity=False).hexdigest(),
                               "eventName": r["e"], "eventVersion": "1.1", "eventSource": "aws:dynamodb",
                               "awsRegion": region, "dynamodb": d}
        if "u" in r:
            out["userIdentity"] = r["u"]
        return out

    # -------------------------------------------------------------- for an event-source poller
    def position(self, account: str, region: str, arn: str, start: str = "LATEST") -> str:
        """The sequence number to read after for a mapping's StartingPosition (LATEST or TRIM_HORIZON)."""
        s = self._stream(account, region, arn)
        if start == "TRIM_HORIZON":
            return seq_text(max(self._trimmed_below(), s["start"] - 1))
        last = self.db.query_one("SELECT MAX(seq) FROM ddb_stream_records WHERE stream_id=?", (s["id"],))
        return seq_text(last[0] if last and last[0] is not None else s["start"] - 1)

    def watch(self, account: str, region: str, arn: str) -> tuple[int, Watch]:
        """(key, a watch fired by the stream's next record); register it before reading, forget(key)
        it after. It fires inside the writing transaction, so a reader woken by it first waits for
        that write to end (`db.writers_lock()`) to see the record."""
        key = int(self._stream(account, region, arn)["id"])
        return key, self.waiters.watch(key)

    def records_after(self, account: str, region: str, arn: str, after: str | None,
                      limit: int = 100) -> list[dict[str, Any]]:
        """Records of a stream after sequence number `after` (None: from the oldest kept), no iterator."""
        s = self._stream(account, region, arn)
        rows = self.db.query("SELECT seq, created, record FROM ddb_stream_records WHERE stream_id=? AND seq > ? "
                             "ORDER BY seq LIMIT ?", (s["id"], int(after) if after else 0, limit))
        return [self.record(region, s["view"], r[0], r[1], r[2]) for r in rows]


def _http_date(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%a %b %d %H:%M:%S UTC %Y")
