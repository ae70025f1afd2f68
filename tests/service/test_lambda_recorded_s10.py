"""Lambda's answers as AWS recorded them in LocalStack's aws-validated test_lambda_api (the snapshot's
last part: revisions, function ARNs, provisioned concurrency limits, event source mapping names)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import admin_role, zip_of

ACCOUNT = "000000000000"
REGION = "us-east-1"
ARN = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    """A role allowed everything (the recordings used an administrator role): mappings may read queues."""
    return admin_role(aws, "rec10")


def _create(aws: Callable[..., Any], role: str, name: str | None = None, **extra: Any) -> dict[str, Any]:
    params = {"FunctionName": name or f"rec10-{uuid.uuid4().hex[:10]}", "Runtime": "python3.12", "Role": role,
              "Handler": "app.handler", "Code": {"ZipFile": zip_of()}, **extra}
    return dict(aws("lambda").create_function(**params))


def refused(call: Callable[..., Any], **params: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    response = dict(excinfo.value.response)
    response.pop("ResponseMetadata")
    response["Status"] = excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"]
    return response


def test_revisions_follow_publishing_aliases_and_permissions(aws: Callable[..., Any], role: str) -> None:
    """test_function_revisions_version_and_alias / _permissions: publishing gives $LATEST a new
    revision, an alias does not; a permission changes the function's revision, which the policy names."""
    lam = aws("lambda")
    name = _create(aws, role)["FunctionName"]
    active = lam.get_function(FunctionName=name)["Configuration"]["RevisionId"]
    version = lam.publish_version(FunctionName=name, RevisionId=active)
    after_publish = lam.get_function(FunctionName=name)["Configuration"]["RevisionId"]
    assert after_publish != active
    assert lam.get_function(FunctionName=name, Qualifier="1")["Configuration"]["RevisionId"] == version["RevisionId"]
    alias = lam.create_alias(FunctionName=name, Name="revision_alias", FunctionVersion="1")
    assert lam.get_function(FunctionName=name)["Configuration"]["RevisionId"] == after_publish
    assert lam.get_function(FunctionName=name, Qualifier="1")["Configuration"]["RevisionId"] == version["RevisionId"]
    moved = lam.update_alias(FunctionName=name, Name="revision_alias", Description="something changed",
                             RevisionId=alias["RevisionId"])
    assert moved["RevisionId"] != alias["RevisionId"] and moved["Description"] == "something changed"

    lam.add_permission(FunctionName=name, StatementId="s3", Action="lambda:InvokeFunction",
                       Principal="s3.amazonaws.com", RevisionId=after_publish)
    policy = lam.get_policy(FunctionName=name)
    assert policy["RevisionId"] != after_publish
    assert policy["RevisionId"] == lam.get_function(FunctionName=name)["Configuration"]["RevisionId"]
    lam.remove_permission(FunctionName=name, StatementId="s3", RevisionId=policy["RevisionId"])
    assert lam.get_function(FunctionName=name)["Configuration"]["RevisionId"] != policy["RevisionId"]


def test_creating_in_another_account_is_denied(aws: Callable[..., Any], role: str) -> None:
    """test_function_arns function_arn_other_account_exc: a 403 whose message is null, no Type."""
    name = f"rec10-{uuid.uuid4().hex[:8]}"
    other = f"arn:aws:lambda:{REGION}:123456789012:function:{name}"
    assert refused(aws("lambda").create_function, FunctionName=other, Runtime="python3.12", Role=role,
                   Handler="app.handler", Code={"ZipFile": zip_of()}) == {
        "Error": {"Code": "AccessDeniedException", "Message": None}, "Status": 403}
    # nothing was made; the caller's own account still takes a full ARN
    assert refused(aws("lambda").get_function, FunctionName=name)["Status"] == 404
    created = _create(aws, role, name=f"{ARN}{name}")
    assert created["FunctionArn"] == f"{ARN}{name}" and created["FunctionName"] == name


def test_provisioned_concurrency_keeps_the_unreserved_minimum(aws: Callable[..., Any], role: str) -> None:
    """test_provisioned_concurrency_limits: more than the unreserved pool, or so much that fewer than
    100 stay unreserved, is refused without a Type, and nothing is provisioned."""
    lam = aws("lambda")
    name = _create(aws, role)["FunctionName"]
    lam.publish_version(FunctionName=name)
    limit = lam.get_account_settings()["AccountLimit"]
    pool = limit["UnreservedConcurrentExecutions"]
    too_many = f"Specified ConcurrentExecutions for function is greater than account's unreserved concurrency [{pool}]."
    assert refused(lam.put_provisioned_concurrency_config, FunctionName=name, Qualifier="1",
                   ProvisionedConcurrentExecutions=limit["ConcurrentExecutions"] + 1) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": too_many}, "message": too_many, "Status": 400}
    below = ("Specified ConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below "
             "its minimum value of [100].")
    for count in (pool, pool - 99):
        assert refused(lam.put_provisioned_concurrency_config, FunctionName=name, Qualifier="1",
                       ProvisionedConcurrentExecutions=count) == {
            "Error": {"Code": "InvalidParameterValueException", "Message": below}, "message": below, "Status": 400}
    assert lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"] == []


def test_sqs_mappings_name_the_function_as_given(aws: Callable[..., Any], role: str) -> None:
    """test_function_name_variations: each form of the function's name maps to the ARN it names, and the
    answer carries the SQS defaults (FunctionResponseTypes empty, USER_INITIATED)."""
    lam, sqs = aws("lambda"), aws("sqs")
    queue = sqs.create_queue(QueueName=f"rec10-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    name = _create(aws, role)["FunctionName"]
    version = lam.publish_version(FunctionName=name)
    alias = lam.create_alias(FunctionName=name, FunctionVersion=version["Version"], Name="myalias")
    forms = {name: f"{ARN}{name}", f"{name}:$LATEST": f"{ARN}{name}:$LATEST", f"{name}:1": f"{ARN}{name}:1",
             f"{name}:myalias": f"{ARN}{name}:myalias", f"{ARN}{name}": f"{ARN}{name}",
             version["FunctionArn"]: f"{ARN}{name}:1", alias["AliasArn"]: f"{ARN}{name}:myalias"}
    for given, expected in forms.items():
        created = lam.create_event_source_mapping(FunctionName=given, EventSourceArn=queue_arn)
        lam.delete_event_source_mapping(UUID=created["UUID"])
        assert created["ResponseMetadata"]["HTTPStatusCode"] == 202
        assert {k: created[k] for k in ("FunctionArn", "BatchSize", "MaximumBatchingWindowInSeconds", "State",
                                        "StateTransitionReason", "FunctionResponseTypes")} == {
            "FunctionArn": expected, "BatchSize": 10, "MaximumBatchingWindowInSeconds": 0, "State": "Creating",
            "StateTransitionReason": "USER_INITIATED", "FunctionResponseTypes": []}


def test_stream_mappings_report_a_user_action(aws: Callable[..., Any], role: str) -> None:
    """A DynamoDB stream's mapping: no StartingPosition is refused as recorded; one made says "User
    action" and has no response types (AWS CLI transcripts of stream mappings)."""
    lam, ddb = aws("lambda"), aws("dynamodb")
    table = f"rec10-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    stream = ddb.update_table(TableName=table, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})["TableDescription"]["LatestStreamArn"]
    name = _create(aws, role)["FunctionName"]
    message = "1 validation error detected: Value null at 'startingPosition' failed to satisfy constraint: " \
              "Member must not be null."
    assert refused(lam.create_event_source_mapping, FunctionName=name, EventSourceArn=stream) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User",
        "message": message, "Status": 400}
    created = lam.create_event_source_mapping(FunctionName=name, EventSourceArn=stream, StartingPosition="LATEST")
    try:
        assert created["StateTransitionReason"] == "User action"
        assert created["FunctionResponseTypes"] == []
        got = lam.get_event_source_mapping(UUID=created["UUID"])
        assert got["StateTransitionReason"] == "User action" and got["FunctionResponseTypes"] == []
    finally:
        lam.delete_event_source_mapping(UUID=created["UUID"])


def test_a_published_snapstart_version_is_optimized(aws: Callable[..., Any], role: str) -> None:
    """test_snapstart_lifecycle (recorded with Java; Python 3.12 takes SnapStart too): $LATEST's
    optimization is Off, the published version's On."""
    lam = aws("lambda")
    name = _create(aws, role, SnapStart={"ApplyOn": "PublishedVersions"})["FunctionName"]
    lam.publish_version(FunctionName=name, Description="version1")
    latest = lam.get_function(FunctionName=name)["Configuration"]
    version = lam.get_function(FunctionName=f"{name}:1")["Configuration"]
    assert latest["SnapStart"] == {"ApplyOn": "PublishedVersions", "OptimizationStatus": "Off"}
    assert version["SnapStart"] == {"ApplyOn": "PublishedVersions", "OptimizationStatus": "On"}
    assert version["Description"] == "version1"
    plain = _create(aws, role)["FunctionName"]
    lam.publish_version(FunctionName=plain)
    assert lam.get_function(FunctionName=f"{plain}:1")["Configuration"]["SnapStart"] == {
        "ApplyOn": "None", "OptimizationStatus": "Off"}
