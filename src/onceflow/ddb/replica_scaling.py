"""DescribeTableReplicaAutoScaling / UpdateTableReplicaAutoScaling: the auto scaling settings of a table's
provisioned capacity, per replica for reads and for the whole group for writes (DynamoDB keeps write
capacity equal across a global table). onceflow records the settings and keeps the provisioned capacity
within their bounds; it does not scale on load. A provisioned table whose writes are auto scaled may gain
replicas (ddb/replicas.py).

Stored in each member's Table.autoscaling: "write" and "gsi_write" (the same on every member), "read" and
"gsi_read" (that member's own)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.ddb import errors, errors_replicas
from onceflow.ddb.schema import Table
from onceflow.errors import validation_error

if TYPE_CHECKING:
    from onceflow.ddb.service import DynamoDB

# What DynamoDB scales through when no AutoScalingRoleArn is given: Application Auto Scaling's
# service-linked role for DynamoDB tables.
ROLE = "role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/" \
       "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"


class ReplicaAutoScaling:
    def __init__(self, svc: DynamoDB) -> None:
        self.svc = svc

    def describe(self, account: str, region: str, name: str) -> dict[str, Any]:
        t = self.svc.table(account, region, name, describe=True)
        return {"TableAutoScalingDescription": self._description(t)}

    def update(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        t = copy.deepcopy(self.svc.table(account, region, p["TableName"], describe=True))
        members = {t.region: t, **{o.region: o for o in self.svc.globals.members(t)}}
        if t.billing != "PROVISIONED":
            raise validation_error(errors_replicas.AUTOSCALING_ON_DEMAND)
        role = f"arn:{partition(region)}:iam::{account}:{ROLE}"
        write = p.get("ProvisionedWriteCapacityAutoScalingUpdate")
        gsi_writes = p.get("GlobalSecondaryIndexUpdates") or []
        for g in gsi_writes:
            _index(t, g["IndexName"])
        for r in p.get("ReplicaUpdates") or []:
            if r["RegionName"] not in members:
                raise errors_replicas.replica_not_in_group(t.name, r["RegionName"])
            for g in r.get("ReplicaGlobalSecondaryIndexUpdates") or []:
                _index(t, g["IndexName"])
        for m in members.values():
            scaling = m.autoscaling = copy.deepcopy(m.autoscaling or {})
            if write:
                scaling["write"] = _merged(scaling.get("write"), write, role, f"{m.name}-write")
                m.throughput = {**m.throughput, "WriteCapacityUnits": _within(
                    m.throughput["WriteCapacityUnits"], scaling["write"])}
            for g in gsi_writes:
                upd = g.get("ProvisionedWriteCapacityAutoScalingUpdate")
                if upd:
                    per = scaling.setdefault("gsi_write", {})
                    per[g["IndexName"]] = _merged(per.get(g["IndexName"]), upd, role, f"{g['IndexName']}-write")
        for r in p.get("ReplicaUpdates") or []:
            m = members[r["RegionName"]]
            scaling = m.autoscaling or {}
            read = r.get("ReplicaProvisionedReadCapacityAutoScalingUpdate")
            if read:
                scaling["read"] = _merged(scaling.get("read"), read, role, f"{m.name}-read")
                m.throughput = {**m.throughput, "ReadCapacityUnits": _within(
                    m.throughput["ReadCapacityUnits"], scaling["read"])}
            for g in r.get("ReplicaGlobalSecondaryIndexUpdates") or []:
                upd = g.get("ProvisionedReadCapacityAutoScalingUpdate")
                if upd:
                    per = scaling.setdefault("gsi_read", {})
                    per[g["IndexName"]] = _merged(per.get(g["IndexName"]), upd, role, f"{g['IndexName']}-read")
        with self.svc.db.transaction() as conn:
            for m in members.values():
                self.svc.store.save_table(conn, m)
        for m in members.values():
            self.svc.remember(m)
        return {"TableAutoScalingDescription": self._description(t)}

    def _description(self, t: Table) -> dict[str, Any]:
        members = [t, *[self.svc.table(t.account, r, t.name) for r in sorted(t.replicas) if r != t.region]]
        replicas = []
        for m in sorted(members, key=lambda m: m.region):
            scaling = m.autoscaling or {}
            d: dict[str, Any] = {"RegionName": m.region, "ReplicaStatus": "ACTIVE"}
            if scaling.get("read"):
                d["ReplicaProvisionedReadCapacityAutoScalingSettings"] = scaling["read"]
            if scaling.get("write"):
                d["ReplicaProvisionedWriteCapacityAutoScalingSettings"] = scaling["write"]
            gsis = []
            for name, ix in m.indexes.items():
                if ix.kind != "GSI":
                    continue
                g: dict[str, Any] = {"IndexName": name, "IndexStatus": "ACTIVE"}
                if (scaling.get("gsi_read") or {}).get(name):
                    g["ProvisionedReadCapacityAutoScalingSettings"] = scaling["gsi_read"][name]
                if (scaling.get("gsi_write") or {}).get(name):
                    g["ProvisionedWriteCapacityAutoScalingSettings"] = scaling["gsi_write"][name]
                gsis.append(g)
            if gsis:
                d["GlobalSecondaryIndexes"] = gsis
            replicas.append(d)
        return {"TableName": t.name, "TableStatus": "ACTIVE", "Replicas": replicas}


def _index(t: Table, name: str) -> None:
    if name not in t.indexes or t.indexes[name].kind != "GSI":
        raise errors.index_not_found(name)


def _merged(old: dict[str, Any] | None, upd: dict[str, Any], role: str, policy: str) -> dict[str, Any]:
    """AutoScalingSettingsUpdate applied to the settings kept (an AutoScalingSettingsDescription)."""
    d = dict(old or {"AutoScalingDisabled": False, "AutoScalingRoleArn": role})
    for k in ("MinimumUnits", "MaximumUnits", "AutoScalingDisabled", "AutoScalingRoleArn"):
        if upd.get(k) is not None:
            d[k] = upd[k]
    if d.get("MinimumUnits") is not None and d.get("MaximumUnits") is not None \
            and d["MinimumUnits"] > d["MaximumUnits"]:
        raise errors_replicas.autoscaling_bounds(d["MinimumUnits"], d["MaximumUnits"])
    spu = upd.get("ScalingPolicyUpdate")
    if spu:
        d["ScalingPolicies"] = [{"PolicyName": spu.get("PolicyName") or policy,
                                 "TargetTrackingScalingPolicyConfiguration":
                                     dict(spu["TargetTrackingScalingPolicyConfiguration"])}]
    return d


def _within(units: int, scaling: dict[str, Any]) -> int:
    """Provisioned capacity kept inside the scaling bounds (auto scaling moves it there first)."""
    if scaling.get("AutoScalingDisabled"):
        return units
    if scaling.get("MinimumUnits") is not None:
        units = max(units, int(scaling["MinimumUnits"]))
    if scaling.get("MaximumUnits") is not None:
        units = min(units, int(scaling["MaximumUnits"]))
    return units
