"""DynamoDB details (issue 22): ExportTableToPointInTime's ExportTime must lie in the point-in-time
recovery window (API_ExportTableToPointInTime: "you can export data from any time within the point in
time recovery window"; InvalidExportTimeException: "The specified ExportTime is outside of the point in
time recovery window"), which ends at LatestRestorableDateTime, 5 minutes back on an unscaled server
(test_ddb_export_import.py exports inside it on a time-scaled server)."""

from __future__ import annotations

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


def test_an_export_time_past_the_latest_restorable_time_is_refused(aws: Callable[..., Any]) -> None:
    ddb, s3 = aws("dynamodb"), aws("s3")
    bucket = f"s13-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    arn = _pitr_table(ddb)
    before = ddb.list_exports(TableArn=arn).get("ExportSummaries", [])
    for at in (datetime.now(UTC), datetime.now(UTC) + timedelta(hours=1), datetime.now(UTC) - timedelta(days=1)):
        with pytest.raises(ClientError) as e:
            ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=bucket, ExportTime=at)
        assert e.value.response["Error"]["Code"] == "InvalidExportTimeException"
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert ddb.list_exports(TableArn=arn).get("ExportSummaries", []) == before

