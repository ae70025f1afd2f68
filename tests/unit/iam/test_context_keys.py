"""The context keys a policy names (GetContextKeysFor*Policy), on the pure policy core."""

from __future__ import annotations

import json
from typing import Any

from onceflow.iam.policy import parse
from onceflow.iam.policy.context_keys import context_keys


def keys(*statements: dict[str, Any], version: str = "2012-10-17") -> list[str]:
    return context_keys([parse(json.dumps({"Version": version, "Statement": list(statements)}))])


def test_variables_then_condition_keys_each_once() -> None:
    resource = "arn:aws:s3:::b/${aws:userid}/${*}/${ aws:username , 'x'}"
    got = keys({"Effect": "Allow", "Action": "s3:*", "Resource": resource,
                "Condition": {"StringEquals": {"aws:UserId": "${aws:PrincipalTag/team}"},
                              "ForAnyValue:StringLikeIfExists": {"aws:TagKeys": ["a*"]}}})
    assert got == ["aws:userid", "aws:username", "aws:PrincipalTag/team", "aws:TagKeys"]


def test_a_2008_policy_has_no_variables() -> None:
    got = keys({"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::b/${aws:userid}",
                "Condition": {"Bool": {"aws:SecureTransport": "true"}}}, version="2008-10-17")
    assert got == ["aws:SecureTransport"]
