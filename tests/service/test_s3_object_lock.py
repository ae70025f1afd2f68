"""S3 Object Lock through boto3: a bucket created with it (versioning on for good), default
retention applied to new versions, retention and legal hold per version, and the deletes and
changes AWS refuses while a version is locked."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

Aws = Callable[..., Any]


def error(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = info.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def locked_bucket(s3: Any) -> str:
    name = f"lock-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    return name


def test_a_lock_bucket_is_versioned_for_good_and_applies_its_default_retention(aws: Aws) -> None:
    s3 = aws("s3")
    name = locked_bucket(s3)
    assert s3.get_bucket_versioning(Bucket=name)["Status"] == "Enabled"
    assert s3.get_object_lock_configuration(Bucket=name)["ObjectLockConfiguration"] == {"ObjectLockEnabled": "Enabled"}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Suspended"})
    assert error(info) == ("InvalidBucketState", "An Object Lock configuration is present on this bucket, so the "
                                                 "versioning state cannot be changed.", 409)
    config = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}}
    s3.put_object_lock_configuration(Bucket=name, ObjectLockConfiguration=config)
    assert s3.get_object_lock_configuration(Bucket=name)["ObjectLockConfiguration"] == config
    before = datetime.now(UTC).replace(microsecond=0)
    version = s3.put_object(Bucket=name, Key="k", Body=b"kept")["VersionId"]
    head = s3.head_object(Bucket=name, Key="k")
    assert head["ObjectLockMode"] == "GOVERNANCE"
    assert before + timedelta(days=1) - timedelta(seconds=5) <= head["ObjectLockRetainUntilDate"] \
        <= datetime.now(UTC) + timedelta(days=1)
    retention = s3.get_object_retention(Bucket=name, Key="k")["Retention"]
    assert retention == {"Mode": "GOVERNANCE", "RetainUntilDate": head["ObjectLockRetainUntilDate"]}

    # The version is locked: removing it is refused, a delete marker is not; the bypass lets GOVERNANCE go.
    with pytest.raises(ClientError) as info:
        s3.delete_object(Bucket=name, Key="k", VersionId=version)
    assert error(info) == ("AccessDenied", "Access Denied", 403)
    failed = s3.delete_objects(Bucket=name, Delete={"Objects": [{"Key": "k", "VersionId": version}]})
    assert [(e["Key"], e["Code"]) for e in failed["Errors"]] == [("k", "AccessDenied")]
    assert s3.delete_object(Bucket=name, Key="k")["DeleteMarker"] is True
    assert s3.get_object(Bucket=name, Key="k", VersionId=version)["Body"].read() == b"kept"
    with pytest.raises(ClientError) as info:  # shortening a GOVERNANCE retention needs the bypass too
        s3.put_object_retention(Bucket=name, Key="k", VersionId=version, Retention={
            "Mode": "GOVERNANCE", "RetainUntilDate": datetime.now(UTC) + timedelta(hours=1)})
    assert error(info)[0] == "AccessDenied"
    s3.delete_object(Bucket=name, Key="k", VersionId=version, BypassGovernanceRetention=True)
    assert [v["VersionId"] for v in s3.list_object_versions(Bucket=name).get("Versions", [])] == []


def test_compliance_retention_only_lengthens_and_a_legal_hold_blocks_deletes(aws: Aws) -> None:
    s3 = aws("s3")
    name = locked_bucket(s3)
    until = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    version = s3.put_object(Bucket=name, Key="c", Body=b"c", ObjectLockMode="COMPLIANCE",
                            ObjectLockRetainUntilDate=until)["VersionId"]
    assert s3.get_object_retention(Bucket=name, Key="c")["Retention"] == {"Mode": "COMPLIANCE",
                                                                           "RetainUntilDate": until}
    for shorter in ({"Mode": "COMPLIANCE", "RetainUntilDate": until - timedelta(days=1)},
                    {"Mode": "GOVERNANCE", "RetainUntilDate": until + timedelta(days=1)}):
        with pytest.raises(ClientError) as info:
            s3.put_object_retention(Bucket=name, Key="c", Retention=shorter, BypassGovernanceRetention=True)
        assert error(info) == ("AccessDenied", "Access Denied", 403)
    with pytest.raises(ClientError) as info:
        s3.delete_object(Bucket=name, Key="c", VersionId=version, BypassGovernanceRetention=True)
    assert error(info)[0] == "AccessDenied"
    longer = until + timedelta(days=3)
    s3.put_object_retention(Bucket=name, Key="c", Retention={"Mode": "COMPLIANCE", "RetainUntilDate": longer})
    assert s3.head_object(Bucket=name, Key="c")["ObjectLockRetainUntilDate"] == longer

    held = s3.put_object(Bucket=name, Key="h", Body=b"h", ObjectLockLegalHoldStatus="ON")["VersionId"]
    with pytest.raises(ClientError) as info:
        s3.get_object_retention(Bucket=name, Key="h")
    assert error(info) == ("NoSuchObjectLockConfiguration",
                           "The specified object does not have a ObjectLock configuration", 404)
    assert s3.get_object_legal_hold(Bucket=name, Key="h")["LegalHold"] == {"Status": "ON"}
    with pytest.raises(ClientError) as info:
        s3.delete_object(Bucket=name, Key="h", VersionId=held, BypassGovernanceRetention=True)
    assert error(info)[0] == "AccessDenied"
    s3.put_object_legal_hold(Bucket=name, Key="h", LegalHold={"Status": "OFF"})
    assert s3.head_object(Bucket=name, Key="h")["ObjectLockLegalHoldStatus"] == "OFF"
    s3.delete_object(Bucket=name, Key="h", VersionId=held)
    with pytest.raises(ClientError) as info:
        s3.head_object(Bucket=name, Key="h", VersionId=held)
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


def test_lock_requests_a_bucket_without_lock_refuses(aws: Aws) -> None:
    s3 = aws("s3")
    name = f"nolock-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    config = {"ObjectLockEnabled": "Enabled"}
    with pytest.raises(ClientError) as info:
        s3.put_object_lock_configuration(Bucket=name, ObjectLockConfiguration=config)
    assert error(info) == ("InvalidBucketState", "Versioning must be 'Enabled' on the bucket to apply a Object "
                                                 "Lock configuration", 409)
    with pytest.raises(ClientError) as info:
        s3.get_object_lock_configuration(Bucket=name)
    assert error(info) == ("ObjectLockConfigurationNotFoundError",
                           "Object Lock configuration does not exist for this bucket", 404)
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=name, Key="k", Body=b"x", ObjectLockLegalHoldStatus="ON")
    assert error(info) == ("InvalidRequest", "Bucket is missing Object Lock Configuration", 400)
    assert "Contents" not in s3.list_objects_v2(Bucket=name)
    s3.put_object(Bucket=name, Key="k", Body=b"x")
    with pytest.raises(ClientError) as info:
        s3.get_object_retention(Bucket=name, Key="k")
    assert error(info) == ("InvalidRequest", "Bucket is missing Object Lock Configuration", 400)
    # Versioning on, then Object Lock on an existing bucket (allowed since 2023); bad rules refused.
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    for rule in ({"Mode": "GOVERNANCE", "Days": 1, "Years": 1}, {"Mode": "GOVERNANCE", "Days": 0}):
        with pytest.raises(ClientError) as info:
            s3.put_object_lock_configuration(Bucket=name, ObjectLockConfiguration={
                **config, "Rule": {"DefaultRetention": rule}})
        assert error(info)[0] in ("MalformedXML", "InvalidArgument")
    s3.put_object_lock_configuration(Bucket=name, ObjectLockConfiguration=config)
    with pytest.raises(ClientError) as info:  # a date in the past
        s3.put_object(Bucket=name, Key="p", Body=b"x", ObjectLockMode="GOVERNANCE",
                      ObjectLockRetainUntilDate=datetime.now(UTC) - timedelta(days=1))
    assert error(info) == ("InvalidArgument", "The retain until date must be in the future!", 400)
