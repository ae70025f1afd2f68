"""DynamoDB details (issue 22).

ExportTableToPointInTime: an ExportTime of now is taken on a table whose point-in-time recovery was just
enabled, and one from before that is refused with InvalidExportTimeException "Export Time is invalid"
(scylladb/scylladb test/alternator/test_export.py, whose tests pass against AWS:
test_export_table_export_time_now and test_export_table_invalid_export_time, the latter quoting
DynamoDB's message). So an export's window reaches now, not LatestRestorableDateTime (5 minutes back).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _pitr_table(ddb: Any) -> str:
    name = f"s13-{uuid.uuid4().hex[:8]}"
    arn = ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])["TableDescription"]["TableArn"]
    ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    return str(arn)


def test_an_export_time_is_taken_up_to_now_and_refused_outside_the_window(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"s13-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    arn = _pitr_table(ddb)
    now = datetime.now(UTC).replace(microsecond=0)  # as the alternator test sends it: whole seconds
    taken = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket, ExportTime=now)["ExportDescription"]
    assert taken["ExportTime"] == now
    before = ddb.list_exports(TableArn=arn)["ExportSummaries"]
    for at in (now - timedelta(days=7), now + timedelta(hours=1)):
        with pytest.raises(ClientError) as e:
            ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket, ExportTime=at)
        assert e.value.response["Error"] == {"Code": "InvalidExportTimeException", "Message": "Export Time is invalid"}
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert ddb.list_exports(TableArn=arn)["ExportSummaries"] == before


# Streams across accounts: DescribeStream, GetShardIterator and GetRecords are served on another account's
# stream once that stream's resource policy grants them (rbac-iam-actions: "Cross-account support" Yes;
# rbac-examples: "Resource-based policy for a stream"); without a grant the call is refused.
CALLER, OWNER = "000000000000", "111111111111"
STREAM_READS = ["dynamodb:DescribeStream", "dynamodb:GetShardIterator", "dynamodb:GetRecords"]


def _streamed_table(owner: Any) -> tuple[str, str]:
    name = f"s13x-{uuid.uuid4().hex[:8]}"
    d = owner.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    owner.put_item(TableName=name, Item={"pk": {"S": "owner's"}})
    return str(d["TableDescription"]["TableArn"]), str(d["TableDescription"]["LatestStreamArn"])


def _grant(owner: Any, arn: str, actions: list[str]) -> None:
    owner.put_resource_policy(ResourceArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{CALLER}:root"}, "Action": actions,
         "Resource": arn}]}))


def _code(call: Callable[..., Any], **kw: Any) -> str:
    with pytest.raises(ClientError) as e:
        call(**kw)
    return str(e.value.response["Error"]["Code"])


def test_another_accounts_stream_is_read_where_its_policy_grants_it(aws: Callable[..., Any]) -> None:
    owner, caller = aws("dynamodbstreams", access_key=OWNER), aws("dynamodbstreams")
    _, stream = _streamed_table(aws("dynamodb", access_key=OWNER))
    _grant(aws("dynamodb", access_key=OWNER), stream, STREAM_READS)
    d = caller.describe_stream(StreamArn=stream)["StreamDescription"]
    assert (d["StreamArn"], d["StreamStatus"]) == (stream, "ENABLED")
    assert d == owner.describe_stream(StreamArn=stream)["StreamDescription"]
    it = caller.get_shard_iterator(StreamArn=stream, ShardId=d["Shards"][0]["ShardId"],
                                   ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = caller.get_records(ShardIterator=it)["Records"]
    assert [r["dynamodb"]["NewImage"]["pk"]["S"] for r in records] == ["owner's"]


def test_another_accounts_stream_without_a_grant_is_refused(aws: Callable[..., Any]) -> None:
    owner, caller = aws("dynamodbstreams", access_key=OWNER), aws("dynamodbstreams")
    ddb = aws("dynamodb", access_key=OWNER)
    table, stream = _streamed_table(ddb)
    _grant(ddb, table, ["dynamodb:*"])  # the table's policy does not govern its stream
    assert _code(caller.describe_stream, StreamArn=stream) == "AccessDeniedException"
    shard = owner.describe_stream(StreamArn=stream)["StreamDescription"]["Shards"][0]["ShardId"]
    assert _code(caller.get_shard_iterator, StreamArn=stream, ShardId=shard,
                 ShardIteratorType="TRIM_HORIZON") == "AccessDeniedException"
    it = owner.get_shard_iterator(StreamArn=stream, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert _code(caller.get_records, ShardIterator=it) == "AccessDeniedException"
    _grant(ddb, stream, ["dynamodb:DescribeStream"])  # one action granted: the others still refused
    assert caller.describe_stream(StreamArn=stream)["StreamDescription"]["StreamArn"] == stream
    assert _code(caller.get_records, ShardIterator=it) == "AccessDeniedException"
