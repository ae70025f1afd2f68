"""Accounts and regions at the wire, against the real server: a 12-digit access key selects that
account, the signature scope picks the region, and neither sees the other's resources."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any


def _groups(client: Any, prefix: str) -> list[str]:
    return [g["logGroupName"] for g in client.describe_log_groups(logGroupNamePrefix=prefix)["logGroups"]]


def test_twelve_digit_access_key_is_the_account(aws: Callable[..., Any]) -> None:
    assert aws("sts", access_key="123456789012").get_caller_identity()["Account"] == "123456789012"
    assert aws("sts").get_caller_identity()["Account"] == "000000000000"


def test_accounts_are_isolated(aws: Callable[..., Any]) -> None:
    name = f"/iso/{uuid.uuid4().hex}"
    aws("logs", access_key="111111111111").create_log_group(logGroupName=name)
    assert _groups(aws("logs", access_key="111111111111"), name) == [name]
    assert _groups(aws("logs", access_key="222222222222"), name) == []
    assert _groups(aws("logs"), name) == []


def test_regions_are_isolated(aws: Callable[..., Any]) -> None:
    name = f"/iso/{uuid.uuid4().hex}"
    aws("logs", region="eu-west-1").create_log_group(logGroupName=name)
    assert _groups(aws("logs", region="eu-west-1"), name) == [name]
    assert _groups(aws("logs", region="us-east-1"), name) == []


def test_iam_is_global_within_an_account_but_not_across_accounts(aws: Callable[..., Any]) -> None:
    name = f"iso-{uuid.uuid4().hex[:12]}"
    trust = ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"lambda.amazonaws.com"},'
             '"Action":"sts:AssumeRole"}]}')
    arn = aws("iam", region="eu-west-1", access_key="333333333333").create_role(
        RoleName=name, AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    assert arn == f"arn:aws:iam::333333333333:role/{name}"
    assert aws("iam", region="us-west-2", access_key="333333333333").get_role(RoleName=name)["Role"]["Arn"] == arn
    other = aws("iam", access_key="444444444444")
    try:
        other.get_role(RoleName=name)
    except other.exceptions.NoSuchEntityException as exc:
        assert exc.response["Error"]["Code"] == "NoSuchEntity"
    else:
        raise AssertionError("another account saw the role")
