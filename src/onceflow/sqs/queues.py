"""Queues: create, find by URL or ARN, attributes, tags, permissions, delete, purge, list."""

from __future__ import annotations

import builtins
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

from onceflow.awsmodels.partitions import partition
from onceflow.sqs import attributes as attrs
from onceflow.sqs import paging
from onceflow.sqs.errors import bad_parameter, invalid_value, no_queue, sqs_error
from onceflow.store.db import Database

DELETED_RECENTLY_MS = 60_000  # AWS: wait 60 seconds after deleting a queue to create one of that name
PURGE_INTERVAL_MS = 60_000


def now_ms() -> int:
    return int(time.time() * 1000)


def check_list_limit(limit: int | None) -> None:
    """ListQueues' and ListDeadLetterSourceQueues' MaxResults: 1 to 1000 (the API reference's range
    for both; the message is ListQueues')."""
    if limit is not None and not 1 <= limit <= 1000:
        raise bad_parameter("MaxResults", limit, "MaxResults must be an integer between 1 and 1000.")


@dataclass(frozen=True)
class Queue:
    id: int
    account: str
    region: str
    name: str
    fifo: bool
    attributes: dict[str, str]
    created: int
    modified: int
    purged_ms: int

    @property
    def arn(self) -> str:
        return queue_arn(self.region, self.account, self.name)

    def int_attribute(self, name: str) -> int:
        return int(self.attributes.get(name, attrs.DEFAULTS.get(name, "0")))


def queue_arn(region: str, account: str, name: str) -> str:
    return f"arn:{partition(region)}:sqs:{region}:{account}:{name}"


def _queue(row: sqlite3.Row) -> Queue:
    return Queue(row["id"], row["account"], row["region"], row["name"], bool(row["fifo"]),
                 json.loads(row["attributes"]), row["created"], row["modified"], row["purged_ms"])


# Granting or denying permissions stays the queue owner's (AddPermission reference), so these
# can't be granted to another account.
OWNER_ONLY_ACTIONS = {"AddPermission", "RemovePermission"}
MAX_PERMISSION_ACTIONS = 7  # an AddPermission call names at most 7 actions (AWS's OverLimit)


def url_parts(url: str) -> tuple[str, str] | None:
    """(account, name) of a queue URL: its path's last two segments, whatever the host."""
    path = urlparse(url).path if "://" in url else url
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2 or not parts[-2].isdigit():
        return None
    return parts[-2], parts[-1]


def is_bare_name(url: str) -> bool:
    """A QueueUrl that is only a queue's name (no scheme, no path)."""
    return bool(url) and "/" not in url and ":" not in url


class Queues:
    def __init__(self, db: Database, endpoint_url: str) -> None:
        self.db = db
        self.endpoint = endpoint_url.rstrip("/")

    def url(self, q: Queue) -> str:
        return f"{self.endpoint}/{q.account}/{q.name}"

    def url_of(self, account: str, name: str) -> str:
        return f"{self.endpoint}/{account}/{name}"

    # ------------------------------------------------------------------ finding
    def by_url(self, region: str, url: str, conn: sqlite3.Connection | None = None) -> Queue:
        parts = url_parts(url)
        if parts is None:
            raise no_queue()
        return self.by_name(parts[0], region, parts[1], conn)

    def by_name(self, account: str, region: str, name: str, conn: sqlite3.Connection | None = None) -> Queue:
        sql = "SELECT * FROM sqs_queues WHERE account=? AND region=? AND name=?"
        row = (conn.execute(sql, (account, region, name)).fetchone() if conn is not None
               else self.db.query_one(sql, (account, region, name)))
        if row is None:
            raise no_queue()
        return _queue(row)

    def by_arn(self, arn: str, conn: sqlite3.Connection | None = None) -> Queue | None:
        parts = arn.split(":")
        if len(parts) != 6 or parts[2] != "sqs":
            return None
        try:
            return self.by_name(parts[4], parts[3], parts[5], conn)
        except Exception:
            return None

    def by_id(self, conn: sqlite3.Connection, queue_id: int) -> Queue | None:
        row = conn.execute("SELECT * FROM sqs_queues WHERE id=?", (queue_id,)).fetchone()
        return _queue(row) if row else None

    # ------------------------------------------------------------------ lifecycle
    def create(self, account: str, region: str, name: str, attributes: dict[str, str],
               tags: dict[str, str]) -> str:
        fifo = attrs.fifo_of(name, attributes)
        attrs.check_name(name, fifo)
        wanted = attrs.check(attributes, fifo)
        full = {**attrs.DEFAULTS, **(attrs.FIFO_DEFAULTS if fifo else {}), **wanted}
        if "KmsMasterKeyId" in wanted:  # KMS encryption replaces SQS-managed encryption
            full.setdefault("KmsDataKeyReusePeriodSeconds", "300")
            if "SqsManagedSseEnabled" not in wanted:
                full.pop("SqsManagedSseEnabled", None)
        now = now_ms()
        with self.db.transaction() as conn:
            self._check_dead_letter(conn, wanted, fifo)
            row = conn.execute("SELECT * FROM sqs_queues WHERE account=? AND region=? AND name=?",
                               (account, region, name)).fetchone()
            if row is not None:
                existing = _queue(row)
                for key, value in wanted.items():
                    if existing.attributes.get(key, attrs.DEFAULTS.get(key)) != value:
                        raise sqs_error("QueueNameExists", "A queue already exists with the same name and a different"
                                        f" value for attribute {key}")
                return self.url(existing)
            gone = conn.execute("SELECT deleted_ms FROM sqs_deleted WHERE account=? AND region=? AND name=?",
                                (account, region, name)).fetchone()
            if gone is not None and now - gone[0] < DELETED_RECENTLY_MS:
                raise sqs_error("QueueDeletedRecently", "You must wait 60 seconds after deleting a queue before you "
                                "can create another with the same name.")
            conn.execute("INSERT INTO sqs_queues (account, region, name, fifo, attributes, tags, created, modified) "
                         "VALUES (?,?,?,?,?,?,?,?)", (account, region, name, int(fifo), json.dumps(full),
                                                      json.dumps(tags), now // 1000, now // 1000))
        return self.url_of(account, name)

    def delete(self, q: Queue) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sqs_messages WHERE queue_id=?", (q.id,))
            conn.execute("DELETE FROM sqs_dedup WHERE queue_id=?", (q.id,))
            conn.execute("DELETE FROM sqs_queues WHERE id=?", (q.id,))
            conn.execute("INSERT OR REPLACE INTO sqs_deleted VALUES (?,?,?,?)", (q.account, q.region, q.name,
                                                                                now_ms()))

    def purge(self, q: Queue) -> None:
        now = now_ms()
        with self.db.transaction() as conn:
            row = conn.execute("SELECT purged_ms FROM sqs_queues WHERE id=?", (q.id,)).fetchone()
            if row is not None and now - row[0] < PURGE_INTERVAL_MS:
                raise sqs_error("PurgeQueueInProgress", f"Only one PurgeQueue operation on {q.name} is allowed "
                                "every 60 seconds.", 403)
            conn.execute("DELETE FROM sqs_messages WHERE queue_id=?", (q.id,))
            conn.execute("UPDATE sqs_queues SET purged_ms=? WHERE id=?", (now, q.id))

    # ------------------------------------------------------------------ attributes
    def set_attributes(self, q: Queue, attributes: dict[str, str]) -> None:
        wanted = attrs.check(attributes, q.fifo)
        if "FifoQueue" in wanted and wanted["FifoQueue"] != ("true" if q.fifo else "false"):
            raise invalid_value("Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not "
                                "supported.")
        with self.db.transaction() as conn:
            row = conn.execute("SELECT attributes FROM sqs_queues WHERE id=?", (q.id,)).fetchone()
            if row is None:
                raise no_queue()
            self._check_dead_letter(conn, wanted, q.fifo)
            current = json.loads(row[0])
            for key, value in wanted.items():
                if value == "" and key in attrs.JSON_VALUES:
                    current.pop(key, None)
                else:
                    current[key] = value
            conn.execute("UPDATE sqs_queues SET attributes=?, modified=? WHERE id=?",
                         (json.dumps(current), now_ms() // 1000, q.id))

    def _check_dead_letter(self, conn: sqlite3.Connection, wanted: dict[str, str], fifo: bool) -> None:
        """AWS checks a RedrivePolicy's target when it is set: it must exist and be of the source's type."""
        target = attrs.redrive(wanted)
        if target is None:
            return
        dlq = self.by_arn(target[0], conn)
        reason = ("Dead letter target does not exist." if dlq is None
                  else None if dlq.fifo == fifo else "Dead-letter queue must be same type of queue as the source.")
        if reason is not None:
            raise invalid_value(f"Value {wanted['RedrivePolicy']} for parameter RedrivePolicy is invalid. "
                                f"Reason: {reason}")

    def get_attributes(self, q: Queue, names: list[str]) -> dict[str, str]:
        for name in names:
            if name != "All" and name not in attrs.READABLE:
                raise sqs_error("InvalidAttributeName", f"Unknown Attribute {name}.")
        wanted = set(attrs.ORDER) if "All" in names else set(names)
        values: dict[str, str] = dict(q.attributes)
        values["QueueArn"] = q.arn
        values["CreatedTimestamp"] = str(q.created)
        values["LastModifiedTimestamp"] = str(q.modified)
        if wanted & {"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible",
                     "ApproximateNumberOfMessagesDelayed"}:
            values.update(self.counts(q))
        return {name: values[name] for name in attrs.ORDER if name in wanted and name in values}

    def counts(self, q: Queue) -> dict[str, str]:
        now = now_ms()
        row = self.db.query_one(
            "SELECT SUM(visible_ms <= ?), SUM(visible_ms > ? AND receive_count > 0), "
            "SUM(visible_ms > ? AND receive_count = 0) FROM sqs_messages WHERE queue_id=?", (now, now, now, q.id))
        visible, in_flight, delayed = (row[0] or 0, row[1] or 0, row[2] or 0) if row else (0, 0, 0)
        return {"ApproximateNumberOfMessages": str(visible), "ApproximateNumberOfMessagesNotVisible": str(in_flight),
                "ApproximateNumberOfMessagesDelayed": str(delayed)}

    # ------------------------------------------------------------------ tags
    def tags(self, q: Queue) -> dict[str, str]:
        row = self.db.query_one("SELECT tags FROM sqs_queues WHERE id=?", (q.id,))
        return json.loads(row[0]) if row else {}

    def tag(self, q: Queue, tags: dict[str, str]) -> None:
        if not tags:
            raise sqs_error("MissingRequiredParameterException", "The request must contain the parameter Tags.")
        with self.db.transaction() as conn:
            current = json.loads(conn.execute("SELECT tags FROM sqs_queues WHERE id=?", (q.id,)).fetchone()[0])
            current.update(tags)
            if len(current) > 50:
                raise invalid_value(f"Too many tags added for queue {q.name}.")
            conn.execute("UPDATE sqs_queues SET tags=? WHERE id=?", (json.dumps(current), q.id))

    def untag(self, q: Queue, keys: list[str]) -> None:
        if not keys or any(not 1 <= len(k) <= 128 for k in keys):
            raise invalid_value("Tag keys must be between 1 and 128 characters in length.")
        with self.db.transaction() as conn:
            current = json.loads(conn.execute("SELECT tags FROM sqs_queues WHERE id=?", (q.id,)).fetchone()[0])
            for key in keys:
                current.pop(key, None)
            conn.execute("UPDATE sqs_queues SET tags=? WHERE id=?", (json.dumps(current), q.id))

    # ------------------------------------------------------------------ permissions (the queue policy)
    def add_permission(self, q: Queue, label: str, accounts: list[str], actions: list[str]) -> None:
        if not actions:
            raise sqs_error("MissingRequiredParameterException", "The request must contain the parameter Actions.")
        if not accounts:
            raise invalid_value("Value [] for parameter PrincipalId is invalid. Reason: Unable to verify.")
        if len(actions) > MAX_PERMISSION_ACTIONS:
            raise sqs_error("OverLimit", f"{len(actions)} Actions were found, maximum allowed is "
                            f"{MAX_PERMISSION_ACTIONS}.", 403)
        for action in actions:
            if action in OWNER_ONLY_ACTIONS:
                raise invalid_value(f"Value SQS:{action} for parameter ActionName is invalid. Reason: Only the queue "
                                    "owner is allowed to invoke this action.")
        policy = json.loads(q.attributes.get("Policy") or "null") or {
            "Version": "2012-10-17", "Id": f"{q.arn}/SQSDefaultPolicy", "Statement": []}
        if any(s.get("Sid") == label for s in policy["Statement"]):
            raise invalid_value(f"Value {label} for parameter Label is invalid. Reason: Already exists.")
        principals = [f"arn:{q.arn.split(':')[1]}:iam::{a}:root" for a in accounts]  # the queue's partition
        policy["Statement"].append({
            "Sid": label, "Effect": "Allow",
            "Principal": {"AWS": principals[0] if len(principals) == 1 else principals},
            "Action": [f"SQS:{a}" for a in actions] if len(actions) > 1 else f"SQS:{actions[0]}",
            "Resource": q.arn})
        self.set_attributes(q, {"Policy": json.dumps(policy, separators=(",", ":"))})

    def remove_permission(self, q: Queue, label: str) -> None:
        policy = json.loads(q.attributes.get("Policy") or "null") or {"Statement": []}
        kept = [s for s in policy["Statement"] if s.get("Sid") != label]
        if len(kept) == len(policy["Statement"]):
            raise invalid_value(f"Value {label} for parameter Label is invalid. Reason: can't find label on existing "
                                "policy.")
        policy["Statement"] = kept
        self.set_attributes(q, {"Policy": json.dumps(policy, separators=(",", ":")) if kept else ""})

    # ------------------------------------------------------------------ listing
    def list(self, account: str, region: str, prefix: str | None, limit: int | None,
             token: str | None) -> dict[str, Any]:
        check_list_limit(limit)
        after = paging.after(token, "queues")
        rows = self.db.query("SELECT name FROM sqs_queues WHERE account=? AND region=? AND name > ? "
                             "AND substr(name, 1, ?) = ? ORDER BY name LIMIT ?",
                             (account, region, after, len(prefix or ""), prefix or "", (limit or 1000) + 1))
        names = [r[0] for r in rows]
        out: dict[str, Any] = {}
        page = names[: limit or 1000]
        if page:
            out["QueueUrls"] = [self.url_of(account, n) for n in page]
        if limit is not None and len(names) > limit:
            out["NextToken"] = paging.token_after(page[-1], "queues")
        return out

    def dead_letter_sources(self, q: Queue) -> builtins.list[str]:
        rows = self.db.query("SELECT name, attributes FROM sqs_queues WHERE account=? AND region=?",
                             (q.account, q.region))
        out = []
        for row in rows:
            policy = attrs.redrive(json.loads(row[1]))
            if policy is not None and policy[0] == q.arn:
                out.append(self.url_of(q.account, row[0]))
        return sorted(out)
