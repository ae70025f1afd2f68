"""DynamoDB's warm throughput (WarmThroughput on a table and a GSI) and BillingModeSummary across
switches of the billing mode, through boto3."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

KEYS = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}
WITH_G = {**KEYS, "AttributeDefinitions": [*KEYS["AttributeDefinitions"], {"AttributeName": "g", "AttributeType": "S"}]}
GSI = {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
       "Projection": {"ProjectionType": "ALL"}}
PT = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}


@pytest.fixture
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


def _name() -> str:
    return f"w-{uuid.uuid4().hex[:10]}"


def test_on_demand_defaults_and_raised_warm_throughput(ddb: Any) -> None:
    n = _name()
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=[GSI], **WITH_G)
    t = ddb.describe_table(TableName=n)["Table"]
    default = {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
    assert t["WarmThroughput"] == default
    assert t["GlobalSecondaryIndexes"][0]["WarmThroughput"] == default
    ddb.update_table(TableName=n, WarmThroughput={"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000},
                     GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "by-g",
                                                              "WarmThroughput": {"WriteUnitsPerSecond": 6000}}}])
    t = ddb.describe_table(TableName=n)["Table"]
    assert t["WarmThroughput"] == {"ReadUnitsPerSecond": 15000, "WriteUnitsPerSecond": 5000, "Status": "ACTIVE"}
    assert t["GlobalSecondaryIndexes"][0]["WarmThroughput"] == {
        "ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 6000, "Status": "ACTIVE"}

    m = _name()
    ddb.create_table(TableName=m, BillingMode="PAY_PER_REQUEST", **WITH_G,
                     WarmThroughput={"ReadUnitsPerSecond": 20000, "WriteUnitsPerSecond": 4000},
                     GlobalSecondaryIndexes=[{**GSI, "WarmThroughput": {"ReadUnitsPerSecond": 13000,
                                                                        "WriteUnitsPerSecond": 4500}}])
    t = ddb.describe_table(TableName=m)["Table"]
    assert t["WarmThroughput"]["ReadUnitsPerSecond"] == 20000
    assert t["GlobalSecondaryIndexes"][0]["WarmThroughput"]["WriteUnitsPerSecond"] == 4500


def test_warm_throughput_below_the_on_demand_start_is_refused(ddb: Any) -> None:
    n = _name()
    prefix = "One or more parameter values were invalid: "
    with pytest.raises(ClientError) as e:
        ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS,
                         WarmThroughput={"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 3000})
    assert e.value.response["Error"] == {"Code": "ValidationException", "Message": prefix + (
        "Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand")}
    with pytest.raises(ClientError) as e:
        ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **WITH_G,
                         GlobalSecondaryIndexes=[{**GSI, "WarmThroughput": {"ReadUnitsPerSecond": 10000}}])
    assert e.value.response["Error"]["Message"] == prefix + (
        "Requested ReadUnitsPerSecond for WarmThroughput for index by-g is lower than initial throughput for OnDemand")
    assert n not in ddb.list_tables()["TableNames"]
    ddb.create_table(TableName=n, BillingMode="PAY_PER_REQUEST", **KEYS)
    with pytest.raises(ClientError):
        ddb.update_table(TableName=n, WarmThroughput={"ReadUnitsPerSecond": 100})
    assert ddb.describe_table(TableName=n)["Table"]["WarmThroughput"]["ReadUnitsPerSecond"] == 12000


def test_billing_mode_summary_follows_the_switches(ddb: Any) -> None:
    n = _name()
    ddb.create_table(TableName=n, ProvisionedThroughput=PT, **KEYS)
    t = ddb.describe_table(TableName=n)["Table"]
    # Never on-demand: no summary, and no warm throughput asked for.
    assert "BillingModeSummary" not in t and "WarmThroughput" not in t
    ddb.update_table(TableName=n, BillingMode="PAY_PER_REQUEST")
    on_demand = ddb.describe_table(TableName=n)["Table"]["BillingModeSummary"]
    assert on_demand["BillingMode"] == "PAY_PER_REQUEST"
    ddb.update_table(TableName=n, BillingMode="PROVISIONED", ProvisionedThroughput=PT)
    t = ddb.describe_table(TableName=n)["Table"]
    assert t["BillingModeSummary"] == {"BillingMode": "PROVISIONED",
                                       "LastUpdateToPayPerRequestDateTime": on_demand[
                                           "LastUpdateToPayPerRequestDateTime"]}
    assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 1
