"""Trust policies (who may assume a role) and the wildcard matchers."""

from __future__ import annotations

import json

import pytest

from onceflow.iam.policy import Decision, Request, evaluate, parse
from onceflow.iam.policy.matching import action_matches, arn_matches

IAM = "arn:aws:iam::000000000000:"
FN = "arn:aws:lambda:us-east-1:000000000000:function:"
# The seed's workflow-trust.json, byte for byte.
SEED_TRUST = """{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Principal": {
        "Service": "states.amazonaws.com"
      },
      "Action": "sts:AssumeRole"
    }
  ]
}
"""


def trust(principal: object, **extra: object) -> str:
    stmt = {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole", **extra}
    return json.dumps({"Version": "2012-10-17", "Statement": [stmt]})


@pytest.mark.parametrize(
    ("document", "who", "expect"),
    [
        (SEED_TRUST, ("Service", "states.amazonaws.com"), Decision.ALLOW),
        (SEED_TRUST, ("Service", "states.us-east-1.amazonaws.com"), Decision.ALLOW),
        (SEED_TRUST, ("Service", "lambda.amazonaws.com"), Decision.IMPLICIT_DENY),
        (SEED_TRUST, ("AWS", IAM + "root"), Decision.IMPLICIT_DENY),
        (trust({"AWS": "000000000000"}), ("AWS", IAM + "user/alice"), Decision.ALLOW),
        (
            trust({"AWS": IAM + "root"}),
            ("AWS", IAM + "role/r"),
            Decision.ALLOW,
        ),
        (
            trust({"AWS": "arn:aws:iam::111111111111:root"}),
            ("AWS", IAM + "root"),
            Decision.IMPLICIT_DENY,
        ),
        (
            trust({"AWS": IAM + "user/bob"}),
            ("AWS", IAM + "user/alice"),
            Decision.IMPLICIT_DENY,
        ),
        (trust("*"), ("Service", "anything.amazonaws.com"), Decision.ALLOW),
        (
            trust({"Service": ["lambda.amazonaws.com", "states.amazonaws.com"]}),
            ("Service", "lambda.amazonaws.com"),
            Decision.ALLOW,
        ),
    ],
)
def test_trust_policy_principals(document: str, who: tuple[str, str], expect: Decision) -> None:
    assert evaluate([parse(document, "trust")], Request("sts:AssumeRole", principal=who)) is expect


def test_trust_policy_action_must_match() -> None:
    request = Request("sts:AssumeRoleWithSAML", principal=("Service", "states.amazonaws.com"))
    assert evaluate([parse(SEED_TRUST, "trust")], request) is Decision.IMPLICIT_DENY


def test_trust_policy_deny_statement_wins() -> None:
    doc = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": "*", "Action": "sts:AssumeRole"},
                {"Effect": "Deny", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:*"},
            ],
        }
    )
    lam = Request("sts:AssumeRole", principal=("Service", "lambda.amazonaws.com"))
    states = Request("sts:AssumeRole", principal=("Service", "states.amazonaws.com"))
    assert evaluate([parse(doc, "trust")], lam) is Decision.EXPLICIT_DENY
    assert evaluate([parse(doc, "trust")], states) is Decision.ALLOW


@pytest.mark.parametrize(
    ("pattern", "action", "expect"),
    [
        ("*", "anything:AtAll", True),
        ("lambda:InvokeFunction", "Lambda:invokefunction", True),
        ("lambda:Invoke*", "lambda:InvokeAsync", True),
        ("lambda:Invoke*", "lambda:GetFunction", False),
        ("lambda:?nvokeFunction", "lambda:InvokeFunction", True),
        ("lambda:InvokeFunction", "lambda:InvokeFunctionUrl", False),
    ],
)
def test_action_matching(pattern: str, action: str, expect: bool) -> None:
    assert action_matches(pattern, action) is expect


@pytest.mark.parametrize(
    ("pattern", "arn", "expect"),
    [
        ("*", "arn:aws:s3:::b", True),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::b/x/y", True),
        ("arn:aws:s3:::b/*", "arn:aws:s3:::B/x", False),
        ("arn:aws:dynamodb:*:*:table/t", "arn:aws:dynamodb:us-east-1:000000000000:table/t", True),
        ("arn:aws:dynamodb:*:*:table/t", "arn:aws:dynamodb:us-east-1:000000000000:table/t/index/i", False),
        (
            FN + "*",
            FN + "f:1",
            True,
        ),
        (
            "arn:aws:lambda:us-east-?:000000000000:function:f",
            FN + "f",
            True,
        ),
        (
            "arn:aws:lambda:us-east-?:000000000000:function:f",
            "arn:aws:lambda:us-east-12:000000000000:function:f",
            False,
        ),
        ("arn:aws:logs:*", "arn:aws:logs:us-east-1:000000000000:log-group:g", True),
    ],
)
def test_arn_matching(pattern: str, arn: str, expect: bool) -> None:
    assert arn_matches(pattern, arn) is expect
