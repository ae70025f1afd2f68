"""DynamoDB behaviours recorded on real DynamoDB by nubo-db/dynamodb-conformance that onceflow missed,
restated through boto3 (each test names the suite file whose expectation it carries)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError

BASE = {"AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST"}


def base_table(ddb: Any) -> str:
    name = f"t-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=name, **BASE)
    return name


def gsi(name: str, *keys: tuple[str, str]) -> dict[str, Any]:
    return {"Create": {"IndexName": name, "Projection": {"ProjectionType": "KEYS_ONLY"},
                       "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in keys]}}


def definitions(ddb: Any, table: str) -> list[dict[str, str]]:
    return sorted(ddb.describe_table(TableName=table)["Table"]["AttributeDefinitions"],
                  key=lambda a: a["AttributeName"])


# tests/tier2/updateTable/gsi.test.ts (eu-west-2, 2026-07-12)
def test_new_index_key_must_be_in_the_requests_own_definitions(ddb: Any) -> None:
    """pk is defined on the table, yet a new index keyed on it must declare it in the request too."""
    table = base_table(ddb)
    with pytest.raises(ClientError) as e:
        ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "g3", "AttributeType": "S"}],
                         GlobalSecondaryIndexUpdates=[gsi("gsiSharedPk", ("pk", "HASH"), ("g3", "RANGE"))])
    assert e.value.response["Error"]["Code"] == "ValidationException"
    assert "Some index key attributes are not defined in AttributeDefinitions" in str(e.value)
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=table)["Table"]  # nothing changed
    assert definitions(ddb, table) == BASE["AttributeDefinitions"]


def test_index_keyed_on_a_table_key_declared_again_is_accepted(ddb: Any) -> None:
    table = base_table(ddb)
    ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                                            {"AttributeName": "g3", "AttributeType": "S"}],
                     GlobalSecondaryIndexUpdates=[gsi("gsiSharedPk", ("pk", "HASH"), ("g3", "RANGE"))])
    assert [g["IndexName"] for g in ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"]] == [
        "gsiSharedPk"]


def test_conflicting_redeclaration_keeps_the_stored_type(ddb: Any) -> None:
    table = base_table(ddb)
    out = ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "N"},
                                                                  {"AttributeName": "gsiPk", "AttributeType": "S"}],
                           GlobalSecondaryIndexUpdates=[gsi("gsiRedecl", ("gsiPk", "HASH"))])
    want = [{"AttributeName": "gsiPk", "AttributeType": "S"}, {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"}]
    assert sorted(out["TableDescription"]["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == want
    assert definitions(ddb, table) == want
    ddb.put_item(TableName=table, Item={"pk": {"S": "redecl"}, "sk": {"S": "1"}})


def test_unused_definition_sent_with_an_index_is_dropped(ddb: Any) -> None:
    table = base_table(ddb)
    ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "g1", "AttributeType": "S"},
                                                            {"AttributeName": "unused", "AttributeType": "N"}],
                     GlobalSecondaryIndexUpdates=[gsi("gsi1", ("g1", "HASH"))])
    assert [a["AttributeName"] for a in definitions(ddb, table)] == ["g1", "pk", "sk"]


def test_sequential_index_adds_merge_the_definitions(ddb: Any) -> None:
    table = base_table(ddb)
    ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "g1", "AttributeType": "S"}],
                     GlobalSecondaryIndexUpdates=[gsi("gsi1", ("g1", "HASH"))])
    ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "g2", "AttributeType": "N"}],
                     GlobalSecondaryIndexUpdates=[gsi("gsi2", ("g2", "HASH"))])
    assert definitions(ddb, table) == [
        {"AttributeName": "g1", "AttributeType": "S"}, {"AttributeName": "g2", "AttributeType": "N"},
        {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}]


# tests/tier2/tags/basic.test.ts: ListTagsOfResource on an ARN of an account other than the caller's
def test_another_accounts_table_arn_is_refused_without_a_resource_policy(aws: Any, ddb: Any) -> None:
    other = aws("dynamodb", access_key="111111111111")  # a 12-digit key acts in that account
    table = base_table(other)
    arn = other.describe_table(TableName=table)["Table"]["TableArn"]
    assert ":111111111111:" in arn
    for call, action in ((lambda: ddb.list_tags_of_resource(ResourceArn=arn), "ListTagsOfResource"),
                         (lambda: ddb.get_item(TableName=arn, Key={"pk": {"S": "a"}, "sk": {"S": "b"}}), "GetItem"),
                         (lambda: ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}]), "TagResource")):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["Error"]["Code"] == "AccessDeniedException"
        assert e.value.response["Error"]["Message"] == (
            f"User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:{action} on resource: "
            f"{arn} because no resource-based policy allows the dynamodb:{action} action")
    assert other.list_tags_of_resource(ResourceArn=arn)["Tags"] == []  # the tag was not written
    # The caller's own account: an unknown table is still not found.
    mine = arn.replace(":111111111111:", ":000000000000:")
    with pytest.raises(ClientError) as e:
        ddb.list_tags_of_resource(ResourceArn=mine)
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"


# tests/tier2/contributorInsights/basic.test.ts
def test_contributor_insights_are_kept_per_table_and_index(ddb: Any) -> None:
    table = base_table(ddb)
    ddb.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "g1", "AttributeType": "S"}],
                     GlobalSecondaryIndexUpdates=[gsi("gsi1", ("g1", "HASH"))])
    got = ddb.describe_contributor_insights(TableName=table)
    assert (got["TableName"], got["ContributorInsightsStatus"]) == (table, "DISABLED")
    out = ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
    assert out["ContributorInsightsStatus"] == "ENABLING" and out["TableName"] == table
    got = ddb.describe_contributor_insights(TableName=table)
    assert got["ContributorInsightsStatus"] == "ENABLED"
    assert got["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    assert len(got["ContributorInsightsRuleList"]) == 4
    index = ddb.describe_contributor_insights(TableName=table, IndexName="gsi1")
    assert index["ContributorInsightsStatus"] == "DISABLED"
    listed = ddb.list_contributor_insights()["ContributorInsightsSummaries"]
    assert {"TableName": table, "ContributorInsightsStatus": "ENABLED",
            "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"} in listed
    own = ddb.list_contributor_insights(TableName=table)["ContributorInsightsSummaries"]
    assert [(s.get("IndexName"), s["ContributorInsightsStatus"]) for s in own] == [
        (None, "ENABLED"), ("gsi1", "DISABLED")]
    first = ddb.list_contributor_insights(TableName=table, MaxResults=1)
    assert len(first["ContributorInsightsSummaries"]) == 1
    rest = ddb.list_contributor_insights(TableName=table, NextToken=first["NextToken"])
    assert [s.get("IndexName") for s in rest["ContributorInsightsSummaries"]] == ["gsi1"] and "NextToken" not in rest
    assert ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="DISABLE")[
        "ContributorInsightsStatus"] == "DISABLING"
    assert ddb.describe_contributor_insights(TableName=table)["ContributorInsightsStatus"] == "DISABLED"
    for call in (lambda: ddb.describe_contributor_insights(TableName=table, IndexName="nope"),
                 lambda: ddb.update_contributor_insights(TableName=f"{table}-gone",
                                                         ContributorInsightsAction="ENABLE")):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
