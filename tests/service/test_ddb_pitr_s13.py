"""DynamoDB point-in-time recovery's window as AWS documents it (API_PointInTimeRecoveryDescription:
"LatestRestorableDateTime is typically 5 minutes before the current time"; RestoreTableToPointInTime
refuses a RestoreDateTime outside [EarliestRestorableDateTime, LatestRestorableDateTime] with
InvalidRestoreTimeException), on the session's server (unscaled) and on one whose --time-scale
divides the lag."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

KEYS = {"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}
MESSAGE = ("An invalid restore time was specified. RestoreDateTime must be between EarliestRestorableDateTime and "
           "LatestRestorableDateTime.")


@pytest.fixture(scope="module")
def ddb(aws: Any) -> Any:
    return aws("dynamodb")


def _table(ddb: Any) -> str:
    name = f"pitr-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST", **KEYS)
    ddb.put_item(TableName=name, Item={"id": {"S": "before"}})
    ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    return name


def _window(ddb: Any, name: str) -> tuple[datetime, datetime]:
    pitr = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"][
        "PointInTimeRecoveryDescription"]
    return pitr["EarliestRestorableDateTime"], pitr["LatestRestorableDateTime"]


def _refused(call: Any, **kw: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(**kw)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


def test_latest_restorable_time_does_not_reach_now(ddb: Any) -> None:
    name = _table(ddb)
    ddb.put_item(TableName=name, Item={"id": {"S": "after"}})
    asked = datetime.now(UTC)
    earliest, latest = _window(ddb, name)
    # Enabled moments ago: no moment 5 minutes back is in the window yet, so it is held at the earliest.
    assert latest == earliest and latest < asked
    for when in (asked, asked + timedelta(hours=1), earliest - timedelta(seconds=1)):
        assert _refused(ddb.restore_table_to_point_in_time, SourceTableName=name, TargetTableName=name + "-x",
                        RestoreDateTime=when) == ("InvalidRestoreTimeException", MESSAGE)
    assert name + "-x" not in ddb.list_tables()["TableNames"]  # a refused restore makes no table
    # The latest restorable time is the moment PITR was enabled: the write after it is not restored.
    ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=name + "-l", UseLatestRestorableTime=True)
    got = ddb.scan(TableName=name + "-l", ConsistentRead=True)["Items"]
    assert [i["id"]["S"] for i in got] == ["before"]


def test_the_lag_is_divided_by_the_time_scale(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    ddb = server_factory(tmp_path / "data", time_scale=1000).client("dynamodb")  # 300 s / 1000: 0.3 s behind
    name = _table(ddb)
    time.sleep(1)  # past the scaled lag, so the latest restorable time is no longer the earliest
    before = datetime.now(UTC)
    earliest, latest = _window(ddb, name)
    after = datetime.now(UTC)
    lag = timedelta(seconds=0.3)
    assert earliest < latest and before - lag - timedelta(milliseconds=1) <= latest <= after - lag
    assert _refused(ddb.restore_table_to_point_in_time, SourceTableName=name, TargetTableName=name + "-x",
                    RestoreDateTime=after)[0] == "InvalidRestoreTimeException"
    ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=name + "-y", RestoreDateTime=latest)
    assert [i["id"]["S"] for i in ddb.scan(TableName=name + "-y", ConsistentRead=True)["Items"]] == ["before"]
