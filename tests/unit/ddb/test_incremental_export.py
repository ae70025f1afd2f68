"""An INCREMENTAL_EXPORT over a period of the service's clock: each item written in [from, to) with
its new and old images, into onceflow's S3 (the real service on the same database)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from onceflow.context import Principal, RequestContext
from onceflow.ddb.backups import MIGRATIONS as BACKUPS
from onceflow.ddb.export import MIGRATIONS as EXPORTS
from onceflow.ddb.export import Transfers
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.store import MIGRATIONS
from onceflow.ddb.streams import MIGRATIONS as STREAMS
from onceflow.errors import ServiceError
from onceflow.s3.blobs import BlobStore
from onceflow.s3.service import S3Service
from onceflow.s3.store import MIGRATIONS as S3
from onceflow.store.db import Database

A, R = "123456789012", "us-east-1"
MINUTE = 60.0


class Clock:
    now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def world() -> Iterator[tuple[DynamoDB, Transfers, S3Service, Clock]]:
    db = Database(":memory:")
    db.migrate(MIGRATIONS + STREAMS + BACKUPS + EXPORTS + S3)
    clock = Clock()
    svc = DynamoDB(db, clock)
    s3 = S3Service(db, BlobStore(None))
    s3.create_bucket(A, R, "out", None, {})
    yield svc, Transfers(svc, lambda: s3), s3, clock
    db.close()


def _put(svc: DynamoDB, i: str, v: str) -> None:
    svc.put_item(A, R, {"TableName": "t", "Item": {"id": {"S": i}, "v": {"N": v}}})


def _at(x: float) -> datetime:
    return datetime.fromtimestamp(x, UTC)


def test_changes_in_the_period_with_new_and_old_images(world: tuple[DynamoDB, Transfers, S3Service, Clock]) -> None:
    svc, transfers, s3, clock = world
    svc.create_table(A, R, {"TableName": "t", "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    svc.continuous_backups(A, R, "t", {"PointInTimeRecoveryEnabled": True})
    _put(svc, "kept", "1")
    _put(svc, "changed", "1")
    _put(svc, "gone", "1")
    clock.now += 10 * MINUTE
    start = clock.now
    _put(svc, "changed", "2")
    svc.delete_item(A, R, {"TableName": "t", "Key": {"id": {"S": "gone"}}})
    _put(svc, "new", "1")
    clock.now += 20 * MINUTE
    _put(svc, "later", "1")  # after the period: left out
    ctx = RequestContext("dynamodb", "ExportTableToPointInTime", A, R, Principal.root(A))
    table_arn = f"arn:aws:dynamodb:{R}:{A}:table/t"
    d = transfers.export(ctx, {"TableArn": table_arn, "S3Bucket": "out", "ExportType": "INCREMENTAL_EXPORT",
                               "IncrementalExportSpecification": {"ExportFromTime": _at(start),
                                                                  "ExportToTime": _at(start + 15 * MINUTE)}})
    done = transfers.describe_export(A, R, d["ExportDescription"]["ExportArn"])["ExportDescription"]
    assert (done["ExportStatus"], done["ExportType"], done["ItemCount"]) == ("COMPLETED", "INCREMENTAL_EXPORT", 3)
    assert done["IncrementalExportSpecification"]["ExportViewType"] == "NEW_AND_OLD_IMAGES"
    summary = json.loads(b"".join(s3.get_object(A, "out", done["ExportManifest"])[1]))
    assert summary["exportType"] == "INCREMENTAL_EXPORT" and summary["outputView"] == "NEW_AND_OLD_IMAGES"
    files = b"".join(s3.get_object(A, "out", summary["manifestFilesS3Key"])[1]).decode().splitlines()
    data = json.loads(files[0])["dataFileS3Key"]
    lines = [json.loads(x) for x in gzip.decompress(b"".join(s3.get_object(A, "out", data)[1])).splitlines()]
    got = {x["Keys"]["id"]["S"]: (x.get("NewImage", {}).get("v"), x.get("OldImage", {}).get("v")) for x in lines}
    assert got == {"changed": ({"N": "2"}, {"N": "1"}), "gone": (None, {"N": "1"}), "new": ({"N": "1"}, None)}
    assert all(int(x["Metadata"]["WriteTimestampMicros"]["N"]) == int(start * 1_000_000) for x in lines)


def test_a_period_under_15_minutes_is_refused(world: tuple[DynamoDB, Transfers, S3Service, Clock]) -> None:
    svc, transfers, _, clock = world
    svc.create_table(A, R, {"TableName": "t", "BillingMode": "PAY_PER_REQUEST",
                            "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]})
    svc.continuous_backups(A, R, "t", {"PointInTimeRecoveryEnabled": True})
    clock.now += 30 * MINUTE
    ctx = RequestContext("dynamodb", "ExportTableToPointInTime", A, R, Principal.root(A))
    spec: dict[str, Any] = {"ExportFromTime": _at(clock.now - 10 * MINUTE), "ExportToTime": _at(clock.now)}
    with pytest.raises(ServiceError) as e:
        transfers.export(ctx, {"TableArn": "t", "S3Bucket": "out", "ExportType": "INCREMENTAL_EXPORT",
                               "IncrementalExportSpecification": spec})
    assert e.value.code == "InvalidExportTimeException"
