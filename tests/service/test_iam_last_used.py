"""When an access key or a role was last used (GetAccessKeyLastUsed, GetRole's RoleLastUsed, the
credential report): kept in memory on the signed path, written out rarely and at shutdown."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from iam_setup import unique

from serverproc import client_factory

ACCT = "000000000000"


def _user_key(iam: Any) -> tuple[str, str, str]:
    name = unique("u")
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return name, key["AccessKeyId"], key["SecretAccessKey"]


def test_a_key_used_with_a_service_names_it_the_date_and_the_region(iam: Any, aws: Callable[..., Any]) -> None:
    name, key_id, secret = _user_key(iam)
    before = datetime.now(UTC).replace(microsecond=0)
    aws("sts", region="eu-west-1", access_key=key_id, secret_key=secret).get_caller_identity()
    used = iam.get_access_key_last_used(AccessKeyId=key_id)
    assert used["UserName"] == name
    last = used["AccessKeyLastUsed"]
    assert (last["ServiceName"], last["Region"]) == ("sts", "eu-west-1")
    assert before <= last["LastUsedDate"] <= datetime.now(UTC) + timedelta(seconds=1)

    aws("stepfunctions", region="us-west-2", access_key=key_id, secret_key=secret).list_state_machines()
    last = iam.get_access_key_last_used(AccessKeyId=key_id)["AccessKeyLastUsed"]
    assert (last["ServiceName"], last["Region"]) == ("states", "us-west-2")  # the service's IAM namespace

    # IAM is served from one region of the partition: AWS names us-east-1 whatever the client's.
    aws("iam", region="eu-west-3", access_key=key_id, secret_key=secret).list_roles(MaxItems=1)
    last = iam.get_access_key_last_used(AccessKeyId=key_id)["AccessKeyLastUsed"]
    assert (last["ServiceName"], last["Region"]) == ("iam", "us-east-1")


def test_a_key_with_a_bad_signature_is_not_used(iam: Any, aws: Callable[..., Any]) -> None:
    _, key_id, _ = _user_key(iam)
    try:
        aws("sts", access_key=key_id, secret_key="not-the-secret").get_caller_identity()
    except Exception:
        pass
    assert iam.get_access_key_last_used(AccessKeyId=key_id)["AccessKeyLastUsed"] == {
        "ServiceName": "N/A", "Region": "N/A"}


def test_the_credential_report_shows_the_last_use(server_factory: Callable[..., Any]) -> None:
    srv = server_factory()  # a server of its own: a report stays four hours once generated
    own = client_factory(srv.url)
    iam = own("iam")
    name, key_id, secret = _user_key(iam)
    own("sqs", region="ap-south-1", access_key=key_id, secret_key=secret).list_queues()
    iam.generate_credential_report()
    rows = list(csv.DictReader(io.StringIO(iam.get_credential_report()["Content"].decode())))
    row = next(r for r in rows if r["user"] == name)
    assert (row["access_key_1_last_used_region"], row["access_key_1_last_used_service"]) == ("ap-south-1", "sqs")
    assert datetime.fromisoformat(row["access_key_1_last_used_date"]) <= datetime.now(UTC)
    assert row["access_key_2_last_used_date"] == "N/A"


def test_a_role_used_by_its_sessions_says_when_and_where(iam: Any, aws: Callable[..., Any]) -> None:
    role = unique("r")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    assert "LastUsedDate" not in iam.get_role(RoleName=role)["Role"]["RoleLastUsed"]
    creds = aws("sts").assume_role(RoleArn=arn, RoleSessionName="s1")["Credentials"]
    aws("sts", region="eu-central-1", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
        session_token=creds["SessionToken"]).get_caller_identity()
    last = iam.get_role(RoleName=role)["Role"]["RoleLastUsed"]
    assert last["Region"] == "eu-central-1" and last["LastUsedDate"] <= datetime.now(UTC)
    # A new role of the same name has not been used.
    iam.delete_role(RoleName=role)
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    assert iam.get_role(RoleName=role)["Role"]["RoleLastUsed"] == {}


def test_last_uses_are_written_at_shutdown(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = server_factory(data)
    aws = client_factory(srv.url)
    _, key_id, secret = _user_key(aws("iam"))
    aws("logs", region="sa-east-1", access_key=key_id, secret_key=secret).describe_log_groups()
    assert srv.stop() == 0

    srv = server_factory(data)
    last = client_factory(srv.url)("iam").get_access_key_last_used(AccessKeyId=key_id)["AccessKeyLastUsed"]
    assert (last["ServiceName"], last["Region"]) == ("logs", "sa-east-1")
