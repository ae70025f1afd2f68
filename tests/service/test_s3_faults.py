"""Fault injection on S3 calls (onceflow.faults): a `before` rule refuses and stores nothing, an
`after` rule lets the write happen and loses its answer."""

from __future__ import annotations

from collections.abc import Iterator

import botocore.config
import pytest
from botocore.exceptions import ClientError
from faults_client import faults, set_rules

from serverproc import ServerProcess

NO_RETRIES = botocore.config.Config(retries={"total_max_attempts": 1, "mode": "standard"})  # one attempt each


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    proc = ServerProcess().start()  # its own server: fault rules are server-wide
    yield proc
    proc.kill()


def test_before_and_after_rules_on_s3(server: ServerProcess) -> None:
    s3 = server.client("s3", config=NO_RETRIES)
    s3.create_bucket(Bucket="faulted")
    set_rules(server.url, [{"service": "s3", "operation": "PutObject", "resource": "arn:aws:s3:::faulted/refused*",
                            "error": {"code": "SlowDown"}},
                           {"service": "s3", "operation": "PutObject", "resource": "arn:aws:s3:::faulted/lost*",
                            "when": "after", "error": {"code": "InternalError"}}])
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket="faulted", Key="refused.txt", Body=b"x" * 100_000)
    assert info.value.response["Error"]["Code"] == "SlowDown"
    assert info.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket="faulted", Key="lost.txt", Body=b"written")
    assert info.value.response["Error"]["Code"] == "InternalError"
    assert s3.get_object(Bucket="faulted", Key="lost.txt")["Body"].read() == b"written"  # the effect stood
    assert [o["Key"] for o in s3.list_objects_v2(Bucket="faulted")["Contents"]] == ["lost.txt"]
    s3.put_object(Bucket="faulted", Key="other.txt", Body=b"fine")  # no rule matches it
    rules = faults(server.url)[1]["rules"]
    assert [(r["matched"], r["fired"]) for r in rules] == [(1, 1), (1, 1)]
