"""The S3 service's Python API (stack.services["s3"]), as other parts of onceflow call it, on an
in-memory stack and on a data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from onceflow import s3
from onceflow.config import Settings
from onceflow.errors import ServiceError
from onceflow.stack import Stack
from onceflow.store.db import Database


@pytest.fixture(params=["memory", "disk"])
def service(request: pytest.FixtureRequest, tmp_path: Path) -> s3.S3Service:
    settings = Settings(in_memory=True) if request.param == "memory" else Settings(data_dir=tmp_path)
    stack = Stack(settings, Database(settings.database_path))
    s3.setup(stack)
    return stack.services["s3"]  # type: ignore[no-any-return]


def test_put_get_list_as_streams(service: s3.S3Service) -> None:
    service.create_bucket("000000000000", "us-east-1", "api-bucket", None, {})
    big = bytes(range(256)) * 4096  # 1 MB: a file on disk
    row = service.put_object("000000000000", "api-bucket", "dir/big", big)
    assert row["size"] == len(big)
    service.put_object("000000000000", "api-bucket", "dir/small", b"tiny")
    facts, pieces = service.get_object("000000000000", "api-bucket", "dir/big")
    assert facts["etag"] == row["etag"] and b"".join(pieces) == big
    objects, prefixes, truncated, _ = service.list_objects("000000000000", "api-bucket", "dir/")
    assert [o["key"] for o in objects] == ["dir/big", "dir/small"] and not prefixes and not truncated
    with pytest.raises(ServiceError) as info:
        service.get_object("000000000000", "api-bucket", "missing")
    assert info.value.code == "NoSuchKey"
    with pytest.raises(ServiceError) as info:
        service.get_object("111111111111", "api-bucket", "dir/big")  # another account's bucket
    assert info.value.code == "AccessDenied"


def test_suspended_versioning_replaces_the_null_version(service: s3.S3Service) -> None:
    account = "000000000000"
    service.create_bucket(account, "us-east-1", "suspended", None, {})
    service.put_object(account, "suspended", "k", b"null-1")
    service.set_versioning(account, "suspended", "Enabled")
    kept = service.put_object(account, "suspended", "k", b"versioned")["version_id"]
    service.set_versioning(account, "suspended", "Suspended")
    service.put_object(account, "suspended", "k", b"null-2")
    assert b"".join(service.get_object(account, "suspended", "k")[1]) == b"null-2"
    assert b"".join(service.get_object(account, "suspended", "k", "null")[1]) == b"null-2"
    assert b"".join(service.get_object(account, "suspended", "k", kept)[1]) == b"versioned"
    marker = service.delete_object(account, "suspended", "k")
    assert marker == {"DeleteMarker": True, "VersionId": "null"}  # the null version became the marker
    with pytest.raises(ServiceError):
        service.get_object(account, "suspended", "k")
    assert b"".join(service.get_object(account, "suspended", "k", kept)[1]) == b"versioned"


def test_the_lifecycle_sweep_comes_back_to_a_bucket_only_when_something_can_be_due(service: s3.S3Service) -> None:
    import time
    from datetime import UTC, datetime

    from onceflow.s3 import lifecycle
    from onceflow.s3.multipart import Multipart

    account = "000000000000"
    rules = {"Rules": [{"ID": "past", "Status": "Enabled", "Filter": {"Prefix": "tmp/"},
                        "Expiration": {"Date": datetime(2020, 1, 1, tzinfo=UTC)}},
                       {"ID": "month", "Status": "Enabled", "Filter": {"Prefix": "keep/"},
                        "Expiration": {"Days": 30}}]}
    service.create_bucket(account, "us-east-1", "swept", None, {"lifecycle": lifecycle.checked(rules)})
    service.put_object(account, "swept", "tmp/a", b"a")
    service.put_object(account, "swept", "keep/b", b"b")
    sweeper = lifecycle.Sweeper(service, Multipart(service))
    now = time.time()
    assert sweeper.run(now) == 1  # tmp/a: its date is long past
    assert sweeper.run(now + 1) == 0
    service.put_object(account, "swept", "tmp/c", b"c")  # a change under a rule that acts at once
    assert sweeper.run(now + 2) == 1
    keys = [o["key"] for o in service.list_objects(account, "swept")[0]]
    assert keys == ["keep/b"]
    assert sweeper.run(now + 45 * 86400) == 1  # 45 days on, past a midnight: keep/b's 30 days are up


def test_a_restored_copy_ends_at_its_expiry_with_an_object_restore_delete_event(service: s3.S3Service) -> None:
    import time
    from typing import Any

    from onceflow.context import RequestContext
    from onceflow.s3 import restore

    recorded: list[tuple[str, str, str]] = []

    class Recorder:  # the Events interface, recording what a write records inside its commit
        def hook(self, ctx: RequestContext, bucket: str, key: str) -> Any:
            return lambda conn, event, obj: recorded.append((event, key, ctx.principal.name))

        def wake(self) -> None:
            pass

    service.events = Recorder()
    account = "000000000000"
    service.create_bucket(account, "us-east-1", "cold", None, {})
    service.put_object(account, "cold", "k", b"frozen", {"StorageClass": "GLACIER"})
    assert service.restore_object(account, "cold", "k", None, {"Days": 1}) == 202
    assert b"".join(service.get_object(account, "cold", "k")[1]) == b"frozen"
    expiry = restore.Expiry(service)
    assert expiry.run(time.time()) == 0  # not yet
    assert expiry.run(time.time() + 3 * 86400) == 1
    with pytest.raises(ServiceError) as info:
        service.get_object(account, "cold", "k")
    assert info.value.code == "InvalidObjectState"
    assert [e for e, _, _ in recorded] == ["ObjectCreated:Put", "ObjectRestore:Post", "ObjectRestore:Completed",
                                         "ObjectRestore:Delete"]
    assert recorded[-1] == ("ObjectRestore:Delete", "k", "s3.amazonaws.com")
