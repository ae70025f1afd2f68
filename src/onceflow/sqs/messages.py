"""Messages: send (delays, FIFO deduplication), receive (visibility, FIFO groups in order,
dead-letter redrive), delete, visibility changes and message move tasks.

Every change is one write transaction, so an answered send, receive or delete is durable.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import secrets
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onceflow.sqs import attributes as attrs
from onceflow.sqs.digest import md5_of_attributes, md5_of_body
from onceflow.sqs.errors import bad_parameter, invalid_handle, invalid_value, missing, sqs_error
from onceflow.sqs.queues import Queue, Queues, now_ms
from onceflow.store.db import Database

DEDUP_WINDOW_MS = 5 * 60 * 1000
SEQUENCE_BASE = 18_000_000_000_000_000_000  # FIFO sequence numbers: 20 digits, growing with the row id
MAX_ATTRIBUTES = 10
_INVALID_BODY = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTRIBUTE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,256}$")
_BATCH_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
SYSTEM_NAMES = ["SenderId", "SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp",
                "SequenceNumber", "MessageDeduplicationId", "MessageGroupId", "AWSTraceHeader",
                "DeadLetterQueueSourceArn"]


@dataclass
class Outgoing:
    """One message to send, as SendMessage or a batch entry gives it."""

    body: str
    delay: int | None = None
    attributes: dict[str, Any] | None = None
    system: dict[str, Any] | None = None
    dedup_id: str | None = None
    group_id: str | None = None


def _sized_attribute(name: str, value: dict[str, Any]) -> int:
    data = value.get("BinaryValue")
    return len(name.encode()) + len(str(value.get("DataType", "")).encode()) + (
        len(data) if data is not None else len(str(value.get("StringValue", "")).encode()))


def check_attributes(values: dict[str, Any] | None, what: str = "user") -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if not values:
        return out
    if len(values) > MAX_ATTRIBUTES:
        raise invalid_value(f"Number of message attributes [{len(values)}] exceeds the allowed maximum "
                            f"[{MAX_ATTRIBUTES}].")
    for name, value in values.items():
        if not _ATTRIBUTE_NAME.match(name) or ".." in name or name.lower().startswith(("aws.", "amazon.")):
            raise invalid_value(f"The message attribute name '{name}' is invalid. Attribute name can contain A-Z, "
                                "a-z, 0-9, underscore (_), hyphen (-), and period (.) characters.")
        data_type = str(value.get("DataType", ""))
        base = data_type.split(".", 1)[0]
        if base not in ("String", "Number", "Binary"):
            raise invalid_value(f"The type of message ({what}) attribute '{name}' is invalid. You must use only the "
                                "following supported type prefixes: Binary, Number, String.")
        if base == "Binary":
            blob = value.get("BinaryValue")
            if not blob:
                raise invalid_value(f"The message ({what}) attribute '{name}' must contain a non-empty message "
                                    f"attribute value for message attribute type '{base}'.")
            out[name] = {"DataType": data_type, "BinaryValue": bytes(blob)}
        else:
            text = value.get("StringValue")
            if text is None or text == "":
                raise invalid_value(f"The message ({what}) attribute '{name}' must contain a non-empty message "
                                    f"attribute value for message attribute type '{base}'.")
            if base == "Number":
                try:
                    float(text)
                except ValueError:
                    raise invalid_value(f"Can't cast the value of message ({what}) attribute '{name}' to a "
                                        "number.") from None
            out[name] = {"DataType": data_type, "StringValue": text}
    return out


def _stored(values: dict[str, dict[str, Any]]) -> str | None:
    if not values:
        return None
    return json.dumps({k: {**v, "BinaryValue": base64.b64encode(v["BinaryValue"]).decode()} if "BinaryValue" in v
                       else v for k, v in values.items()})


def _loaded(text: str | None) -> dict[str, dict[str, Any]]:
    if not text:
        return {}
    values = json.loads(text)
    return {k: {**v, "BinaryValue": base64.b64decode(v["BinaryValue"])} if "BinaryValue" in v else v
            for k, v in values.items()}


def sequence_of(row_id: int) -> str:
    return str(SEQUENCE_BASE + row_id)


def check_fifo_batch(q: Queue, entries: list[dict[str, Any]]) -> None:
    """A FIFO batch entry without its group id, or without a deduplication id where the queue does
    not derive one, refuses the whole request, not that entry (LocalStack's AWS-recorded
    test_send_batch_missing_message_group_id_for_fifo_queue and ..._deduplication_id_...: both
    InvalidParameterValue, where a lone SendMessage without a group id is MissingParameter)."""
    content_based = q.attributes.get("ContentBasedDeduplication") == "true"
    for e in entries:
        if not content_based and not e.get("MessageDeduplicationId"):
            raise invalid_value("The queue should either have ContentBasedDeduplication enabled or "
                                "MessageDeduplicationId provided explicitly")
        if not e.get("MessageGroupId"):
            raise invalid_value("The request must contain the parameter MessageGroupId.")


def make_handle(queue_id: int, row_id: int, token: str) -> str:
    return base64.b64encode(f"{queue_id}:{row_id}:{token}:{secrets.token_hex(24)}".encode()).decode()


def read_handle(handle: str) -> tuple[int, int, str]:
    try:
        queue_id, row_id, token, _ = base64.b64decode(handle, validate=True).decode().split(":")
        return int(queue_id), int(row_id), token
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise invalid_handle(handle) from None


class Messages:
    def __init__(self, db: Database, queues: Queues, notify: Callable[[int], None]) -> None:
        self.db = db
        self.queues = queues
        self.notify = notify  # queue id -> wake the long polls waiting on it (after the commit)
        self._swept: dict[int, int] = {}  # queue id -> when its expired messages were last deleted

    def forget_sweeps(self) -> None:
        self._swept.clear()

    # ------------------------------------------------------------------ send
    def prepare(self, q: Queue, m: Outgoing) -> dict[str, Any]:
        """Check one message against the queue's rules; the row values to insert."""
        if m.body == "":
            raise missing("MessageBody")
        if _INVALID_BODY.search(m.body):
            raise sqs_error("InvalidMessageContents", "Invalid characters found. Valid unicode characters are #x9 | "
                            "#xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF")
        user = check_attributes(m.attributes)
        system = check_attributes(m.system, "system")
        if set(system) - {"AWSTraceHeader"}:
            raise invalid_value(f"Message system attribute name '{sorted(set(system) - {'AWSTraceHeader'})[0]}' is "
                                "invalid.")
        size = len(m.body.encode()) + sum(_sized_attribute(k, v) for k, v in user.items())
        limit = q.int_attribute("MaximumMessageSize")
        if size > limit:
            raise invalid_value(f"One or more parameters are invalid. Reason: Message must be shorter than {limit} "
                                "bytes.")
        if m.delay is not None and not 0 <= m.delay <= 900:
            raise bad_parameter("DelaySeconds", m.delay, "DelaySeconds must be >= 0 and <= 900.")
        dedup = m.dedup_id
        if q.fifo:
            if m.delay:
                raise bad_parameter("DelaySeconds", m.delay, "The request include parameter that is not valid for "
                                    "this queue type.")
            if not m.group_id:
                raise missing("MessageGroupId")
            if dedup is None:
                if q.attributes.get("ContentBasedDeduplication") != "true":
                    raise invalid_value("The queue should either have ContentBasedDeduplication enabled or "
                                        "MessageDeduplicationId provided explicitly")
                dedup = hashlib.sha256(m.body.encode()).hexdigest()
        elif m.dedup_id is not None:
            # AWS's words, "include" as for DelaySeconds on a FIFO queue (a live standard queue's refusal,
            # quoted in a public deploy post-mortem: "...Reason: The request include parameter that is not
            # valid for this queue type.").
            raise bad_parameter("MessageDeduplicationId", m.dedup_id, "The request include parameter that is not "
                                "valid for this queue type.")
        delay = m.delay if m.delay is not None else q.int_attribute("DelaySeconds")
        return {"body": m.body, "attributes": _stored(user), "md5_body": md5_of_body(m.body),
                "md5_attributes": md5_of_attributes(user), "system": _stored(system),
                "md5_system": md5_of_attributes(system), "delay": delay, "group_id": m.group_id,
                "dedup_id": dedup}

    def insert(self, conn: sqlite3.Connection, q: Queue, row: dict[str, Any], sender: str,
               now: int) -> dict[str, Any]:
        """Insert a prepared message (or find its duplicate); the SendMessage result."""
        if q.fifo:
            key = row["dedup_id"] if q.attributes.get("DeduplicationScope") != "messageGroup" else \
                f"{row['group_id']}\x00{row['dedup_id']}"
            seen = conn.execute("SELECT message_id, sequence FROM sqs_dedup WHERE queue_id=? AND dedup_id=? AND "
                                "expires_ms > ?", (q.id, key, now)).fetchone()
            if seen is not None:
                return self._sent(row, seen[0], seen[1])
        message_id = str(uuid.uuid4())
        cur = conn.execute(
            "INSERT INTO sqs_messages (queue_id, message_id, body, attributes, md5_body, md5_attributes, system, "
            "sender, sent_ms, visible_ms, group_id, dedup_id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (q.id, message_id, row["body"], row["attributes"], row["md5_body"], row["md5_attributes"], row["system"],
             sender, now, now + row["delay"] * 1000, row["group_id"], row["dedup_id"] if q.fifo else None))
        sequence = None
        if q.fifo:
            sequence = sequence_of(cur.lastrowid or 0)
            conn.execute("UPDATE sqs_messages SET sequence=? WHERE id=?", (sequence, cur.lastrowid))
            conn.execute("INSERT OR REPLACE INTO sqs_dedup VALUES (?,?,?,?,?)",
                         (q.id, key, message_id, sequence, now + DEDUP_WINDOW_MS))
        return self._sent(row, message_id, sequence)

    @staticmethod
    def _sent(row: dict[str, Any], message_id: str, sequence: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"MD5OfMessageBody": row["md5_body"]}
        if row["md5_attributes"]:
            out["MD5OfMessageAttributes"] = row["md5_attributes"]
        if row["md5_system"]:
            out["MD5OfMessageSystemAttributes"] = row["md5_system"]
        out["MessageId"] = message_id
        if sequence:
            out["SequenceNumber"] = sequence
        return out

    def send(self, q: Queue, m: Outgoing, sender: str) -> dict[str, Any]:
        row = self.prepare(q, m)
        with self.db.transaction() as conn:
            out = self.insert(conn, q, row, sender, now_ms())
        self.notify(q.id)
        return out

    def send_batch(self, q: Queue, entries: list[dict[str, Any]], sender: str) -> dict[str, Any]:
        check_batch(entries, "SendMessageBatchRequestEntry")
        total = sum(len(e.get("MessageBody", "").encode()) + sum(_sized_attribute(k, v) for k, v in
                                                                 (e.get("MessageAttributes") or {}).items())
                    for e in entries)
        if total > 1048576:
            raise sqs_error("BatchRequestTooLong", f"Batch requests cannot be longer than 1048576 bytes. You have "
                            f"sent {total} bytes.")
        if q.fifo:
            check_fifo_batch(q, entries)
        ok: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        prepared = []
        for e in entries:
            try:
                prepared.append((e["Id"], self.prepare(q, Outgoing(
                    e.get("MessageBody", ""), e.get("DelaySeconds"), e.get("MessageAttributes"),
                    e.get("MessageSystemAttributes"), e.get("MessageDeduplicationId"), e.get("MessageGroupId")))))
            except Exception as exc:
                failed.append(batch_failure(e["Id"], exc))
        if prepared:
            with self.db.transaction() as conn:
                now = now_ms()
                for entry_id, row in prepared:
                    ok.append({"Id": entry_id, **self.insert(conn, q, row, sender, now)})
            self.notify(q.id)
        return {"Successful": ok, "Failed": failed}

    # ------------------------------------------------------------------ receive
    def receive(self, q: Queue, limit: int, visibility: int, system_names: list[str],
                attribute_names: list[str]) -> tuple[list[dict[str, Any]], float | None]:
        """Up to `limit` messages made invisible for `visibility` seconds, and (when there are none)
        the seconds until one may become visible by itself."""
        now = now_ms()
        self._sweep(q, now)
        redrive = attrs.redrive(q.attributes)
        out: list[dict[str, Any]] = []
        moved_to: set[int] = set()
        with self.db.transaction() as conn:
            dlq = self.queues.by_arn(redrive[0], conn) if redrive else None
            for row in self._candidates(conn, q, now, limit):
                if dlq is not None and redrive is not None and row["receive_count"] >= redrive[1]:
                    conn.execute("UPDATE sqs_messages SET queue_id=?, receive_count=0, first_receive_ms=NULL, "
                                 "token=NULL, visible_ms=?, dlq_source=? WHERE id=?", (dlq.id, now, q.arn, row["id"]))
                    moved_to.add(dlq.id)
                    continue
                token = secrets.token_hex(8)
                conn.execute("UPDATE sqs_messages SET receive_count=receive_count+1, token=?, visible_ms=?, "
                             "first_receive_ms=COALESCE(first_receive_ms, ?) WHERE id=?",
                             (token, now + visibility * 1000, now, row["id"]))
                out.append(self._received(q, row, token, now, system_names, attribute_names))
                if len(out) >= limit:
                    break
            ready_in = None
            if not out:
                nxt = conn.execute("SELECT MIN(visible_ms) FROM sqs_messages WHERE queue_id=? AND visible_ms > ?",
                                   (q.id, now)).fetchone()[0]
                ready_in = (nxt - now) / 1000 if nxt is not None else None
        for queue_id in moved_to:
            self.notify(queue_id)
        return out, ready_in

    def _candidates(self, conn: sqlite3.Connection, q: Queue, now: int, limit: int) -> Any:
        cutoff = now - q.int_attribute("MessageRetentionPeriod") * 1000
        if not q.fifo:
            # More than asked for: some may go to the dead-letter queue instead.
            yield from conn.execute("SELECT * FROM sqs_messages WHERE queue_id=? AND visible_ms <= ? AND sent_ms > ? "
                                    "ORDER BY visible_ms, id LIMIT ?", (q.id, now, cutoff, limit * 4)).fetchall()
            return
        # FIFO: in order of sending, and nothing from a group that has a message in flight.
        blocked = {r[0] for r in conn.execute(
            "SELECT DISTINCT group_id FROM sqs_messages WHERE queue_id=? AND visible_ms > ?", (q.id, now))}
        last = 0
        while True:
            rows = conn.execute("SELECT * FROM sqs_messages WHERE queue_id=? AND id > ? ORDER BY id LIMIT 200",
                                (q.id, last)).fetchall()
            if not rows:
                return
            for row in rows:
                last = row["id"]
                if row["group_id"] in blocked:
                    continue
                if row["visible_ms"] > now:
                    blocked.add(row["group_id"])
                    continue
                if row["sent_ms"] <= cutoff:
                    continue
                yield row

    def _received(self, q: Queue, row: sqlite3.Row, token: str, now: int, system_names: list[str],
                  attribute_names: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"MessageId": row["message_id"], "ReceiptHandle": make_handle(q.id, row["id"], token),
                               "MD5OfBody": row["md5_body"], "Body": row["body"]}
        # Only (Message)AttributeNames asks for system attributes: MessageAttributeNames ["All"] alone
        # answers none (recorded on AWS, LocalStack's test_lambda_destinations receive_message_result).
        wanted = set(SYSTEM_NAMES) if "All" in system_names else set(system_names)
        if wanted:
            system = _loaded(row["system"])
            values = {
                "SenderId": row["sender"], "SentTimestamp": str(row["sent_ms"]),
                "ApproximateReceiveCount": str(row["receive_count"] + 1),
                "ApproximateFirstReceiveTimestamp": str(row["first_receive_ms"] or now),
                "SequenceNumber": row["sequence"], "MessageDeduplicationId": row["dedup_id"],
                "MessageGroupId": row["group_id"],
                "AWSTraceHeader": system.get("AWSTraceHeader", {}).get("StringValue"),
                "DeadLetterQueueSourceArn": row["dlq_source"],
            }
            chosen = {k: v for k, v in values.items() if k in wanted and v is not None}
            if chosen:
                out["Attributes"] = chosen
        user = _loaded(row["attributes"])
        if user and attribute_names:
            selected = {k: v for k, v in user.items() if _selected(k, attribute_names)}
            if selected:
                # Of the attributes returned (the SDKs check it against them), not of all.
                out["MD5OfMessageAttributes"] = (row["md5_attributes"] if len(selected) == len(user)
                                                 else md5_of_attributes(selected))
                out["MessageAttributes"] = selected
        return out

    def _sweep(self, q: Queue, now: int) -> None:
        """Delete messages past the retention period, at most once a minute per queue."""
        if now - self._swept.get(q.id, 0) < 60_000:
            return
        self._swept[q.id] = now
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sqs_messages WHERE queue_id=? AND sent_ms <= ?",
                         (q.id, now - q.int_attribute("MessageRetentionPeriod") * 1000))
            conn.execute("DELETE FROM sqs_dedup WHERE queue_id=? AND expires_ms <= ?", (q.id, now))

    def still_held(self, handles: list[str]) -> bool:
        """Whether every handle's message is still in flight under that very receive."""
        now = now_ms()
        for handle in handles:
            _, row_id, token = read_handle(handle)
            row = self.db.query_one("SELECT token, visible_ms FROM sqs_messages WHERE id=?", (row_id,))
            if row is None or row[0] != token or row[1] <= now:
                return False
        return True

    # ------------------------------------------------------------------ delete, visibility
    def delete(self, q: Queue, handle: str, conn: sqlite3.Connection | None = None) -> None:
        queue_id, row_id, token = read_handle(handle)
        if queue_id != q.id:
            raise invalid_handle(handle)

        def delete(c: sqlite3.Connection) -> None:
            if q.fifo:
                # A FIFO message whose visibility ran out is back in its group: its handle expired
                # (LocalStack's AWS-recorded test_fifo_delete_message_with_expired_receipt_handle).
                row = c.execute("SELECT visible_ms FROM sqs_messages WHERE id=? AND queue_id=? AND token=?",
                                (row_id, q.id, token)).fetchone()
                if row is not None and row[0] <= now_ms():
                    raise bad_parameter("ReceiptHandle", handle, "The receipt handle has expired.")
            if q.fifo:
                c.execute("DELETE FROM sqs_messages WHERE id=? AND queue_id=? AND token=?", (row_id, q.id, token))
            else:
                # Any receipt of a standard queue's message deletes it, not only the latest one: AWS does
                # (moto's test_delete_message_using_old_receipt_handle; LocalStack keeps every handle
                # of a message for this). The docs only say it "might not be deleted".
                c.execute("DELETE FROM sqs_messages WHERE id=? AND queue_id=? AND token IS NOT NULL",
                          (row_id, q.id))

        if conn is None:
            with self.db.transaction() as c:
                delete(c)
        else:
            delete(conn)

    def delete_batch(self, q: Queue, entries: list[dict[str, Any]]) -> dict[str, Any]:
        check_batch(entries, "DeleteMessageBatchRequestEntry")
        ok, failed = [], []
        with self.db.transaction() as conn:
            for e in entries:
                try:
                    self.delete(q, e["ReceiptHandle"], conn)
                    ok.append({"Id": e["Id"]})
                except Exception as exc:
                    failed.append(batch_failure(e["Id"], exc))
        return {"Successful": ok, "Failed": failed}

    def change_visibility(self, q: Queue, handle: str, timeout: int, conn: sqlite3.Connection | None = None) -> None:
        if not 0 <= timeout <= 43200:
            raise bad_parameter("VisibilityTimeout", timeout, "Must be between 0 and 43200, if provided.")
        queue_id, row_id, token = read_handle(handle)
        if queue_id != q.id:
            raise invalid_handle(handle)

        def change(c: sqlite3.Connection) -> None:
            now = now_ms()
            row = c.execute("SELECT token, visible_ms FROM sqs_messages WHERE id=? AND queue_id=?",
                            (row_id, q.id)).fetchone()
            if row is None or row[0] is None or (q.fifo and row[0] != token):
                # A standard queue's message takes the change through an earlier receipt too ("allowed
                # in AWS", moto's test_change_message_visibility_on_old_message); a FIFO one only
                # through its latest.
                raise bad_parameter("ReceiptHandle", handle, "Message does not exist or is not available for "
                                    "visibility timeout change.")
            # A message whose visibility ran out (not received since) still takes the change: AWS answers
            # 200, not MessageNotInflight (LocalStack's AWS-recorded
            # test_change_message_visibility_after_visibility_timeout_expiration). UNCONFIRMED that the
            # message is hidden again for the new timeout, as it is here.
            c.execute("UPDATE sqs_messages SET visible_ms=? WHERE id=?", (now + timeout * 1000, row_id))

        if conn is not None:
            change(conn)
        else:
            with self.db.transaction() as c:
                change(c)
        if timeout == 0:
            self.notify(q.id)

    def change_visibility_batch(self, q: Queue, entries: list[dict[str, Any]]) -> dict[str, Any]:
        check_batch(entries, "ChangeMessageVisibilityBatchRequestEntry")
        ok, failed = [], []
        with self.db.transaction() as conn:
            for e in entries:
                try:
                    self.change_visibility(q, e["ReceiptHandle"], e.get("VisibilityTimeout", 0), conn)
                    ok.append({"Id": e["Id"]})
                except Exception as exc:
                    failed.append(batch_failure(e["Id"], exc))
        self.notify(q.id)
        return {"Successful": ok, "Failed": failed}

    # ------------------------------------------------------------------ moving messages out of a DLQ
    def move(self, source: Queue, destination: Queue | None) -> int:
        """Move every message of a dead-letter queue back to its source queue (or `destination`)."""
        now = now_ms()
        touched: set[int] = set()
        moved = 0
        with self.db.transaction() as conn:
            rows = conn.execute("SELECT id, dlq_source FROM sqs_messages WHERE queue_id=? AND visible_ms <= ?",
                                (source.id, now)).fetchall()
            for row in rows:
                target = destination or (self.queues.by_arn(row[1], conn) if row[1] else None)
                if target is None:
                    continue
                conn.execute("UPDATE sqs_messages SET queue_id=?, receive_count=0, first_receive_ms=NULL, token=NULL,"
                             " visible_ms=?, dlq_source=NULL WHERE id=?", (target.id, now, row[0]))
                touched.add(target.id)
                moved += 1
        for queue_id in touched:
            self.notify(queue_id)
        return moved


def _selected(name: str, wanted: list[str]) -> bool:
    """Whether MessageAttributeNames asks for `name`: All, .* (or *, which AWS also takes), the name,
    or `<prefix>.*` for the names that start with <prefix> (`Custom.*` selects `Custom1`)."""
    for w in wanted:
        if w in ("All", ".*", "*") or w == name or (w.endswith(".*") and name.startswith(w[:-2])):
            return True
    return False


def check_batch(entries: list[dict[str, Any]], entry_name: str) -> None:
    if not entries:
        raise sqs_error("EmptyBatchRequest", f"There should be at least one {entry_name} in the request.")
    if len(entries) > 10:
        raise sqs_error("TooManyEntriesInBatchRequest", f"Maximum number of entries per request are 10. You have sent "
                        f"{len(entries)}.")
    seen: set[str] = set()
    for e in entries:
        if not _BATCH_ID.match(e["Id"]):
            raise sqs_error("InvalidBatchEntryId", "A batch entry id can only contain alphanumeric characters, "
                            "hyphens and underscores. It can be at most 80 letters long.")
        if e["Id"] in seen:
            raise sqs_error("BatchEntryIdsNotDistinct", f"Id {e['Id']} repeated.")
        seen.add(e["Id"])


def batch_failure(entry_id: str, exc: Exception) -> dict[str, Any]:
    code = getattr(exc, "query_code", None) or getattr(exc, "code", "InternalError")
    if not hasattr(exc, "code"):
        raise exc
    return {"Id": entry_id, "SenderFault": bool(getattr(exc, "sender_fault", True)), "Code": code,
            "Message": getattr(exc, "message", str(exc))}
