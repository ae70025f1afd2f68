"""Global tables, version 2019.11.21: UpdateTable's ReplicaUpdates make a table a replica group, one
table of the same name per region, each really a table of its region (DescribeTable, reads and writes
there). Every member keeps the whole group in its `replicas` (region -> that replica's own settings).

Replication: a write to any member is written to every other member in the same SQLite transaction
(service.write), so it is durable with the write and visible in the other regions once the write is
acknowledged. Writes commit one at a time, so the last committed write is the one every replica keeps:
DynamoDB's "last writer wins", with no window in which the replicas disagree (DynamoDB's own replication
is asynchronous, usually within a second: a caller cannot tell the difference, except that it never sees a
stale replica). Each member's stream records the change as a write of its own."""

from __future__ import annotations

import copy
import sqlite3
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from onceflow.ddb import errors, errors_replicas
from onceflow.ddb import items as it
from onceflow.ddb.schema import Table, sse_description
from onceflow.ddb.values import item_size, loads
from onceflow.errors import validation_error

if TYPE_CHECKING:
    from onceflow.ddb.service import DynamoDB

SOURCE_HOLD_S = 24 * 3600.0  # a replica that sourced a new one may not be deleted for 24 hours (--time-scale divides)
DEFAULT_VIEW = "NEW_AND_OLD_IMAGES"  # the stream DynamoDB enables on a table that has none when it goes global


class GlobalTables:
    def __init__(self, svc: DynamoDB, clock: Callable[[], float]) -> None:
        self.svc = svc
        self.clock = clock

    # ---------------------------------------------------------------- the group
    def members(self, t: Table) -> list[Table]:
        """Working copies of the other replicas of `t` (the served ones change only once stored)."""
        return [copy.deepcopy(self.svc.table(t.account, r, t.name)) for r in sorted(t.replicas) if r != t.region]

    def _publish(self, conn: sqlite3.Connection, t: Table, others: list[Table]) -> None:
        """Give every other member t's view of the group and store it."""
        group = t.replicas if len(t.replicas) > 1 else {}
        t.replicas = group
        for o in others:
            o.replicas = copy.deepcopy(group)
            self.svc.store.save_table(conn, o)

    # ---------------------------------------------------------------- ReplicaUpdates
    def check(self, t: Table, updates: list[dict[str, Any]]) -> None:
        """Refuse what DynamoDB refuses before anything changes."""
        for u in updates:
            action, spec = next(((k, v) for k, v in u.items() if v is not None), ("", dict[str, Any]()))
            region = spec.get("RegionName", "")
            if action == "Disassociate":
                if len(updates) > 1:
                    raise validation_error(errors_replicas.DISASSOCIATE_ALONE)
                if region != t.region:
                    raise validation_error(errors_replicas.DISASSOCIATE_LOCAL_ONLY)
                if not t.replicas:
                    raise errors_replicas.replica_not_in_group(t.name, region)
                if t.disassociation_protection:
                    raise validation_error(errors_replicas.DISASSOCIATION_PROTECTED)
                continue
            if region == t.region:
                raise validation_error(errors_replicas.LOCAL_REGION_REPLICA)
            if action == "Create":
                if region in t.replicas or self.svc.store.load_table(t.account, region, t.name) is not None:
                    raise errors_replicas.replica_exists(t.name)
                if t.billing == "PROVISIONED" and not _write_autoscaled(t):
                    raise validation_error(errors_replicas.REPLICA_CAPACITY)
            elif action in ("Update", "Delete") and region not in t.replicas:
                raise errors_replicas.replica_not_in_group(t.name, region)
            for g in spec.get("GlobalSecondaryIndexes") or []:
                if g["IndexName"] not in t.indexes or t.indexes[g["IndexName"]].kind != "GSI":
                    raise errors_replicas.replica_index_not_found(g["IndexName"])
            if action == "Delete":
                self._check_deletable(t, region)

    def _check_deletable(self, t: Table, region: str) -> None:
        sourced = (t.replicas.get(region) or {}).get("sourced")
        hold = SOURCE_HOLD_S / (self.svc.time_scale() or 1.0)
        if sourced is not None and self.clock() - sourced < hold:
            raise errors_replicas.replica_recent_source(region)

    def apply(self, conn: sqlite3.Connection, t: Table, updates: list[dict[str, Any]]) -> dict[str, str]:
        """Carry out checked ReplicaUpdates on `t` (a working copy, saved by the caller). Returns the
        status each touched region shows in UpdateTable's answer (CREATING, UPDATING, DELETING)."""
        others = self.members(t)
        if updates and updates[0].get("Disassociate"):
            # The local replica leaves the group keeping its table, items and settings; the others go on
            # (the last one alone is regional again).
            self.leave(conn, t, hold=False)
            t.replicas, t.disassociation_protection = {}, True
            return {}
        if not t.replicas:
            t.replicas = {t.region: _entry(t)}
        shown: dict[str, str] = {}
        for u in updates:
            if u.get("Create"):
                spec = u["Create"]
                if t.stream_id is None:  # DynamoDB turns a stream on for a table that has none
                    t.stream = {"StreamEnabled": True, "StreamViewType": DEFAULT_VIEW}
                    self.svc.streams.open(conn, t, DEFAULT_VIEW)
                replica = self._create(conn, t, spec)
                t.replicas[t.region]["sourced"] = self.clock()
                t.replicas[replica.region] = _entry(replica, spec)
                others.append(replica)
                shown[replica.region] = "CREATING"
            elif u.get("Update"):
                spec = u["Update"]
                target = next(o for o in others if o.region == spec["RegionName"])
                _override(target, t.replicas[target.region], spec)
                shown[target.region] = "UPDATING"
            elif u.get("Delete"):
                region = u["Delete"]["RegionName"]
                target = next(o for o in others if o.region == region)
                if target.deletion_protection:
                    raise validation_error(errors.DELETION_PROTECTED)
                self._drop(conn, target)
                others.remove(target)
                del t.replicas[region]
                shown[region] = "DELETING"
        self._publish(conn, t, others)
        for o in others:
            self.svc.remember(o)
        return shown

    def _create(self, conn: sqlite3.Connection, t: Table, spec: dict[str, Any]) -> Table:
        """The new replica in its region: t's schema, its items, its own stream and settings."""
        r = copy.deepcopy(t)
        r.id, r.region, r.table_id = 0, spec["RegionName"], str(uuid.uuid4())
        r.created = self.clock()
        r.tags, r.deletion_protection, r.pitr_days, r.pitr_since, r.restore = {}, False, None, None, None
        r.insights, r.stream_id, r.stream_label, r.billing_updated = {}, None, None, t.billing_updated
        r.sse = sse_description(t.account, r.region, {"Enabled": True, "SSEType": "KMS",
                                                      "KMSMasterKeyId": spec["KMSMasterKeyId"]}) \
            if spec.get("KMSMasterKeyId") else None
        r.replicas = {}
        _override(r, {}, spec)
        r.id = self.svc.store.insert_table(conn, r)
        if t.stream and t.stream.get("StreamEnabled"):
            self.svc.streams.open(conn, r, t.stream["StreamViewType"])
            self.svc.store.save_table(conn, r)
        # The existing items are copied in (DynamoDB's backfill); they are not changes, so no stream records.
        for hk, rk, text in list(self.svc.store.all_items(conn, t.id)):
            item = loads(text)
            self.svc.store.put(conn, r.id, hk, rk, text, item_size(item), it.expiry(r, item))
            if r.indexes:
                self.svc.store.replace_index_rows(conn, r.id, hk, rk, [], it.index_rows(r, item))
        return r

    def _drop(self, conn: sqlite3.Connection, r: Table) -> None:
        self.svc.streams.close(conn, r)
        self.svc.backups.stop_history(conn, r)
        self.svc.store.delete_table(conn, r)
        self.svc.forget(r)

    # ---------------------------------------------------------------- the rest of the table's life
    def leave(self, conn: sqlite3.Connection, t: Table, hold: bool = True) -> None:
        """DeleteTable (or Disassociate) of a member: the others go on without it (the last one alone is
        regional again). `hold`: the 24-hour rule for a replica that sourced a new one applies."""
        if not t.replicas:
            return
        if hold:
            self._check_deletable(t, t.region)
        others = self.members(t)
        rest = copy.deepcopy(t.replicas)
        del rest[t.region]
        if others:
            head = copy.deepcopy(others[0])
            head.replicas = rest
            self._publish(conn, head, others[1:])
            self.svc.store.save_table(conn, head)
            for o in [head, *others[1:]]:
                self.svc.remember(o)

    def check_stream(self, t: Table, spec: dict[str, Any]) -> None:
        """A global table's stream stays on (it replicates through it)."""
        if t.replicas and not spec.get("StreamEnabled"):
            raise validation_error(errors_replicas.GLOBAL_STREAM_DISABLE)

    def sync(self, conn: sqlite3.Connection, t: Table, change: Callable[[Table], None]) -> None:
        """Apply a group-wide setting change (billing, write capacity, TTL, GSIs) to every other member."""
        for o in self.members(t):
            change(o)
            self.svc.store.save_table(conn, o)
            self.svc.remember(o)


def _write_autoscaled(t: Table) -> bool:
    scaling = (t.autoscaling or {}).get("write")
    return bool(scaling and not scaling.get("AutoScalingDisabled"))


def _entry(t: Table, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    """A member's settings as the group records them."""
    spec = spec or {}
    e: dict[str, Any] = {"status": "ACTIVE", "table_class": t.table_class}
    if spec.get("KMSMasterKeyId"):
        e["kms"] = spec["KMSMasterKeyId"]
    _override_entry(e, spec)
    return e


def _override_entry(e: dict[str, Any], spec: dict[str, Any]) -> None:
    if spec.get("KMSMasterKeyId"):
        e["kms"] = spec["KMSMasterKeyId"]
    if spec.get("ProvisionedThroughputOverride"):
        e["rcu"] = spec["ProvisionedThroughputOverride"].get("ReadCapacityUnits")
    if spec.get("OnDemandThroughputOverride"):
        e["max_read"] = spec["OnDemandThroughputOverride"].get("MaxReadRequestUnits")
    if spec.get("TableClassOverride"):
        e["table_class"] = spec["TableClassOverride"]
    for g in spec.get("GlobalSecondaryIndexes") or []:
        o = e.setdefault("gsis", {}).setdefault(g["IndexName"], {})
        if g.get("ProvisionedThroughputOverride"):
            o["rcu"] = g["ProvisionedThroughputOverride"].get("ReadCapacityUnits")
        if g.get("OnDemandThroughputOverride"):
            o["max_read"] = g["OnDemandThroughputOverride"].get("MaxReadRequestUnits")


def _override(r: Table, e: dict[str, Any], spec: dict[str, Any]) -> None:
    """A replica's own settings from a Create or Update action: its entry and its table."""
    _override_entry(e, spec)
    if spec.get("TableClassOverride"):
        r.table_class = spec["TableClassOverride"]
    if spec.get("KMSMasterKeyId"):
        r.sse = sse_description(r.account, r.region, {"Enabled": True, "SSEType": "KMS",
                                                      "KMSMasterKeyId": spec["KMSMasterKeyId"]})
    pt = spec.get("ProvisionedThroughputOverride") or {}
    if pt.get("ReadCapacityUnits") is not None and r.billing == "PROVISIONED":
        r.throughput = {**r.throughput, "ReadCapacityUnits": pt["ReadCapacityUnits"]}
    for g in spec.get("GlobalSecondaryIndexes") or []:
        gpt = g.get("ProvisionedThroughputOverride") or {}
        ix = r.indexes.get(g["IndexName"])
        if ix is not None and gpt.get("ReadCapacityUnits") is not None and ix.throughput:
            ix.throughput = {**ix.throughput, "ReadCapacityUnits": gpt["ReadCapacityUnits"]}
