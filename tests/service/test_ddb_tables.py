"""DynamoDB tables through boto3 and the AWS CLI: create, describe, list, update, delete, tags, TTL."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

KEYS = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]}


def name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


def error(call: Any, **kw: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as e:
        call(**kw)
    return e.value.response  # type: ignore[no-any-return]


def test_create_describe_delete(ddb: Any) -> None:
    n = name()
    created = ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)["TableDescription"]
    assert created["TableStatus"] == "CREATING"
    assert created["TableArn"] == f"arn:aws:dynamodb:us-east-1:000000000000:table/{n}"
    ddb.put_item(TableName=n, Item={"pk": {"S": "a"}, "sk": {"N": "1"}})
    t = ddb.describe_table(TableName=n)["Table"]
    assert t["TableStatus"] == "ACTIVE"
    assert t["ItemCount"] == 1
    assert t["KeySchema"] == KEYS["KeySchema"]
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert t["TableClassSummary"] == {"TableClass": "STANDARD"}
    gone = ddb.delete_table(TableName=n)["TableDescription"]
    assert gone["TableStatus"] == "DELETING"
    assert "KeySchema" not in gone
    r = error(ddb.describe_table, TableName=n)
    assert r["Error"] == {"Code": "ResourceNotFoundException",
                          "Message": f"Requested resource not found: Table: {n} not found"}


def test_create_errors(ddb: Any) -> None:
    n = name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)
    r = error(ddb.create_table, TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)
    assert r["Error"] == {"Code": "ResourceInUseException", "Message": f"Table already exists: {n}"}
    r = error(ddb.create_table, TableName=name(), **KEYS)
    assert r["Error"]["Message"] == ("One or more parameter values were invalid: ReadCapacityUnits and "
                                     "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
    # Fewer definitions than keys and no index: the AWS CLI's answer quoted in aws-cloudformation/cfn-lint#1037.
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
              KeySchema=KEYS["KeySchema"])
    assert r["Error"]["Message"] == "Invalid KeySchema: Some index key attribute have no definition"
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": "x", "AttributeType": "S"}],
              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    assert r["Error"]["Message"] == ("One or more parameter values were invalid: Some index key attributes are not "
                                     "defined in AttributeDefinitions. Keys: [pk], AttributeDefinitions: [x]")
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
              GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                       "Projection": {"ProjectionType": "ALL"}}])
    assert r["Error"]["Message"] == ("One or more parameter values were invalid: Some index key attributes are not "
                                     "defined in AttributeDefinitions. Keys: [g], AttributeDefinitions: [pk]")
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=KEYS["AttributeDefinitions"] + [{"AttributeName": "x", "AttributeType": "S"}],
              KeySchema=KEYS["KeySchema"])
    assert r["Error"]["Message"] == ("One or more parameter values were invalid: Number of attributes in KeySchema "
                                     "does not exactly match number of attributes defined in AttributeDefinitions")
    # With indexes declared the refusal lists the definitions and the keys used (aws-cloudformation/cfn-lint#1037).
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("user", "id", "created")],
              KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
              GlobalSecondaryIndexes=[{"IndexName": "by-user",
                                       "KeySchema": [{"AttributeName": "user", "KeyType": "HASH"}],
                                       "Projection": {"ProjectionType": "ALL"}}])
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "One or more parameter values were invalid: Some AttributeDefinitions are not used. "
        "AttributeDefinitions: [user, id, created], keys used: [id, user]")}
    r = error(ddb.delete_table, TableName="nope-" + n)
    assert r["Error"]["Code"] == "ResourceNotFoundException"


def test_list_tables_pages(ddb: Any) -> None:
    prefix = f"list-{uuid.uuid4().hex[:6]}"
    for i in range(3):
        ddb.create_table(TableName=f"{prefix}-{i}", BillingMode="PAY_PER_REQUEST", **KEYS)
    names: list[str] = []
    for page in ddb.get_paginator("list_tables").paginate(PaginationConfig={"PageSize": 2}):
        names += page["TableNames"]
    assert [f"{prefix}-{i}" for i in range(3)] == [x for x in names if x.startswith(prefix)]
    assert names == sorted(names)


def test_indexes_provisioned_and_update_table(ddb: Any) -> None:
    n = name()
    ddb.create_table(
        TableName=n, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        AttributeDefinitions=KEYS["AttributeDefinitions"] + [{"AttributeName": "g", "AttributeType": "S"},
                                                            {"AttributeName": "l", "AttributeType": "S"}],
        KeySchema=KEYS["KeySchema"],
        GlobalSecondaryIndexes=[{"IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"},
                                 "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}],
        LocalSecondaryIndexes=[{"IndexName": "byL", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                   {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    t = ddb.describe_table(TableName=n)["Table"]
    assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 5
    assert t["GlobalSecondaryIndexes"][0]["IndexName"] == "byG"
    assert t["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
    assert t["LocalSecondaryIndexes"][0]["IndexArn"] == t["TableArn"] + "/index/byL"
    ddb.put_item(TableName=n, Item={"pk": {"S": "a"}, "sk": {"N": "1"}, "h": {"S": "x"}})
    t = ddb.update_table(
        TableName=n, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "h", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {"IndexName": "byH",
                                                 "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                                                 "Projection": {"ProjectionType": "ALL"}}},
                                     {"Delete": {"IndexName": "byG"}}])["TableDescription"]
    assert [g["IndexName"] for g in t["GlobalSecondaryIndexes"]] == ["byH"]
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    got = ddb.query(TableName=n, IndexName="byH", KeyConditionExpression="h = :h",
                    ExpressionAttributeValues={":h": {"S": "x"}})
    assert got["Items"] == [{"pk": {"S": "a"}, "sk": {"N": "1"}, "h": {"S": "x"}}]


def test_tags(ddb: Any) -> None:
    n = name()
    arn = ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", Tags=[{"Key": "a", "Value": "1"}],
                           **KEYS)["TableDescription"]["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "b", "Value": "2"}])
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "b", "Value": "2"}]


def test_ttl_settings_and_expiry(ddb: Any) -> None:
    n = name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)
    assert ddb.describe_time_to_live(TableName=n)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    ddb.update_time_to_live(TableName=n, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    assert ddb.describe_time_to_live(TableName=n)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
    r = error(ddb.update_time_to_live, TableName=n, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    assert r["Error"]["Message"] == "TimeToLive is already enabled"
    r = error(ddb.update_time_to_live, TableName=n, TimeToLiveSpecification={"Enabled": True, "AttributeName": "other"})
    assert r["Error"] == {"Code": "ValidationException", "Message": "TimeToLive is active on a different "
                          "AttributeName: current AttributeName is exp"}
    now = int(time.time())
    ddb.put_item(TableName=n, Item={"pk": {"S": "old"}, "sk": {"N": "1"}, "exp": {"N": str(now - 10)}})
    ddb.put_item(TableName=n, Item={"pk": {"S": "new"}, "sk": {"N": "1"}, "exp": {"N": str(now + 3600)}})
    # DynamoDB ignores TTL values more than five years in the past.
    ddb.put_item(TableName=n, Item={"pk": {"S": "ancient"}, "sk": {"N": "1"}, "exp": {"N": "1000"}})

    deadline = time.time() + 30
    while time.time() < deadline:
        if "Item" not in ddb.get_item(TableName=n, Key={"pk": {"S": "old"}, "sk": {"N": "1"}}):
            break
        time.sleep(0.2)
    assert "Item" not in ddb.get_item(TableName=n, Key={"pk": {"S": "old"}, "sk": {"N": "1"}})
    assert "Item" in ddb.get_item(TableName=n, Key={"pk": {"S": "new"}, "sk": {"N": "1"}})
    assert "Item" in ddb.get_item(TableName=n, Key={"pk": {"S": "ancient"}, "sk": {"N": "1"}})


def test_cli_waiters(aws_cli: Any) -> None:
    n = name()
    r = aws_cli("dynamodb", "create-table", "--table-name", n, "--billing-mode", "PAY_PER_REQUEST",
                "--attribute-definitions", "AttributeName=id,AttributeType=S",
                "--key-schema", "AttributeName=id,KeyType=HASH")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["TableDescription"]["TableName"] == n
    r = aws_cli("dynamodb", "wait", "table-exists", "--table-name", n)
    assert r.returncode == 0, r.stderr
    r = aws_cli("dynamodb", "delete-table", "--table-name", n)
    assert r.returncode == 0, r.stderr
    r = aws_cli("dynamodb", "wait", "table-not-exists", "--table-name", n)
    assert r.returncode == 0, r.stderr


def test_continuous_backups_and_limits(ddb: Any) -> None:
    n = name()
    arn = ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)["TableDescription"]["TableArn"]
    d = ddb.describe_continuous_backups(TableName=n)["ContinuousBackupsDescription"]
    assert d == {"ContinuousBackupsStatus": "ENABLED",
                 "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}
    d = ddb.update_continuous_backups(TableName=arn, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    assert d["PointInTimeRecoveryDescription"]["RecoveryPeriodInDays"] == 35
    r = error(ddb.describe_continuous_backups, TableName="nope-" + n)
    assert r["Error"]["Code"] == "TableNotFoundException"
    assert ddb.describe_limits()["TableMaxWriteCapacityUnits"] == 40000


def test_table_name_rules(ddb: Any) -> None:
    """DynamoDB checks a table name itself (3..255 of [a-zA-Z0-9_.-]); the model only bounds an ARN's length.
    Wordings recorded by nubo-db/dynamodb-conformance against real DynamoDB."""
    pattern = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"
    r = error(ddb.create_table, TableName="ab", BillingMode="PAY_PER_REQUEST", **KEYS)
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3")}
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 400
    r = error(ddb.put_item, TableName="bad table!@#", Item={"pk": {"S": "a"}})
    assert r["Error"]["Message"] == (
        f"1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: {pattern}")
    long = "a" * 256
    r = error(ddb.get_item, TableName=long, Key={"pk": {"S": "a"}})
    assert r["Error"]["Message"] == (f"1 validation error detected: Value '{long}' at 'tableName' failed to satisfy "
                                     "constraint: Member must have length less than or equal to 255")
    r = error(ddb.delete_item, TableName="x!", Key={})
    assert r["Error"]["Message"] == (
        f"2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: {pattern}; "
        "Value 'x!' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")
    for call in (ddb.describe_table, ddb.delete_table):
        assert error(call, TableName="invalid;name")["Error"]["Code"] == "ValidationException"
    assert "ab" not in ddb.list_tables()["TableNames"]


def test_create_table_configuration(ddb: Any) -> None:
    """SSESpecification and OnDemandThroughput round-trip through DescribeTable; a disabled stream with a
    view type is refused (AWS's wording, recorded by the dynoxide issue tracker from eu-west-2)."""
    n = name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", SSESpecification={"Enabled": True},
                     OnDemandThroughput={"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}, **KEYS)
    t = ddb.describe_table(TableName=n)["Table"]
    assert t["SSEDescription"]["Status"] == "ENABLED"
    assert t["SSEDescription"]["SSEType"] == "KMS"
    assert t["SSEDescription"]["KMSMasterKeyArn"].startswith("arn:aws:kms:us-east-1:000000000000:key/")
    assert t["OnDemandThroughput"] == {"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}
    plain = name()
    ddb.create_table(TableName=plain, BillingMode="PAY_PER_REQUEST", **KEYS)
    assert "SSEDescription" not in ddb.describe_table(TableName=plain)["Table"]
    bad = name()
    r = error(ddb.create_table, TableName=bad, BillingMode="PAY_PER_REQUEST",
              StreamSpecification={"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"}, **KEYS)
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "One or more parameter values were invalid: Table is being created with a stream disabled, "
        "UpdateViewType should not be specified")}
    assert bad not in ddb.list_tables()["TableNames"]


def test_update_table_unchanged_throughput_and_on_demand(ddb: Any) -> None:
    """An update to the throughput a provisioned table already has is refused (AWS's wording, as users have
    quoted it); OnDemandThroughput is replaced on update. Found by nubo-db/dynamodb-conformance."""
    n = name()
    ddb.create_table(TableName=n, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}, **KEYS)
    r = error(ddb.update_table, TableName=n, BillingMode="PROVISIONED",
              ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "The provisioned throughput for the table will not change. The requested value equals the current value. "
        "Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. "
        "Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. "
        "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")}
    ddb.update_table(TableName=n, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 6})
    assert ddb.describe_table(TableName=n)["Table"]["ProvisionedThroughput"]["WriteCapacityUnits"] == 6
    od = name()
    ddb.create_table(TableName=od, BillingMode="PAY_PER_REQUEST",
                     OnDemandThroughput={"MaxReadRequestUnits": 10, "MaxWriteRequestUnits": 5}, **KEYS)
    ddb.update_table(TableName=od, BillingMode="PAY_PER_REQUEST")  # the same billing mode again is accepted
    ddb.update_table(TableName=od, OnDemandThroughput={"MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 15})
    assert ddb.describe_table(TableName=od)["Table"]["OnDemandThroughput"] == {
        "MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 15}


def test_key_schema_naming_one_attribute_twice(ddb: Any) -> None:
    """AWS's wording for a KeySchema whose hash and range name one attribute (recorded by
    nubo-db/dynamodb-conformance; onceflow said "Both the Hash Key and the Range Key element in the
    KeySchema have the same name", which no recording confirmed)."""
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}])
    assert r["Error"] == {"Code": "ValidationException",
                          "Message": "Invalid KeySchema: Some index key attribute have no definition"}


def test_key_schema_of_three_elements(ddb: Any) -> None:
    """DynamoDB bounds KeySchema at two elements and words it as coral does (recorded by
    nubo-db/dynamodb-conformance); botocore's model has no such bound."""
    r = error(ddb.create_table, TableName=name(), BillingMode="PAY_PER_REQUEST",
              AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "extra")],
              KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"},
                         {"AttributeName": "extra", "KeyType": "RANGE"}])
    assert r["Error"]["Message"] == (
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), "
        "KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, keyType=RANGE)]' "
        "at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2")


def test_create_table_without_a_name(aws: Any) -> None:
    """CreateTable words a missing TableName its own way (recorded by nubo-db/dynamodb-conformance); PutItem
    keeps coral's `Value null at 'tableName'`."""
    import botocore.config

    raw = aws("dynamodb", config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0}))
    r = error(raw.create_table, BillingMode="PAY_PER_REQUEST", **KEYS)
    assert r["Error"] == {"Code": "ValidationException",
                          "Message": "The parameter 'TableName' is required but was not present in the request"}
    r = error(raw.put_item, Item={"pk": {"S": "a"}})
    assert r["Error"]["Message"] == ("1 validation error detected: Value null at 'tableName' failed to satisfy "
                                     "constraint: Member must not be null")


def test_stream_specification_rules(aws: Any) -> None:
    """A stream is enabled with a view type and disabled without one, once each: CreateTable and UpdateTable
    refuse the other shapes in DynamoDB's words, and the table is left as it was."""
    import botocore.config

    ddb = aws("dynamodb", config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0}))
    bad = name()
    r = error(ddb.create_table, TableName=bad, BillingMode="PAY_PER_REQUEST",
              StreamSpecification={"StreamEnabled": True}, **KEYS)
    assert r["Error"] == {"Code": "ValidationException", "Message": (
        "One or more parameter values were invalid: Table is being created with a stream enabled, "
        "UpdateViewType is required")}
    r = error(ddb.create_table, TableName=bad, BillingMode="PAY_PER_REQUEST",
              StreamSpecification={"StreamEnabled": True, "StreamViewType": "new_image"}, **KEYS)
    assert r["Error"]["Message"] == (
        "1 validation error detected: Value 'new_image' at 'streamSpecification.streamViewType' failed to satisfy "
        "constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]")
    assert bad not in ddb.list_tables()["TableNames"]

    n = name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)
    r = error(ddb.update_table, TableName=n, StreamSpecification={"StreamEnabled": False})
    assert r["Error"] == {"Code": "ValidationException", "Message": f"Table has no stream to disable: TableName: {n}"}
    r = error(ddb.update_table, TableName=n, StreamSpecification={"StreamEnabled": True})
    assert r["Error"]["Message"] == (
        "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required")
    assert "StreamSpecification" not in ddb.describe_table(TableName=n)["Table"]
    ddb.update_table(TableName=n, StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    for spec in ({"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
                 {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}):
        r = error(ddb.update_table, TableName=n, StreamSpecification=spec)
        assert r["Error"]["Message"] == f"Table already has an enabled stream: TableName: {n}"
    r = error(ddb.update_table, TableName=n,
              StreamSpecification={"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"})
    assert r["Error"]["Message"] == (
        "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not "
        "be specified")
    assert ddb.describe_table(TableName=n)["Table"]["StreamSpecification"] == {
        "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    ddb.update_table(TableName=n, StreamSpecification={"StreamEnabled": False})
    assert "StreamSpecification" not in ddb.describe_table(TableName=n)["Table"]


def test_sse_specification_rules(aws: Any) -> None:
    """SSESpecification's members must agree (DynamoDB's words); SSEType KMS without Enabled encrypts with KMS."""
    import botocore.config

    ddb = aws("dynamodb", config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0}))
    bad = name()
    for spec, text in (
        ({"Enabled": False, "SSEType": "KMS"}, "SSEType can not be specified if Enabled is false"),
        ({"Enabled": False, "KMSMasterKeyId": "alias/mine"}, "KMSMasterKeyId can not be specified if Enabled is false"),
        ({"Enabled": True, "SSEType": "AES256"}, "SSEType AES256 is not supported"),
        ({"Enabled": True, "KMSMasterKeyId": "alias/mine"}, "SSEType KMS is required if KMSMasterKeyId is specified"),
    ):
        r = error(ddb.create_table, TableName=bad, BillingMode="PAY_PER_REQUEST", SSESpecification=spec, **KEYS)
        assert r["Error"] == {"Code": "ValidationException",
                              "Message": f"One or more parameter values were invalid: {text}"}, spec
    assert bad not in ddb.list_tables()["TableNames"]
    n = name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", SSESpecification={"SSEType": "KMS"}, **KEYS)
    assert ddb.describe_table(TableName=n)["Table"]["SSEDescription"]["SSEType"] == "KMS"
    plain = name()
    ddb.create_table(TableName=plain, BillingMode="PAY_PER_REQUEST", SSESpecification={}, **KEYS)
    assert "SSEDescription" not in ddb.describe_table(TableName=plain)["Table"]
