"""DynamoDB global tables, version 2019.11.21: UpdateTable's ReplicaUpdates, through boto3 clients of two
and three regions on one server (AWS's "Global tables" guide, the UpdateTable and DescribeTable references;
behaviour recorded against DynamoDB in scylladb's test/alternator/test_global_tables.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from botocore.exceptions import ClientError

EAST, WEST, EU = "us-east-1", "us-west-2", "eu-west-1"
KEY = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}


@pytest.fixture(scope="module")
def east(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb", region=EAST)


@pytest.fixture(scope="module")
def west(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb", region=WEST)


@pytest.fixture(scope="module")
def eu(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb", region=EU)


def _table(client: Any, **extra: Any) -> str:
    name = f"gt-{uuid.uuid4().hex[:8]}"
    client.create_table(TableName=name, **{"BillingMode": "PAY_PER_REQUEST", **KEY, **extra})
    return name


def _global(east: Any, name: str, *regions: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for region in regions:
        out = east.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    return dict(out["TableDescription"])


def _refused(call: Callable[..., Any], **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(**params)
    return str(e.value.response["Error"]["Code"]), str(e.value.response["Error"]["Message"])


def test_a_replica_is_a_table_of_its_region_with_the_items(east: Any, west: Any) -> None:
    name = _table(east)
    east.put_item(TableName=name, Item={"pk": {"S": "before"}, "v": {"N": "1"}})
    answer = _global(east, name, WEST)
    assert answer["TableStatus"] == "UPDATING"
    statuses = {r["RegionName"]: r["ReplicaStatus"] for r in answer["Replicas"]}
    assert statuses == {EAST: "ACTIVE", WEST: "CREATING"}
    described = east.describe_table(TableName=name)["Table"]
    assert described["GlobalTableVersion"] == "2019.11.21"
    assert {r["RegionName"]: r["ReplicaStatus"] for r in described["Replicas"]} == {EAST: "ACTIVE", WEST: "ACTIVE"}
    assert all(r["ReplicaTableClassSummary"] == {"TableClass": "STANDARD"} for r in described["Replicas"])
    there = west.describe_table(TableName=name)["Table"]
    assert there["TableArn"] == described["TableArn"].replace(EAST, WEST)
    assert there["TableId"] != described["TableId"]
    assert there["GlobalTableVersion"] == "2019.11.21"
    assert {r["RegionName"] for r in there["Replicas"]} == {EAST, WEST}
    assert name in west.list_tables()["TableNames"]
    # The items the table had are in the new replica.
    assert west.get_item(TableName=name, Key={"pk": {"S": "before"}})["Item"]["v"] == {"N": "1"}


def test_writes_on_any_replica_reach_the_others(east: Any, west: Any, eu: Any) -> None:
    name = _table(east)
    _global(east, name, WEST, EU)
    east.put_item(TableName=name, Item={"pk": {"S": "a"}, "from": {"S": "east"}})
    west.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET n = :n",
                     ExpressionAttributeValues={":n": {"N": "7"}})
    eu.put_item(TableName=name, Item={"pk": {"S": "b"}, "from": {"S": "eu"}})
    for client in (east, west, eu):
        assert client.get_item(TableName=name, Key={"pk": {"S": "a"}}, ConsistentRead=True)["Item"] == {
            "pk": {"S": "a"}, "from": {"S": "east"}, "n": {"N": "7"}}
        assert client.get_item(TableName=name, Key={"pk": {"S": "b"}})["Item"]["from"] == {"S": "eu"}
    # Batched, transacted and deleting writes replicate too.
    west.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}},
                                               {"DeleteRequest": {"Key": {"pk": {"S": "b"}}}}]})
    eu.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": {"pk": {"S": "d"}}}}])
    for client in (east, west, eu):
        keys = sorted(i["pk"]["S"] for i in client.scan(TableName=name)["Items"])
        assert keys == ["a", "c", "d"]


def test_the_last_write_wins_everywhere(east: Any, west: Any) -> None:
    name = _table(east)
    _global(east, name, WEST)
    east.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"S": "first"}})
    west.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"S": "second"}})
    for client in (east, west):
        assert client.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]["v"] == {"S": "second"}


def test_concurrent_writers_in_two_regions_leave_the_replicas_equal(east: Any, west: Any) -> None:
    name = _table(east)
    _global(east, name, WEST)

    def write(client: Any, region: str) -> None:
        for i in range(40):
            client.put_item(TableName=name, Item={"pk": {"S": f"k{i % 4}"}, "by": {"S": f"{region}-{i}"}})

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(write, (east, west), (EAST, WEST)))
    here = sorted((i["pk"]["S"], i["by"]["S"]) for i in east.scan(TableName=name, ConsistentRead=True)["Items"])
    there = sorted((i["pk"]["S"], i["by"]["S"]) for i in west.scan(TableName=name, ConsistentRead=True)["Items"])
    assert here == there and len(here) == 4


def test_going_global_turns_on_a_new_and_old_images_stream_that_stays(east: Any, west: Any) -> None:
    name = _table(east)
    assert "StreamSpecification" not in east.describe_table(TableName=name)["Table"]
    _global(east, name, WEST)
    for client in (east, west):
        spec = client.describe_table(TableName=name)["Table"]["StreamSpecification"]
        assert spec == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    code, message = _refused(east.update_table, TableName=name, StreamSpecification={"StreamEnabled": False})
    assert code == "ValidationException" and "not allowed" in message and "Global Table" in message
    code, message = _refused(east.update_table, TableName=name,
                             StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    assert code == "ValidationException" and "already has an enabled stream" in message


def test_an_existing_keys_only_stream_is_kept(east: Any, west: Any) -> None:
    name = _table(east, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    _global(east, name, WEST)
    assert east.describe_table(TableName=name)["Table"]["StreamSpecification"]["StreamViewType"] == "KEYS_ONLY"


def test_a_replicated_write_is_a_record_in_each_replicas_stream(aws: Callable[..., Any], east: Any,
                                                                west: Any) -> None:
    name = _table(east)
    _global(east, name, WEST)
    east.put_item(TableName=name, Item={"pk": {"S": "s"}, "v": {"N": "1"}})
    streams = aws("dynamodbstreams", region=WEST)
    arn = west.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    assert f":{WEST}:" in arn
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=it)["Records"]
    assert [(r["eventName"], r["dynamodb"]["NewImage"]["v"]) for r in records] == [("INSERT", {"N": "1"})]


def test_replica_settings_create_and_update(east: Any, west: Any) -> None:
    name = _table(east, GlobalSecondaryIndexes=[{
        "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}],
        AttributeDefinitions=[*KEY["AttributeDefinitions"], {"AttributeName": "g", "AttributeType": "S"}])
    east.update_table(TableName=name, ReplicaUpdates=[{"Create": {
        "RegionName": WEST, "KMSMasterKeyId": "alias/mine", "TableClassOverride": "STANDARD_INFREQUENT_ACCESS",
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 9}}]}}])
    replicas = {r["RegionName"]: r for r in east.describe_table(TableName=name)["Table"]["Replicas"]}
    assert replicas[WEST]["KMSMasterKeyId"] == "alias/mine"
    assert replicas[WEST]["ReplicaTableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert replicas[WEST]["GlobalSecondaryIndexes"] == [
        {"IndexName": "by-g", "OnDemandThroughputOverride": {"MaxReadRequestUnits": 9}}]
    there = west.describe_table(TableName=name)["Table"]
    assert there["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert there["GlobalSecondaryIndexes"][0]["IndexName"] == "by-g"
    # The replica's index answers queries of items written in the other region.
    east.put_item(TableName=name, Item={"pk": {"S": "1"}, "g": {"S": "x"}})
    got = west.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "x"}})
    assert [i["pk"]["S"] for i in got["Items"]] == ["1"]
    east.update_table(TableName=name,
                      ReplicaUpdates=[{"Update": {"RegionName": WEST, "TableClassOverride": "STANDARD"}}])
    assert west.describe_table(TableName=name)["Table"]["TableClassSummary"]["TableClass"] == "STANDARD"
    # A replica's own UpdateTable TableClass is what the group shows for it.
    west.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
    replicas = {r["RegionName"]: r for r in east.describe_table(TableName=name)["Table"]["Replicas"]}
    assert replicas[WEST]["ReplicaTableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert replicas[EAST]["ReplicaTableClassSummary"]["TableClass"] == "STANDARD"
    # A new GSI on one replica is the group's.
    east.update_table(TableName=name, AttributeDefinitions=[{"AttributeName": "h", "AttributeType": "S"}],
                      GlobalSecondaryIndexUpdates=[{"Create": {
                          "IndexName": "by-h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                          "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    assert {g["IndexName"] for g in west.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"]} == {
        "by-g", "by-h"}


def test_deleting_the_replica_leaves_a_regional_table(east: Any, west: Any) -> None:
    name = _table(east)
    _global(east, name, WEST)
    answer = east.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": WEST}}])["TableDescription"]
    assert "Replicas" not in answer  # the group is down to the table itself
    code, _ = _refused(west.describe_table, TableName=name)
    assert code == "ResourceNotFoundException"
    described = east.describe_table(TableName=name)["Table"]
    assert "Replicas" not in described and "GlobalTableVersion" not in described
    # The stream DynamoDB turned on stays, and may now be turned off.
    assert described["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    east.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    east.put_item(TableName=name, Item={"pk": {"S": "after"}})  # a write no longer goes anywhere else


def test_deletetable_of_a_replica_takes_it_out_of_the_group(east: Any, west: Any, eu: Any) -> None:
    name = _table(east)
    _global(east, name, WEST, EU)
    west.delete_table(TableName=name)
    assert {r["RegionName"] for r in east.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, EU}
    assert {r["RegionName"] for r in eu.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, EU}
    east.put_item(TableName=name, Item={"pk": {"S": "x"}})
    assert "Item" in eu.get_item(TableName=name, Key={"pk": {"S": "x"}})


def test_the_source_of_a_new_replica_stays_24_hours(east: Any, west: Any) -> None:
    name = _table(east)
    _global(east, name, WEST)
    code, message = _refused(east.delete_table, TableName=name)
    assert code == "ValidationException" and "24 hours" in message
    code, _ = _refused(west.update_table, TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": EAST}}])
    assert code == "ValidationException"
    assert east.describe_table(TableName=name)["Table"]["Replicas"]


def test_refusals(east: Any, west: Any) -> None:
    name = _table(east)
    code, message = _refused(east.update_table, TableName=name, ReplicaUpdates=[{"Create": {"RegionName": EAST}}])
    assert (code, message) == ("ValidationException", "Cannot add, delete, or update the local region through "
                               "ReplicaUpdates. Use CreateTable, DeleteTable, or UpdateTable as required.")
    # A table of that name already in the target region.
    west.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **KEY)
    code, message = _refused(east.update_table, TableName=name, ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
    assert code == "ValidationException" and "already existed as tables" in message
    assert "Replicas" not in east.describe_table(TableName=name)["Table"]
    code, _ = _refused(east.update_table, TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": EU}}])
    assert code == "ValidationException"
    # A provisioned table without write auto scaling.
    provisioned = f"gt-{uuid.uuid4().hex[:8]}"
    east.create_table(TableName=provisioned, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
                      **KEY)
    code, message = _refused(east.update_table, TableName=provisioned,
                             ReplicaUpdates=[{"Create": {"RegionName": WEST}}])
    assert (code, message) == ("ValidationException",
                               "Table write capacity should either be Pay-Per-Request or AutoScaled.")
    code, _ = _refused(west.describe_table, TableName=provisioned)
    assert code == "ResourceNotFoundException"  # nothing was created


def test_a_regional_table_has_no_global_fields(east: Any) -> None:
    described = east.describe_table(TableName=_table(east))["Table"]
    assert "Replicas" not in described and "GlobalTableVersion" not in described


# ---------------------------------------------------------------- replica auto scaling
def test_write_auto_scaling_lets_a_provisioned_table_go_global(east: Any, west: Any) -> None:
    name = f"gt-{uuid.uuid4().hex[:8]}"
    east.create_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}, **KEY)
    policy = {"TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70.0}}
    got = east.update_table_replica_auto_scaling(TableName=name, ProvisionedWriteCapacityAutoScalingUpdate={
        "MinimumUnits": 10, "MaximumUnits": 100, "ScalingPolicyUpdate": policy})["TableAutoScalingDescription"]
    (replica,) = got["Replicas"]
    write = replica["ReplicaProvisionedWriteCapacityAutoScalingSettings"]
    assert (replica["RegionName"], write["MinimumUnits"], write["MaximumUnits"], write["AutoScalingDisabled"]) == (
        EAST, 10, 100, False)
    assert write["ScalingPolicies"][0]["TargetTrackingScalingPolicyConfiguration"]["TargetValue"] == 70.0
    assert write["AutoScalingRoleArn"].endswith("AWSServiceRoleForApplicationAutoScaling_DynamoDBTable")
    # The provisioned capacity is moved within the bounds.
    assert east.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]["WriteCapacityUnits"] == 10
    east.update_table(TableName=name, ReplicaUpdates=[{"Create": {
        "RegionName": WEST, "ProvisionedThroughputOverride": {"ReadCapacityUnits": 3}}}])
    there = west.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    assert (there["ReadCapacityUnits"], there["WriteCapacityUnits"]) == (3, 10)
    replicas = {r["RegionName"]: r for r in east.describe_table(TableName=name)["Table"]["Replicas"]}
    assert replicas[WEST]["ProvisionedThroughputOverride"] == {"ReadCapacityUnits": 3}
    # Reads scale per replica; the group's write scaling is every replica's.
    east.update_table_replica_auto_scaling(TableName=name, ReplicaUpdates=[{
        "RegionName": WEST, "ReplicaProvisionedReadCapacityAutoScalingUpdate": {"MinimumUnits": 4,
                                                                                "MaximumUnits": 8}}])
    described = west.describe_table_replica_auto_scaling(TableName=name)["TableAutoScalingDescription"]
    by_region = {r["RegionName"]: r for r in described["Replicas"]}
    assert by_region[WEST]["ReplicaProvisionedReadCapacityAutoScalingSettings"]["MinimumUnits"] == 4
    assert "ReplicaProvisionedReadCapacityAutoScalingSettings" not in by_region[EAST]
    assert by_region[WEST]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]["MaximumUnits"] == 100
    assert west.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 4


def test_auto_scaling_refusals(east: Any) -> None:
    code, _ = _refused(east.update_table_replica_auto_scaling, TableName=_table(east),
                       ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 1, "MaximumUnits": 2})
    assert code == "ValidationException"  # an on-demand table has no capacity to scale
    code, _ = _refused(east.describe_table_replica_auto_scaling, TableName="gt-none-such")
    assert code == "ResourceNotFoundException"
    name = f"gt-{uuid.uuid4().hex[:8]}"
    east.create_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}, **KEY)
    code, _ = _refused(east.update_table_replica_auto_scaling, TableName=name,
                       ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 9, "MaximumUnits": 2})
    assert code == "ValidationException"
    assert "ReplicaProvisionedWriteCapacityAutoScalingSettings" not in east.describe_table_replica_auto_scaling(
        TableName=name)["TableAutoScalingDescription"]["Replicas"][0]


# ---------------------------------------------------------------- the legacy version 2017.11.29
def test_the_legacy_api_answers_as_dynamodb_does_now(east: Any, west: Any) -> None:
    name = _table(east, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    code, message = _refused(east.create_global_table, GlobalTableName=name,
                             ReplicationGroup=[{"RegionName": EAST}, {"RegionName": WEST}])
    assert code == "ValidationException" and "2017.11.29 is not supported" in message
    _global(east, name, WEST)  # a version 2019.11.21 global table is no legacy one
    for call, extra in ((east.describe_global_table, {}), (east.describe_global_table_settings, {}),
                        (east.update_global_table, {"ReplicaUpdates": [{"Delete": {"RegionName": WEST}}]}),
                        (east.update_global_table_settings, {"GlobalTableBillingMode": "PAY_PER_REQUEST"})):
        code, message = _refused(call, GlobalTableName=name, **extra)
        assert (code, message) == ("GlobalTableNotFoundException", f"Global table with name '{name}' does not exist.")
    assert east.list_global_tables()["GlobalTables"] == []
    assert {r["RegionName"] for r in east.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, WEST}


def test_the_group_and_its_replication_survive_a_restart(server_factory: Any, tmp_path: Any) -> None:
    data = tmp_path / "gt-data"
    server = server_factory(data)
    east = server.client("dynamodb", region=EAST)
    name = _table(east)
    _global(east, name, WEST)
    server.client("dynamodb", region=WEST).put_item(TableName=name, Item={"pk": {"S": "before"}})
    assert server.stop() == 0
    again = server_factory(data)
    east, west = again.client("dynamodb", region=EAST), again.client("dynamodb", region=WEST)
    assert {r["RegionName"] for r in west.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, WEST}
    assert "Item" in east.get_item(TableName=name, Key={"pk": {"S": "before"}})
    east.put_item(TableName=name, Item={"pk": {"S": "after"}})
    assert "Item" in west.get_item(TableName=name, Key={"pk": {"S": "after"}})


def test_disassociating_the_local_replica_keeps_its_table(east: Any, west: Any, eu: Any) -> None:
    name = _table(east)
    _global(east, name, WEST, EU)
    east.put_item(TableName=name, Item={"pk": {"S": "shared"}})
    assert west.describe_table(TableName=name)["Table"]["DisassociationProtectionEnabled"] is True
    leave = [{"Disassociate": {"RegionName": WEST, "DisassociationMode": "WAIT_FOR_REPLICATION"}}]
    code, message = _refused(west.update_table, TableName=name, ReplicaUpdates=leave)
    assert code == "ValidationException" and "protected against disassociation" in message
    code, _ = _refused(east.update_table, TableName=name, ReplicaUpdates=leave)  # not east's local replica
    assert code == "ValidationException"
    code, _ = _refused(west.update_table, TableName=name, DisassociationProtectionEnabled=False,
                       DeletionProtectionEnabled=True)  # the protection changes alone
    assert code == "ValidationException"
    west.update_table(TableName=name, DisassociationProtectionEnabled=False)
    west.update_table(TableName=name, ReplicaUpdates=leave)
    alone = west.describe_table(TableName=name)["Table"]
    assert "Replicas" not in alone and "GlobalTableVersion" not in alone
    assert "Item" in west.get_item(TableName=name, Key={"pk": {"S": "shared"}})  # its items stay
    assert {r["RegionName"] for r in east.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, EU}
    west.put_item(TableName=name, Item={"pk": {"S": "west-only"}})
    east.put_item(TableName=name, Item={"pk": {"S": "group-only"}})
    assert "Item" not in east.get_item(TableName=name, Key={"pk": {"S": "west-only"}})
    assert "Item" not in west.get_item(TableName=name, Key={"pk": {"S": "group-only"}})
    assert "Item" in eu.get_item(TableName=name, Key={"pk": {"S": "group-only"}})
    code, _ = _refused(west.update_table, TableName=name, DisassociationProtectionEnabled=True)
    assert code == "ValidationException"  # a regional table has no such protection
