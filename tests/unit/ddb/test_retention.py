"""What time does to DynamoDB's records, with the service's clock in hand: stream records kept 24
hours, shard iterators 15 minutes, point-in-time versions as long as the recovery window."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from onceflow.ddb.backups import MIGRATIONS as BACKUPS
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.store import MIGRATIONS
from onceflow.ddb.streams import MIGRATIONS as STREAMS
from onceflow.errors import ServiceError
from onceflow.store.db import Database

A, R = "123456789012", "us-east-1"
HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def world() -> Iterator[tuple[DynamoDB, Clock]]:
    db = Database(":memory:")
    db.migrate(MIGRATIONS + STREAMS + BACKUPS)
    clock = Clock()
    yield DynamoDB(db, clock), clock
    db.close()


def table(svc: DynamoDB, name: str, **extra: Any) -> dict[str, Any]:
    p = {"TableName": name, "BillingMode": "PAY_PER_REQUEST", **extra,
         "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
         "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
    return svc.create_table(A, R, p)["TableDescription"]  # type: ignore[no-any-return]


def put(svc: DynamoDB, name: str, i: str, v: str = "1") -> None:
    svc.put_item(A, R, {"TableName": name, "Item": {"id": {"S": i}, "v": {"N": v}}})


def horizon(svc: DynamoDB, arn: str) -> str:
    shard = svc.streams.describe_stream(A, R, arn)["StreamDescription"]["Shards"][0]["ShardId"]
    return svc.streams.get_shard_iterator(A, R, arn, shard, "TRIM_HORIZON")


def every_record(svc: DynamoDB, arn: str) -> list[str]:
    """The keys of the records of every shard kept, oldest shard first (shards roll over every 4 hours)."""
    out = []
    for shard in svc.streams.describe_stream(A, R, arn)["StreamDescription"]["Shards"]:
        it = svc.streams.get_shard_iterator(A, R, arn, shard["ShardId"], "TRIM_HORIZON")
        out += [r["dynamodb"]["Keys"]["id"]["S"] for r in svc.streams.get_records(A, R, it)["Records"]]
    return out


def test_stream_records_are_kept_24_hours(world: tuple[DynamoDB, Clock]) -> None:
    svc, clock = world
    arn = table(svc, "s", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    put(svc, "s", "old")
    clock.now += 23 * HOUR
    put(svc, "s", "new")
    svc.streams.trim()
    assert every_record(svc, arn) == ["old", "new"]
    assert len(svc.streams.describe_stream(A, R, arn)["StreamDescription"]["Shards"]) == 6  # 0-4, 4-8, ... 20-24 h
    clock.now += 2 * HOUR
    svc.streams.trim()
    assert every_record(svc, arn) == ["new"]


def test_a_trimmed_sequence_number_is_refused(world: tuple[DynamoDB, Clock]) -> None:
    svc, clock = world
    arn = table(svc, "t", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    put(svc, "t", "a")
    seq = svc.streams.get_records(A, R, horizon(svc, arn))["Records"][0]["dynamodb"]["SequenceNumber"]
    clock.now += 25 * HOUR
    svc.streams.trim()
    shard = svc.streams.describe_stream(A, R, arn)["StreamDescription"]["Shards"][0]["ShardId"]
    with pytest.raises(ServiceError) as e:
        svc.streams.get_shard_iterator(A, R, arn, shard, "AT_SEQUENCE_NUMBER", seq)
    assert e.value.code == "TrimmedDataAccessException"


def test_iterators_expire_after_15_minutes(world: tuple[DynamoDB, Clock]) -> None:
    svc, clock = world
    arn = table(svc, "i", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    it = horizon(svc, arn)
    clock.now += 14 * 60
    assert svc.streams.get_records(A, R, it)["Records"] == []
    clock.now += 2 * 60
    with pytest.raises(ServiceError) as e:
        svc.streams.get_records(A, R, it)
    assert e.value.code == "ExpiredIteratorException"


def test_an_iterator_of_another_account_is_refused(world: tuple[DynamoDB, Clock]) -> None:
    svc, _ = world
    arn = table(svc, "x", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["LatestStreamArn"]
    with pytest.raises(ServiceError) as e:
        svc.streams.get_records("210987654321", R, horizon(svc, arn))
    assert (e.value.code, e.value.message) == ("ValidationException", "Invalid ShardIterator")


def test_point_in_time_versions_outside_the_window_are_dropped(world: tuple[DynamoDB, Clock]) -> None:
    svc, clock = world
    table(svc, "p")
    put(svc, "p", "a", "1")
    put(svc, "p", "gone", "1")
    svc.continuous_backups(A, R, "p", {"PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 1})
    put(svc, "p", "a", "2")
    svc.delete_item(A, R, {"TableName": "p", "Key": {"id": {"S": "gone"}}})
    clock.now += 30 * HOUR
    put(svc, "p", "a", "3")
    assert svc.backups.trim() == 3  # a's first version (v2 is its last before the window), both of gone's
    at = datetime.fromtimestamp(clock.now - 20 * HOUR, UTC)
    svc.backups.restore_to_time(A, R, {"SourceTableName": "p", "TargetTableName": "p2", "RestoreDateTime": at})
    got = svc.get_item(A, R, {"TableName": "p2", "Key": {"id": {"S": "a"}}})
    assert got["Item"]["v"] == {"N": "2"}
    assert "Item" not in svc.get_item(A, R, {"TableName": "p2", "Key": {"id": {"S": "gone"}}})
    with pytest.raises(ServiceError) as e:
        svc.backups.restore_to_time(A, R, {"SourceTableName": "p", "TargetTableName": "p3",
                                           "RestoreDateTime": datetime.fromtimestamp(clock.now - 25 * HOUR, UTC)})
    assert e.value.code == "InvalidRestoreTimeException"


def test_a_stream_reenabled_in_the_same_millisecond_is_a_new_stream(world: tuple[DynamoDB, Clock]) -> None:
    svc, _ = world
    first = table(svc, "r", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    svc.update_table(A, R, {"TableName": "r", "StreamSpecification": {"StreamEnabled": False}})
    again = svc.update_table(A, R, {"TableName": "r", "StreamSpecification": {"StreamEnabled": True,
                                                                             "StreamViewType": "KEYS_ONLY"}})
    assert again["TableDescription"]["LatestStreamArn"] != first["LatestStreamArn"]
    assert len(svc.streams.list_streams(A, R, "r")["Streams"]) == 2


def test_a_poller_reads_by_sequence_number_without_iterators(world: tuple[DynamoDB, Clock]) -> None:
    svc, clock = world
    arn = table(svc, "q", StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})["LatestStreamArn"]
    put(svc, "q", "before")
    latest = svc.streams.position(A, R, arn, "LATEST")
    put(svc, "q", "after")
    got = svc.streams.records_after(A, R, arn, latest)
    assert [r["dynamodb"]["Keys"]["id"]["S"] for r in got] == ["after"]
    oldest = svc.streams.position(A, R, arn, "TRIM_HORIZON")
    assert len(svc.streams.records_after(A, R, arn, oldest)) == 2
    clock.now += 30 * 60  # no iterator to expire
    assert svc.streams.records_after(A, R, arn, got[0]["dynamodb"]["SequenceNumber"]) == []
