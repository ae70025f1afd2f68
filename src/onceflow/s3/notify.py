"""S3 event notifications: which of a bucket's configurations an object event matches, the
messages AWS sends (the `Records` event, s3:TestEvent, EventBridge's "Object Created"...), the
checks PutBucketNotificationConfiguration makes, and the thread that delivers.

An event is a row of an outbox (s3_notify_outbox) written inside the transaction of the change it
reports, so it exists exactly when that change commits and survives kill -9. One thread of its own
delivers the rows in order after the commit (never inside the writers' lock, never holding up the
request) and deletes each once made: at least once, as AWS promises. S3 reaches SQS, SNS and
Lambda as the service principal `s3.amazonaws.com`, so the destination's resource policy must let
it (iam/resource_access.py for queues and topics, Lambda's `may_invoke`); a delivery the policy
refuses is dropped and logged, as AWS drops it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote_plus

from onceflow import internal
from onceflow.awsmodels.partitions import partition
from onceflow.context import Principal, RequestContext
from onceflow.errors import ServiceError
from onceflow.s3 import errors, store
from onceflow.s3.restore import restored_until
from onceflow.s3.service import Hook
from onceflow.stack import Stack
from onceflow.store.db import Database

log = logging.getLogger("onceflow.s3")
S3_PRINCIPAL = "s3.amazonaws.com"
KINDS = (("QueueConfigurations", "QueueArn", "queue"), ("TopicConfigurations", "TopicArn", "topic"),
         ("LambdaFunctionConfigurations", "LambdaFunctionArn", "lambda"))
# EventBridge detail-types of the events S3 sends to the default bus (S3 User Guide, "Using EventBridge").
DETAIL_TYPES = {"ObjectCreated": "Object Created", "ObjectRemoved": "Object Deleted",
                "LifecycleExpiration": "Object Deleted", "ObjectRestore:Post": "Object Restore Initiated",
                "ObjectRestore:Completed": "Object Restore Completed", "ObjectRestore:Delete": "Object Restore Expired",
                "ObjectTagging:Put": "Object Tags Added", "ObjectTagging:Delete": "Object Tags Deleted",
                "ObjectAcl:Put": "Object ACL Updated"}
# The API action EventBridge's `reason` names for each event.
REASONS = {"ObjectCreated:Put": "PutObject", "ObjectCreated:Copy": "CopyObject",
           "ObjectCreated:CompleteMultipartUpload": "CompleteMultipartUpload",
           "ObjectRemoved:Delete": "DeleteObject", "ObjectRemoved:DeleteMarkerCreated": "DeleteObject",
           "LifecycleExpiration:Delete": "Lifecycle Expiration",
           "LifecycleExpiration:DeleteMarkerCreated": "Lifecycle Expiration"}
UNVALIDATED = "Unable to validate the following destination configurations"
# The S3 model's Event enum (what a configuration may name; only some of them happen here).
EVENTS = frozenset({
    "s3:ReducedRedundancyLostObject", "s3:ObjectCreated:*", "s3:ObjectCreated:Put", "s3:ObjectCreated:Post",
    "s3:ObjectCreated:Copy", "s3:ObjectCreated:CompleteMultipartUpload", "s3:ObjectRemoved:*",
    "s3:ObjectRemoved:Delete", "s3:ObjectRemoved:DeleteMarkerCreated", "s3:ObjectRestore:*",
    "s3:ObjectRestore:Post", "s3:ObjectRestore:Completed", "s3:ObjectRestore:Delete", "s3:Replication:*",
    "s3:Replication:OperationFailedReplication", "s3:Replication:OperationNotTracked",
    "s3:Replication:OperationMissedThreshold", "s3:Replication:OperationReplicatedAfterThreshold",
    "s3:LifecycleTransition", "s3:IntelligentTiering", "s3:ObjectAcl:Put", "s3:LifecycleExpiration:*",
    "s3:LifecycleExpiration:Delete", "s3:LifecycleExpiration:DeleteMarkerCreated", "s3:ObjectTagging:*",
    "s3:ObjectTagging:Put", "s3:ObjectTagging:Delete", "s3:ObjectAnnotation:*", "s3:ObjectAnnotation:Put",
    "s3:ObjectAnnotation:Delete", "s3:ObjectRetention:Put"})
IDLE_WAIT_S = 30.0  # a commit that adds jobs wakes the thread; this only bounds a missed wake-up


def _enqueue(conn: sqlite3.Connection, job: dict[str, Any]) -> None:
    conn.execute("INSERT INTO s3_notify_outbox (job) VALUES (?)", (json.dumps(job, separators=(",", ":")),))


@dataclass(frozen=True)
class Change:
    """One object event, with what its messages say about the request that caused it."""

    event: str  # "ObjectCreated:Put" (the Event enum without its "s3:")
    bucket: str
    key: str
    account: str  # the bucket owner's
    region: str  # the bucket's
    requester: str
    principal_id: str
    source_ip: str
    request_id: str
    size: int | None = None
    etag: str | None = None
    version_id: str | None = None
    restore: tuple[float, str] | None = None  # ObjectRestore:Completed: (the copy's expiry, storage class)
    sequencer: str = field(default_factory=lambda: f"{time.time_ns():016X}")
    at: float = field(default_factory=time.time)


def change(ctx: RequestContext, bucket_row: dict[str, Any], event: str, key: str,
           obj: dict[str, Any] | None = None, version_id: str | None = None) -> Change:
    p = ctx.principal
    principal_id = p.account if p.kind == "root" else p.name if p.kind == "service" else f"AWS:{p.access_key or p.name}"
    requester = p.name if p.kind == "service" else p.account  # S3's own deletes (lifecycle) name S3
    version = version_id if version_id is not None else (obj or {}).get("version_id")
    return Change(event, bucket_row["name"], key, bucket_row["account"], bucket_row["region"], requester,
                  principal_id, ctx.source_ip, ctx.request_id,
                  size=(obj or {}).get("size") if event.startswith("ObjectCreated") else None,
                  etag=(obj or {}).get("etag") or None, version_id=None if version == "null" else version,
                  restore=_restored(obj) if event == "ObjectRestore:Completed" else None)


def _restored(obj: dict[str, Any] | None) -> tuple[float, str] | None:
    until = restored_until(obj) if obj else None
    return (until, obj["headers"].get("StorageClass", "GLACIER")) if obj and until is not None else None


# ---------------------------------------------------------------------- matching
def event_matches(configured: list[str], event: str) -> bool:
    family = event.split(":", 1)[0]
    return f"s3:{event}" in configured or f"s3:{family}:*" in configured


def _filters(conf: dict[str, Any]) -> tuple[str, str]:
    """(prefix, suffix) of a configuration's Filter.Key.FilterRules ('' when absent)."""
    rules = ((conf.get("Filter") or {}).get("Key") or {}).get("FilterRules") or []
    found = {str(r.get("Name", "")).lower(): r.get("Value", "") or "" for r in rules}
    return found.get("prefix", ""), found.get("suffix", "")


def matching(config: dict[str, Any], event: str, key: str) -> list[tuple[str, str, str]]:
    """(kind, destination ARN, configuration id) of every configuration the event goes to."""
    out = []
    for member, arn_member, kind in KINDS:
        for conf in config.get(member) or []:
            prefix, suffix = _filters(conf)
            if event_matches(conf.get("Events") or [], event) and key.startswith(prefix) and key.endswith(suffix):
                out.append((kind, conf.get(arn_member, ""), conf.get("Id", "")))
    return out


# ---------------------------------------------------------------------- messages
def _iso_ms(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(at * 1000) % 1000:03d}Z"


def record_event(c: Change, config_id: str) -> dict[str, Any]:
    """The `Records` message (event structure 2.1) SQS, SNS and Lambda receive."""
    obj: dict[str, Any] = {"key": quote_plus(c.key, safe="/")}  # URL-encoded: "red flower.jpg" -> "red+flower.jpg"
    if c.size is not None:
        obj["size"] = c.size
    if c.etag:
        obj["eTag"] = c.etag
    if c.version_id:
        obj["versionId"] = c.version_id
    obj["sequencer"] = c.sequencer
    extra: dict[str, Any] = {}
    if c.restore is not None:  # what AWS adds to ObjectRestore:Completed
        extra["glacierEventData"] = {"restoreEventData": {"lifecycleRestorationExpiryTime": _iso_ms(c.restore[0]),
                                                          "lifecycleRestoreStorageClass": c.restore[1]}}
    return {"Records": [{
        "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": c.region, "eventTime": _iso_ms(c.at),
        "eventName": c.event, "userIdentity": {"principalId": c.principal_id},
        "requestParameters": {"sourceIPAddress": c.source_ip},
        "responseElements": {"x-amz-request-id": c.request_id, "x-amz-id-2": c.request_id},
        "s3": {"s3SchemaVersion": "1.0", "configurationId": config_id,
               "bucket": {"name": c.bucket, "ownerIdentity": {"principalId": c.account},
                          "arn": f"arn:{partition(c.region)}:s3:::{c.bucket}"},
               "object": obj}, **extra}]}


def eventbridge_event(c: Change) -> tuple[str, dict[str, Any]] | None:
    """(detail-type, detail) of the event S3 puts on the default bus, None for events it does not send."""
    detail_type = DETAIL_TYPES.get(c.event) or DETAIL_TYPES.get(c.event.split(":", 1)[0])
    if detail_type is None:
        return None
    obj: dict[str, Any] = {"key": c.key}  # EventBridge's keys are not URL-encoded
    if c.size is not None:
        obj["size"] = c.size
    if c.etag:
        obj["etag"] = c.etag
    if c.version_id:
        obj["version-id"] = c.version_id
    obj["sequencer"] = c.sequencer
    detail: dict[str, Any] = {"version": "0", "bucket": {"name": c.bucket}, "object": obj,
                              "request-id": c.request_id, "requester": c.requester,
                              "source-ip-address": c.source_ip}
    if c.event in REASONS:
        detail["reason"] = REASONS[c.event]
    if c.event.startswith(("ObjectRemoved", "LifecycleExpiration")):
        detail["deletion-type"] = ("Delete Marker Created" if c.event.endswith("DeleteMarkerCreated")
                                   else "Permanently Deleted")
    return detail_type, detail


def test_event(bucket: str, request_id: str) -> str:
    return json.dumps({"Service": "Amazon S3", "Event": "s3:TestEvent", "Time": _iso_ms(time.time()),
                       "Bucket": bucket, "RequestId": request_id, "HostId": request_id})


# ---------------------------------------------------------------------- checking a configuration
def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    events_a, events_b = a.get("Events") or [], b.get("Events") or []
    shared = any(event_matches(events_b, e[3:]) or event_matches(events_a, f[3:])
                 for e in events_a for f in events_b)
    if not shared:
        return False
    (pa, sa), (pb, sb) = _filters(a), _filters(b)
    return (pa.startswith(pb) or pb.startswith(pa)) and (sa.endswith(sb) or sb.endswith(sa))


def check_shape(config: dict[str, Any]) -> None:
    """Filter rules and overlapping configurations, as S3 refuses them."""
    confs = [c for member, _, _ in KINDS for c in config.get(member) or []]
    for conf in confs:
        if not conf.get("Events"):
            raise errors.malformed_xml()
        for event in conf["Events"]:
            if event not in EVENTS:
                raise errors.invalid_argument("The event is not supported for notifications", "Event", event)
        rules = ((conf.get("Filter") or {}).get("Key") or {}).get("FilterRules") or []
        names = [str(r.get("Name", "")).lower() for r in rules]
        for rule, name in zip(rules, names, strict=True):
            if name not in ("prefix", "suffix"):
                raise errors.invalid_argument("filter rule name must be either prefix or suffix", "FilterRule.Name",
                                              str(rule.get("Name", "")))
        for name in ("prefix", "suffix"):
            if names.count(name) > 1:
                raise errors.invalid_argument(f"Cannot specify more than one {name} rule in a filter.",
                                              "FilterRule", name)
    for i, a in enumerate(confs):
        for b in confs[i + 1:]:
            if _overlap(a, b):
                raise errors.invalid_argument("Configurations overlap. Configurations on the same bucket cannot "
                                              "share a common event type.")


class Notifier:
    """Bucket configurations (cached), the destination checks and the delivery thread."""

    def __init__(self, stack: Stack, db: Database) -> None:
        self.stack = stack
        self.db = db
        self._configs: dict[str, dict[str, Any] | None] = {}
        self._generation = 0  # bumped by forget(): a read that raced a change is not cached
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ configurations
    def forget(self, bucket: str | None = None) -> None:
        with self._lock:
            self._generation += 1
            if bucket is None:
                self._configs.clear()
            else:
                self._configs.pop(bucket, None)

    def cached(self, bucket: str) -> dict[str, Any] | None:
        """The bucket's row facts and notification configuration, read once per change of it."""
        with self._lock:
            if bucket in self._configs:
                return self._configs[bucket]
            generation = self._generation
        row = self.db.read(lambda c: store.get_bucket(c, bucket))
        facts = None
        if row is not None and row["configs"].get("notification"):
            facts = {"name": bucket, "account": row["account"], "region": row["region"],
                     "config": row["configs"]["notification"]}
        with self._lock:
            if generation == self._generation:
                self._configs[bucket] = facts
        return facts

    def check_destinations(self, bucket_row: dict[str, Any], config: dict[str, Any]) -> None:
        """Every SQS, SNS and Lambda destination exists and lets S3 send to it from this bucket."""
        failures: list[tuple[str, str]] = []
        source = f"arn:{partition(bucket_row['region'])}:s3:::{bucket_row['name']}"
        for member, arn_member, kind in KINDS:
            for conf in config.get(member) or []:
                arn = conf.get(arn_member, "")
                problem = self._refusal(kind, arn, source, bucket_row["account"])
                if problem:
                    failures.append((arn, problem))
        if failures:
            extra: dict[str, Any] = {}
            for n, (arn, problem) in enumerate(failures, 1):
                extra[f"ArgumentName{n}"] = arn
                extra[f"ArgumentValue{n}"] = problem
            raise ServiceError("InvalidArgument", UNVALIDATED, 400, extra=extra)

    def _refusal(self, kind: str, arn: str, source: str, account: str) -> str | None:
        """Why S3 may not deliver to `arn` (None when it may)."""
        ports = self.stack.ports
        if kind in ("queue", "topic") and arn.endswith(".fifo"):  # S3 User Guide: FIFO destinations unsupported
            return f"FIFO {kind}s are not supported as Amazon S3 event notification destinations"
        if kind == "queue":
            sqs = ports.queues.get()
            allowed = sqs.service_may_send(arn, S3_PRINCIPAL, source, account) if sqs is not None else None
            if allowed is None:
                return "The destination queue does not exist"
            return None if allowed else ("Permissions on the destination queue do not allow S3 to publish "
                                         "notifications from this bucket")
        if kind == "topic":
            sns = ports.topics.get()
            allowed = sns.service_may_publish(arn, S3_PRINCIPAL, source, account) if sns is not None else None
            if allowed is None:
                return "The destination topic does not exist"
            return None if allowed else ("Permissions on the destination topic do not allow S3 to publish "
                                         "notifications from this bucket")
        fn = ports.functions.get()
        if fn is None or not fn.may_invoke(account, arn, S3_PRINCIPAL, source_arn=source, source_account=account):
            return f"Not authorized to invoke function [{arn}]"
        return None

    # ------------------------------------------------------------------ events
    def configured(self, bucket_row: dict[str, Any], config: dict[str, Any], request_id: str) -> None:
        """After a new configuration is stored: the s3:TestEvent to each queue and topic."""
        self.forget(bucket_row["name"])
        body = test_event(bucket_row["name"], request_id)
        jobs = [{"kind": "send", "args": [kind, conf.get(arn_member, ""), body, bucket_row["name"],
                                          bucket_row["account"]]}
                for member, arn_member, kind in KINDS[:2] for conf in config.get(member) or []]
        if jobs:
            with self.db.transaction() as conn:
                for job in jobs:
                    _enqueue(conn, job)
            self.wake()

    def hook(self, ctx: RequestContext, bucket: str, key: str) -> Hook | None:
        """What an object write runs inside its transaction to record the event's deliveries in the
        outbox (so they happen exactly when it commits, and survive a crash); None when the bucket
        has no configuration (the common case costs a dict lookup)."""
        facts = self.cached(bucket)
        if facts is None:
            return None
        config = facts["config"]
        bridge = "EventBridgeConfiguration" in config

        def record(conn: sqlite3.Connection, event: str, obj: dict[str, Any]) -> None:
            targets = matching(config, event, key)
            if targets or bridge:
                c = change(ctx, facts, event, key, obj)
                _enqueue(conn, {"kind": "event", "change": asdict(c), "targets": targets, "bridge": bridge})

        return record

    # ------------------------------------------------------------------ the delivery thread
    def wake(self) -> None:
        """After a commit that may have added jobs: the thread looks at the outbox."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = threading.Thread(target=self._run, name="onceflow-s3-notify", daemon=True)
                self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        self._stop.set()
        self._wake.set()
        if thread is not None:
            thread.join(5)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            try:
                while self._drain() and not self._stop.is_set():
                    pass
            except Exception:
                log.exception("s3 notification delivery failed")
            self._wake.wait(IDLE_WAIT_S)

    def _drain(self) -> bool:
        """Deliver a batch of the outbox, oldest first, then retire the batch in one transaction (a
        crash in between delivers the batch again: at least once); False when the outbox is empty."""
        rows = self.db.query("SELECT id, job FROM s3_notify_outbox ORDER BY id LIMIT 50")
        emits = []
        for row_id, text in rows:
            job = json.loads(text)
            try:
                if job["kind"] == "send":
                    self._send(*job["args"])
                else:
                    emit = self._deliver(Change(**job["change"]), [tuple(t) for t in job["targets"]], job["bridge"])
                    if emit is not None:
                        emits.append(emit)
            except Exception:  # a bug must not wedge the outbox: logged, and the row retired
                log.exception("s3 notification %s failed", row_id)
        if rows:
            with self.db.transaction() as conn:
                for emit in emits:
                    emit(conn)  # EventBridge's own outbox rows, in the transaction that retires ours
                conn.executemany("DELETE FROM s3_notify_outbox WHERE id = ?", [(r[0],) for r in rows])
        return bool(rows)

    def _deliver(self, c: Change, targets: list[tuple[str, str, str]],
                 bridge: bool) -> Callable[[sqlite3.Connection], None] | None:
        for kind, arn, config_id in targets:
            self._send(kind, arn, json.dumps(record_event(c, config_id)), c.bucket, c.account)
        events = self.stack.ports.events.get() if bridge else None
        made = eventbridge_event(c) if events is not None else None
        if events is None or made is None:
            return None

        def emit(conn: sqlite3.Connection) -> None:
            source = f"arn:{partition(c.region)}:s3:::{c.bucket}"
            events.emit(conn, (c.account, c.region), "aws.s3", made[0], made[1], [source], now=c.at)

        return emit

    def _send(self, kind: str, arn: str, body: str, bucket: str, account: str) -> None:
        parts = arn.split(":")
        # the destination's partition is the bucket's
        source = f"arn:{parts[1] if len(parts) > 1 else 'aws'}:s3:::{bucket}"
        refusal = self._refusal(kind, arn, source, account)
        if refusal:  # AWS drops what the destination's policy refuses; no one is told
            log.warning("s3 notification from %s to %s dropped: %s", bucket, arn, refusal)
            return
        ports = self.stack.ports
        try:
            if kind == "queue":
                ports.queues().send_to_arn(arn, body, sender=S3_PRINCIPAL)
            elif kind == "topic":
                ports.topics().publish(arn, {"Message": body, "Subject": "Amazon S3 Notification"})
            else:
                region = arn.split(":")[3] if arn.count(":") >= 6 else "us-east-1"
                internal.call(self.stack, Principal(account, "service", S3_PRINCIPAL, S3_PRINCIPAL), "lambda",
                              "Invoke", {"FunctionName": arn, "InvocationType": "Event",
                                         "Payload": body.encode()}, region=region)
        except ServiceError as exc:
            log.warning("s3 notification from %s to %s failed: %s", bucket, arn, exc)
