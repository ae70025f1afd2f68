"""AWS::DynamoDB::GlobalTable as CloudFormation's resource reference describes it: the table in the stack's
region, a replica in each other region of Replicas with that replica's own settings, replicas added and
removed by a stack update, all of them gone with the stack."""

from __future__ import annotations

import json
import uuid
from typing import Any

EAST, WEST, EU = "us-east-1", "us-west-2", "eu-west-1"


def _template(name: str, replicas: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"Resources": {"Orders": {"Type": "AWS::DynamoDB::GlobalTable", "Properties": {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"}, "Replicas": replicas, **extra}}},
        "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Orders", "Arn"]}},
                    "StreamArn": {"Value": {"Fn::GetAtt": ["Orders", "StreamArn"]}},
                    "Name": {"Value": {"Ref": "Orders"}}}})


def _status(cfn: Any, stack: str) -> tuple[str, list[str]]:
    got = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    failures = [e.get("ResourceStatusReason", "") for e in cfn.describe_stack_events(StackName=stack)["StackEvents"]
                if e["ResourceStatus"].endswith("_FAILED")]
    return str(got["StackStatus"]), failures


def test_a_global_table_stack_is_made_updated_and_deleted(aws: Any) -> None:
    cfn, east, west, eu = aws("cloudformation"), aws("dynamodb"), aws("dynamodb", region=WEST), \
        aws("dynamodb", region=EU)
    stack, name = f"g{uuid.uuid4().hex[:8]}", f"gt-{uuid.uuid4().hex[:8]}"
    stack = cfn.create_stack(StackName=stack, TemplateBody=_template(name, [
        {"Region": EAST, "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}},
        {"Region": WEST, "TableClass": "STANDARD_INFREQUENT_ACCESS", "DeletionProtectionEnabled": False,
         "Tags": [{"Key": "team", "Value": "west"}]}]))["StackId"]
    status, failures = _status(cfn, stack)
    assert status == "CREATE_COMPLETE", failures
    outputs = {o["OutputKey"]: o["OutputValue"] for o in cfn.describe_stacks(StackName=stack)["Stacks"][0]["Outputs"]}
    described = east.describe_table(TableName=name)["Table"]
    assert outputs["Name"] == name and outputs["Arn"] == described["TableArn"]
    assert outputs["StreamArn"] == described["LatestStreamArn"]
    assert {r["RegionName"] for r in described["Replicas"]} == {EAST, WEST}
    there = west.describe_table(TableName=name)["Table"]
    assert there["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert west.list_tags_of_resource(ResourceArn=there["TableArn"])["Tags"] == [{"Key": "team", "Value": "west"}]
    pitr = east.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert pitr["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    east.put_item(TableName=name, Item={"pk": {"S": "1"}})
    assert "Item" in west.get_item(TableName=name, Key={"pk": {"S": "1"}})

    # An update adds eu-west-1 and removes us-west-2.
    cfn.update_stack(StackName=stack, TemplateBody=_template(name, [{"Region": EAST}, {"Region": EU}]))
    status, failures = _status(cfn, stack)
    assert status == "UPDATE_COMPLETE", failures
    assert {r["RegionName"] for r in east.describe_table(TableName=name)["Table"]["Replicas"]} == {EAST, EU}
    assert "Item" in eu.get_item(TableName=name, Key={"pk": {"S": "1"}})
    assert name not in west.list_tables()["TableNames"]

    cfn.delete_stack(StackName=stack)
    assert _status(cfn, stack)[0] == "DELETE_COMPLETE"
    for client in (east, eu):
        assert name not in client.list_tables()["TableNames"]


def test_the_stack_region_must_be_a_replica(aws: Any) -> None:
    cfn = aws("cloudformation")
    stack, name = f"g{uuid.uuid4().hex[:8]}", f"gt-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=stack, TemplateBody=_template(name, [{"Region": WEST}]))
    status, failures = _status(cfn, stack)
    assert status == "ROLLBACK_COMPLETE"
    assert any("The Replicas section must contain an entry for the current region" in f for f in failures), failures
    assert name not in aws("dynamodb").list_tables()["TableNames"]


def test_a_provisioned_global_table_scales_its_writes(aws: Any) -> None:
    cfn, east, west = aws("cloudformation"), aws("dynamodb"), aws("dynamodb", region=WEST)
    stack, name = f"g{uuid.uuid4().hex[:8]}", f"gt-{uuid.uuid4().hex[:8]}"
    body = json.loads(_template(name, [
        {"Region": EAST, "ReadProvisionedThroughputSettings": {"ReadCapacityUnits": 4}},
        {"Region": WEST, "ReadProvisionedThroughputSettings": {"ReadCapacityUnits": 2}}]))
    props = body["Resources"]["Orders"]["Properties"]
    props["BillingMode"] = "PROVISIONED"
    props["WriteProvisionedThroughputSettings"] = {"WriteCapacityAutoScalingSettings": {
        "MinCapacity": 5, "MaxCapacity": 50, "SeedCapacity": 6,
        "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70}}}
    stack = cfn.create_stack(StackName=stack, TemplateBody=json.dumps(body))["StackId"]
    status, failures = _status(cfn, stack)
    assert status == "CREATE_COMPLETE", failures
    here = east.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    there = west.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    assert (here["ReadCapacityUnits"], here["WriteCapacityUnits"]) == (4, 6)
    assert (there["ReadCapacityUnits"], there["WriteCapacityUnits"]) == (2, 6)
    scaling = east.describe_table_replica_auto_scaling(TableName=name)["TableAutoScalingDescription"]
    assert all(r["ReplicaProvisionedWriteCapacityAutoScalingSettings"]["MaximumUnits"] == 50
               for r in scaling["Replicas"])
    cfn.delete_stack(StackName=stack)
    assert _status(cfn, stack)[0] == "DELETE_COMPLETE"
