"""Paging tokens a service never issued, in the services session 15 left (SQS, CloudWatch Logs filters,
S3 versions): they used to be taken as a raw name or URL and served a page from it; now they are refused
as AWS refuses them, and real tokens from a first page still page on.

Sources of the expected answers:
- SQS ListQueues/ListDeadLetterSourceQueues: InvalidParameterValue "Invalid or expired next token."
  (the wording of another emulator's ListDeadLetterSourceQueues test; UNCONFIRMED against a recording).
- Logs DescribeMetricFilters/DescribeSubscriptionFilters: InvalidParameterException "The specified
  nextToken is invalid.", the answer onceflow already gives for every other Describe* listing.
- Logs DescribeQueryDefinitions/DescribeQueries/DescribeResourcePolicies: their tokens were a bare offset
  ("1"); now opaque like the other Describe* tokens, so "1" is a token Logs never issued.
- Logs DescribeIndexPolicies (one page per call, so any token is made up): the same Logs answer.
- IAM ListEntitiesForPolicy: ValidationError "Invalid Marker.", the answer onceflow already gives for every
  other IAM List* (its wording UNCONFIRMED); it used to ignore Marker and MaxItems alike.
- DynamoDB ListTagsOfResource (a table's at most 50 tags are one page): ValidationException "Invalid
  NextToken", onceflow's answer for ListExports' and ListContributorInsights' tokens (UNCONFIRMED wording).
- S3 ListObjectVersions: InvalidArgument "A version-id marker cannot be specified without a key
  marker." (LocalStack's AWS-validated provider and the Ceph s3-tests both expect it).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

BOGUS = "not-a-token-we-issued"
RAW = botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0})


def _error(call: Callable[[], Any]) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as exc:
        call()
    r = exc.value.response
    return r["ResponseMetadata"]["HTTPStatusCode"], r["Error"]["Code"], r["Error"].get("Message", "")


def _pages(call: Callable[..., dict[str, Any]], items: str, token: str, **fixed: Any) -> tuple[int, list[Any]]:
    """Every page of a listing through its own tokens: how many pages, and the items in order."""
    seen: list[Any] = []
    kwargs: dict[str, Any] = dict(fixed)
    count = 0
    while True:
        page = call(**kwargs)
        count += 1
        seen += page.get(items, [])
        if not page.get(token):
            return count, seen
        kwargs = {**fixed, token: page[token]}


SQS_REFUSAL = (400, "InvalidParameterValue", "Invalid or expired next token.")


def test_sqs_list_queues_refuses_a_made_up_token_and_pages_with_its_own(aws: Callable[..., Any]) -> None:
    sqs = aws("sqs")
    prefix = f"pg{uuid.uuid4().hex[:8]}"
    urls = [sqs.create_queue(QueueName=f"{prefix}-{i}")["QueueUrl"] for i in range(5)]
    assert _error(lambda: sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2, NextToken=BOGUS)) == SQS_REFUSAL
    # a queue name was the token before: it must not be one now
    assert _error(lambda: sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2,
                                          NextToken=f"{prefix}-1")) == SQS_REFUSAL
    count, seen = _pages(sqs.list_queues, "QueueUrls", "NextToken", QueueNamePrefix=prefix, MaxResults=2)
    assert count == 3
    assert seen == sorted(urls)


def test_sqs_dead_letter_sources_refuse_a_made_up_token_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    sqs = aws("sqs")
    tag = uuid.uuid4().hex[:8]
    dlq = sqs.create_queue(QueueName=f"dlq-{tag}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": "3"})
    sources = [sqs.create_queue(QueueName=f"src-{tag}-{i}", Attributes={"RedrivePolicy": policy})["QueueUrl"]
               for i in range(3)]
    assert _error(lambda: sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=1,
                                                             NextToken=BOGUS)) == SQS_REFUSAL
    assert _error(lambda: sqs.list_dead_letter_source_queues(QueueUrl=dlq, MaxResults=1,
                                                             NextToken=sources[0])) == SQS_REFUSAL
    count, seen = _pages(sqs.list_dead_letter_source_queues, "queueUrls", "NextToken", QueueUrl=dlq, MaxResults=1)
    assert count == 3
    assert seen == sorted(sources)


LOGS_REFUSAL = (400, "InvalidParameterException", "The specified nextToken is invalid.")


def test_logs_filter_listings_refuse_a_made_up_token_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    logs = aws("logs")
    group = f"/pg/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    names = [f"mf-{i}" for i in range(3)]
    for name in names:
        logs.put_metric_filter(logGroupName=group, filterName=name, filterPattern="ERROR", metricTransformations=[
            {"metricName": name, "metricNamespace": "pg", "metricValue": "1"}])
    assert _error(lambda: logs.describe_metric_filters(logGroupName=group, nextToken=BOGUS)) == LOGS_REFUSAL
    assert _error(lambda: logs.describe_metric_filters(logGroupName=group, nextToken="mf-0")) == LOGS_REFUSAL
    assert _error(lambda: logs.describe_subscription_filters(logGroupName=group, nextToken=BOGUS)) == LOGS_REFUSAL
    count, seen = _pages(logs.describe_metric_filters, "metricFilters", "nextToken", logGroupName=group, limit=1)
    assert count == 3
    assert [f["filterName"] for f in seen] == names


def test_s3_list_object_versions_refuses_a_version_marker_without_a_key_marker(aws: Callable[..., Any]) -> None:
    s3 = aws("s3", config=RAW)
    bucket = f"pg-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    for _ in range(3):
        s3.put_object(Bucket=bucket, Key="k", Body=b"x")
    with pytest.raises(ClientError) as exc:
        s3.list_object_versions(Bucket=bucket, VersionIdMarker="made-up")
    err = exc.value.response
    assert (err["ResponseMetadata"]["HTTPStatusCode"], err["Error"]["Code"], err["Error"]["Message"]) == (
        400, "InvalidArgument", "A version-id marker cannot be specified without a key marker.")
    assert err["Error"].get("ArgumentName") == "version-id-marker"
    first = s3.list_object_versions(Bucket=bucket, MaxKeys=1)
    rest = s3.list_object_versions(Bucket=bucket, KeyMarker=first["NextKeyMarker"],
                                   VersionIdMarker=first["NextVersionIdMarker"])
    ids = [v["VersionId"] for v in first["Versions"] + rest["Versions"]]
    assert len(ids) == len(set(ids)) == 3


def test_logs_index_policies_refuse_a_made_up_token(aws: Callable[..., Any]) -> None:
    logs = aws("logs")
    group = f"/pg/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    assert _error(lambda: logs.describe_index_policies(logGroupIdentifiers=[group],
                                                       nextToken=BOGUS)) == LOGS_REFUSAL
    assert logs.describe_index_policies(logGroupIdentifiers=[group])["indexPolicies"] == []


def test_iam_entities_for_policy_refuse_a_made_up_marker_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    tag = uuid.uuid4().hex[:8]
    doc = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    arn = iam.create_policy(PolicyName=f"pg-{tag}", PolicyDocument=doc)["Policy"]["Arn"]
    users = [f"pg-{tag}-u{i}" for i in range(3)]
    for user in users:
        iam.create_user(UserName=user)
        iam.attach_user_policy(UserName=user, PolicyArn=arn)
    group = f"pg-{tag}-g"
    iam.create_group(GroupName=group)
    iam.attach_group_policy(GroupName=group, PolicyArn=arn)
    assert _error(lambda: iam.list_entities_for_policy(PolicyArn=arn, Marker=BOGUS)) == (
        400, "ValidationError", "Invalid Marker.")
    pages: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"PolicyArn": arn, "MaxItems": 2}
    while True:
        page = iam.list_entities_for_policy(**kwargs)
        pages.append(page)
        if not page["IsTruncated"]:
            break
        kwargs["Marker"] = page["Marker"]
    assert len(pages) == 2
    assert [g["GroupName"] for p in pages for g in p["PolicyGroups"]] == [group]
    assert [u["UserName"] for p in pages for u in p["PolicyUsers"]] == users


def test_dynamodb_list_tags_refuses_a_made_up_token(aws: Callable[..., Any]) -> None:
    ddb = aws("dynamodb")
    name = f"pg-{uuid.uuid4().hex[:8]}"
    made = ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST", Tags=[{"Key": "a", "Value": "1"}])
    arn = made["TableDescription"]["TableArn"]
    assert _error(lambda: ddb.list_tags_of_resource(ResourceArn=arn, NextToken=BOGUS)) == (
        400, "ValidationException", "Invalid NextToken")
    page = ddb.list_tags_of_resource(ResourceArn=arn)
    assert page["Tags"] == [{"Key": "a", "Value": "1"}]
    assert "NextToken" not in page


def test_logs_offset_listings_refuse_a_bare_offset_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    logs = aws("logs")
    prefix = f"pg-{uuid.uuid4().hex[:8]}"
    ids = [logs.put_query_definition(name=f"{prefix}-{i}", queryString="fields @message")["queryDefinitionId"]
           for i in range(3)]
    assert _error(lambda: logs.describe_query_definitions(queryDefinitionNamePrefix=prefix, maxResults=1,
                                                          nextToken="1")) == LOGS_REFUSAL
    assert _error(lambda: logs.describe_queries(nextToken="1")) == LOGS_REFUSAL
    assert _error(lambda: logs.describe_resource_policies(nextToken="1")) == LOGS_REFUSAL
    count, seen = _pages(logs.describe_query_definitions, "queryDefinitions", "nextToken",
                         queryDefinitionNamePrefix=prefix, maxResults=1)
    assert count == 3
    assert sorted(d["queryDefinitionId"] for d in seen) == sorted(ids)
