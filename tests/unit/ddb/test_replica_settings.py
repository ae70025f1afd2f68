"""The pure parts of global tables: a replica's description and auto scaling settings merged and applied."""

from __future__ import annotations

import pytest

from onceflow.ddb.replica_scaling import _merged, _within
from onceflow.ddb.schema import Index, Table, replica_description
from onceflow.errors import ServiceError


def _table() -> Table:
    t = Table(id=1, account="000000000000", region="us-east-1", name="orders", hash=("pk", "S"), range=None,
              attributes={"pk": "S", "g": "S"})
    t.indexes["by-g"] = Index("by-g", "GSI", ("g", "S"), None, {"ProjectionType": "ALL"})
    return t


def test_a_replica_description_names_its_region_overrides_and_indexes() -> None:
    d = replica_description(_table(), "eu-west-1", {"status": "ACTIVE", "kms": "alias/k", "rcu": 3,
                                                    "gsis": {"by-g": {"max_read": 9}}, "table_class": "STANDARD"})
    assert d == {"RegionName": "eu-west-1", "ReplicaStatus": "ACTIVE",
                 "ReplicaArn": "arn:aws:dynamodb:eu-west-1:000000000000:table/orders", "KMSMasterKeyId": "alias/k",
                 "ProvisionedThroughputOverride": {"ReadCapacityUnits": 3},
                 "GlobalSecondaryIndexes": [{"IndexName": "by-g",
                                             "OnDemandThroughputOverride": {"MaxReadRequestUnits": 9}}],
                 "ReplicaTableClassSummary": {"TableClass": "STANDARD"}}


def test_a_replica_arn_is_in_its_regions_partition() -> None:
    assert replica_description(_table(), "cn-north-1", {})["ReplicaArn"].startswith("arn:aws-cn:dynamodb:cn-north-1:")


def test_scaling_settings_merge_and_bound_the_capacity() -> None:
    role = "arn:aws:iam::000000000000:role/r"
    first = _merged(None, {"MinimumUnits": 5, "MaximumUnits": 20}, role, "p")
    assert first == {"AutoScalingDisabled": False, "AutoScalingRoleArn": role, "MinimumUnits": 5, "MaximumUnits": 20}
    later = _merged(first, {"MaximumUnits": 8, "ScalingPolicyUpdate": {
        "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 50.0}}}, role, "p")
    assert (later["MinimumUnits"], later["MaximumUnits"], later["ScalingPolicies"][0]["PolicyName"]) == (5, 8, "p")
    assert [_within(u, later) for u in (1, 6, 100)] == [5, 6, 8]
    assert _within(1, {**later, "AutoScalingDisabled": True}) == 1
    with pytest.raises(ServiceError):
        _merged(later, {"MinimumUnits": 9}, role, "p")
