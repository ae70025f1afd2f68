"""Policy matching that cannot stall: hostile globs in Action, Resource, StringLike and ArnLike get
their answer, and a hostile principal is refused at once."""

from __future__ import annotations

import json

import pytest

from onceflow.iam.policy import Decision, MalformedPolicy, Request, evaluate, parse
from onceflow.iam.policy.matching import action_matches, arn_matches, glob_match

STARS = 60
NAME = "a" * 2000


def policy(statement: dict[str, object]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", **statement}]})


def test_hostile_action_resource_and_condition_globs() -> None:
    near_miss, hit = "a*" * STARS + "b", "a*" * STARS + "a"
    assert action_matches(f"s3:{near_miss}", f"s3:{NAME}") is False
    assert action_matches(f"S3:{hit.upper()}", f"s3:{NAME}") is True  # actions ignore case
    assert arn_matches(f"arn:aws:s3:::{near_miss}", f"arn:aws:s3:::{NAME}") is False
    assert arn_matches(f"arn:aws:s3:::{hit}", f"arn:aws:s3:::{NAME}") is True
    assert arn_matches(f"arn:aws:s3:{near_miss}::x", f"arn:aws:s3:{NAME}::x") is False
    assert arn_matches(f"arn:aws:s3:{hit}::x", f"arn:aws:s3:{NAME}::x") is True
    assert glob_match(near_miss, NAME) is False


@pytest.mark.parametrize(("tail", "expect"), [("b", Decision.IMPLICIT_DENY), ("a", Decision.ALLOW)])
def test_hostile_policy_evaluates(tail: str, expect: Decision) -> None:
    pattern = "a*" * STARS + tail
    doc = parse(policy({"Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{pattern}",
                        "Condition": {"StringLike": {"aws:username": pattern},
                                      "ArnLike": {"aws:sourcearn": f"arn:aws:s3:::{pattern}"}}}))
    context = {"aws:username": [NAME], "aws:sourcearn": [f"arn:aws:s3:::{NAME}"]}
    assert evaluate([doc], Request("s3:GetObject", f"arn:aws:s3:::{NAME}", context)) is expect


def test_principal_with_a_newline_is_refused_at_once() -> None:
    # `assumed-role/.+/.+` retried every `/` before failing at the newline: quadratic in its length.
    principal = "arn:aws:sts::000000000000:assumed-role/" + "a/" * 50_000 + "\n"
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": principal}, "Action": "sts:AssumeRole"}]})
    with pytest.raises(MalformedPolicy) as info:
        parse(trust, "trust")
    assert info.value.message.startswith('Invalid principal in policy: "AWS":')
    fine = trust.replace(json.dumps(principal)[1:-1], "arn:aws:sts::000000000000:assumed-role/r/s")
    assert parse(fine, "trust").statements


@pytest.mark.parametrize(
    ("resource", "key", "allowed"),
    [
        ("arn:aws:s3:::bucket/*", "weird?", True),
        ("arn:aws:s3:::bucket/x", "weird?", False),  # ${*} is a literal star, not a wildcard
        ("arn:aws:s3:::bucket/*", "weirdo", False),  # ${?} is a literal question mark
        ("arn:aws:s3:::bucket/*", "weird!", False),
    ],
)
def test_special_character_variables_are_literal(resource: str, key: str, allowed: bool) -> None:
    # IAM user guide, policy variables: ${*} and ${?} stand for the characters themselves.
    doc = parse(policy({"Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket/${*}",
                        "Condition": {"StringLike": {"s3:prefix": "weird${?}"}}}))
    decision = evaluate([doc], Request("s3:GetObject", resource, {"s3:prefix": [key]}))
    assert decision is (Decision.ALLOW if allowed else Decision.IMPLICIT_DENY)


def test_wildcards_written_plainly_still_match_beside_a_literal_one() -> None:
    doc = parse(policy({"Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/${*}*"}))
    assert evaluate([doc], Request("s3:GetObject", "arn:aws:s3:::b/*tail")) is Decision.ALLOW
    assert evaluate([doc], Request("s3:GetObject", "arn:aws:s3:::b/tail")) is Decision.IMPLICIT_DENY
