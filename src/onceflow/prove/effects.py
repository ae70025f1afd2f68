"""Business resources as item maps: snapshot them, put them back as they were before a run.

Three kinds, named as the oracle reports them: DynamoDB tables (`<table>`, items by key, read with
consistent Scans), SQS queues (`sqs:<queue>`, messages) and S3 buckets (`s3:<bucket>`, objects).
SNS is not a resource of its own here: a topic's publishes land in the queues (and functions)
subscribed to it, so they are judged there."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

Items = dict[str, dict[str, Any]]  # compact JSON of the key -> the item (DynamoDB JSON)
Snapshot = dict[str, Items]  # resource -> items
SQS, S3 = "sqs:", "s3:"


def key_of(item: dict[str, Any], key_names: list[str]) -> str:
    return json.dumps({k: item[k] for k in key_names if k in item}, sort_keys=True, separators=(",", ":"),
                      default=str)


class Tables:
    """The private stack's DynamoDB tables, read and restored through its own API."""

    def __init__(self, ddb: Any) -> None:
        self.ddb = ddb
        self._keys: dict[str, list[str]] = {}

    def names(self) -> list[str]:
        names: list[str] = []
        for page in self.ddb.get_paginator("list_tables").paginate():
            names.extend(page["TableNames"])
        return names

    def key_names(self, table: str) -> list[str]:
        if table not in self._keys:
            schema = self.ddb.describe_table(TableName=table)["Table"]["KeySchema"]
            self._keys[table] = [k["AttributeName"] for k in schema]
        return self._keys[table]

    def items(self, table: str) -> Items:
        keys = self.key_names(table)
        out: Items = {}
        for page in self.ddb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
            for item in page["Items"]:
                out[key_of(item, keys)] = item
        return out

    def restore(self, table: str, before: Items) -> None:
        """Make `table` hold exactly `before` again: delete what was added, put back what changed."""
        keys = self.key_names(table)
        now = self.items(table)
        for key, item in now.items():
            if key not in before:
                self.ddb.delete_item(TableName=table, Key={k: item[k] for k in keys})
        for key, item in before.items():
            if now.get(key) != item:
                self.ddb.put_item(TableName=table, Item=item)


class Queues:
    """The sandbox's SQS queues, read from their rows: receiving through the API would change what
    it reads (visibility, receive counts). A message's id differs from run to run, so it is keyed
    by a hash of its content and its occurrence number: a second identical send is `<hash>#2`."""

    def __init__(self, db: Any, account: str, region: str) -> None:
        self.db, self.account, self.region = db, account, region
        self._rows: dict[str, tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]] = {}  # for restore

    def names(self) -> list[str]:
        try:
            rows = self.db.query("SELECT name FROM sqs_queues WHERE account=? AND region=? ORDER BY name",
                                 (self.account, self.region))
        except sqlite3.OperationalError:  # a store without SQS
            return []
        return [SQS + r[0] for r in rows]

    def _id(self, name: str) -> int | None:
        row = self.db.query_one("SELECT id FROM sqs_queues WHERE account=? AND region=? AND name=?",
                                (self.account, self.region, name.removeprefix(SQS)))
        return None if row is None else int(row[0])

    def items(self, name: str) -> Items:
        qid = self._id(name)
        rows = [] if qid is None else self.db.query(
            "SELECT body, attributes FROM sqs_messages WHERE queue_id=? ORDER BY id", (qid,))
        out: Items = {}
        for body, attributes in rows:
            message = {"Body": _comparable(body), "MessageAttributes": json.loads(attributes) if attributes else {}}
            digest = hashlib.sha256(json.dumps(message, sort_keys=True).encode()).hexdigest()[:16]
            n = 1
            while f"{digest}#{n}" in out:
                n += 1
            out[f"{digest}#{n}"] = message
        return out

    def keep(self, name: str) -> None:
        """Remember the queue's rows as they stand (before any run), for `restore`."""
        qid = self._id(name)
        if qid is not None:
            self._rows[name] = (self.db.query("SELECT * FROM sqs_messages WHERE queue_id=?", (qid,)),
                                self.db.query("SELECT * FROM sqs_dedup WHERE queue_id=?", (qid,)))

    def restore(self, name: str) -> None:
        """Put the kept rows back verbatim (ids, timestamps and the FIFO dedup window too): PurgeQueue
        is refused twice a minute, and a resent message would get a new id."""
        qid = self._id(name)
        if qid is None:
            return
        messages, dedup = self._rows.get(name, ([], []))
        with self.db.transaction() as conn:
            for table, rows in (("sqs_messages", messages), ("sqs_dedup", dedup)):
                conn.execute(f"DELETE FROM {table} WHERE queue_id=?", (qid,))
                for row in rows:
                    conn.execute(f"INSERT INTO {table} VALUES ({','.join('?' * len(row))})", tuple(row))


# What an SNS envelope carries that differs from run to run for the same publish.
ENVELOPE_STAMPS = ("MessageId", "Timestamp", "Signature", "SignatureVersion", "SigningCertURL", "SigningCertUrl",
                   "UnsubscribeURL", "UnsubscribeUrl", "SequenceNumber")


def _comparable(body: str) -> str:
    """A message body as the oracle compares it: an SNS notification (a topic's publish delivered
    to a subscribed queue) without its message id, time and signature, so one publish in two runs
    is one message."""
    try:
        value = json.loads(body)
    except ValueError:
        return body
    if not (isinstance(value, dict) and value.get("Type") == "Notification" and "TopicArn" in value):
        return body
    return json.dumps({k: v for k, v in value.items() if k not in ENVELOPE_STAMPS}, sort_keys=True)


class Buckets:
    """The sandbox's S3 buckets through its own API: key -> ETag, size and user metadata. The
    bodies of the objects there before the first run are kept, to put back what a run overwrote."""

    def __init__(self, s3: Any) -> None:
        self.s3 = s3
        self._bodies: dict[str, dict[str, tuple[bytes, dict[str, Any]]]] = {}

    def names(self) -> list[str]:
        return [S3 + b["Name"] for b in self.s3.list_buckets().get("Buckets", [])]

    def _keys(self, bucket: str) -> list[str]:
        keys: list[str] = []
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            keys.extend(o["Key"] for o in page.get("Contents", []))
        return keys

    def items(self, name: str) -> Items:
        bucket = name.removeprefix(S3)
        out: Items = {}
        for key in self._keys(bucket):
            head = self.s3.head_object(Bucket=bucket, Key=key)
            out[key] = {"ETag": head["ETag"], "Size": head["ContentLength"], "Metadata": head.get("Metadata", {})}
        return out

    def keep(self, name: str) -> None:
        bucket = name.removeprefix(S3)
        kept = {}
        for key in self._keys(bucket):
            got = self.s3.get_object(Bucket=bucket, Key=key)
            kept[key] = (got["Body"].read(), {"Metadata": got.get("Metadata", {}),
                                              "ContentType": got.get("ContentType", "binary/octet-stream")})
        self._bodies[name] = kept

    def restore(self, name: str, before: Items) -> None:
        bucket = name.removeprefix(S3)
        now = self.items(name)
        for key in now:
            if key not in before:
                self.s3.delete_object(Bucket=bucket, Key=key)
        for key, obj in before.items():
            if now.get(key) != obj and key in self._bodies.get(name, {}):
                body, fields = self._bodies[name][key]
                self.s3.put_object(Bucket=bucket, Key=key, Body=body, **fields)


class Effects:
    """Every business resource of the sandbox, each kind by its name's prefix."""

    def __init__(self, ddb: Any, s3: Any, db: Any, account: str, region: str) -> None:
        self.tables = Tables(ddb)
        self.queues = Queues(db, account, region)
        self.buckets = Buckets(s3)

    def names(self) -> list[str]:
        return [*self.tables.names(), *self.queues.names(), *self.buckets.names()]

    def key_names(self, name: str) -> list[str] | None:
        """A table's key attributes; None for messages and objects (their keys are not generated)."""
        return None if name.startswith((SQS, S3)) else self.tables.key_names(name)

    def items(self, name: str) -> Items:
        if name.startswith(SQS):
            return self.queues.items(name)
        if name.startswith(S3):
            return self.buckets.items(name)
        return self.tables.items(name)

    def snapshot(self, names: list[str], *, keep: bool = False) -> Snapshot:
        """Each resource's items; `keep` also remembers what `restore` needs to put them back."""
        if keep:
            for name in names:
                if name.startswith(SQS):
                    self.queues.keep(name)
                elif name.startswith(S3):
                    self.buckets.keep(name)
        return {n: self.items(n) for n in names}

    def restore(self, name: str, before: Items) -> None:
        if name.startswith(SQS):
            if self.queues.items(name) != before:
                self.queues.restore(name)
        elif name.startswith(S3):
            self.buckets.restore(name, before)
        else:
            self.tables.restore(name, before)
