"""iam/resource_access.py: may a service principal, or another account's principal, act on a
resource through its policy (IAM's evaluator, failing closed)."""

from __future__ import annotations

import json

import pytest

from onceflow.iam.resource_access import principal_may, service_may

QUEUE = "arn:aws:sqs:us-east-1:000000000000:q"
BUCKET = "arn:aws:s3:::photos"


def policy(*statements: dict[str, object]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


S3_FROM_PHOTOS = {"Effect": "Allow", "Principal": {"Service": "s3.amazonaws.com"}, "Action": "SQS:SendMessage",
                  "Resource": QUEUE, "Condition": {"ArnLike": {"aws:SourceArn": BUCKET},
                                                   "StringEquals": {"aws:SourceAccount": "000000000000"}}}


@pytest.mark.parametrize(("text", "service", "source", "account", "allowed"), [
    (policy(S3_FROM_PHOTOS), "s3.amazonaws.com", BUCKET, "000000000000", True),
    (policy(S3_FROM_PHOTOS), "s3.amazonaws.com", "arn:aws:s3:::other", "000000000000", False),
    (policy(S3_FROM_PHOTOS), "s3.amazonaws.com", BUCKET, "111111111111", False),
    (policy(S3_FROM_PHOTOS), "sns.amazonaws.com", BUCKET, "000000000000", False),
    (policy(S3_FROM_PHOTOS, {**S3_FROM_PHOTOS, "Effect": "Deny", "Condition": {}}), "s3.amazonaws.com", BUCKET,
     "000000000000", False),
    (policy({"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sqs:*", "Resource": QUEUE}),
     "s3.amazonaws.com", BUCKET, "000000000000", False),  # "AWS": "*" does not name a service
    (None, "s3.amazonaws.com", BUCKET, "000000000000", False),
    ("not json", "s3.amazonaws.com", BUCKET, "000000000000", False),
])
def test_a_service_gets_in_only_when_the_policy_names_it_and_its_conditions_hold(
        text: str | None, service: str, source: str, account: str, allowed: bool) -> None:
    assert service_may(text, service, "sqs:SendMessage", QUEUE, source, account) is allowed


def test_another_accounts_principal_needs_a_grant_for_the_action() -> None:
    text = policy({"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111111111111:root"},
                   "Action": "SQS:SendMessage", "Resource": QUEUE})
    assert principal_may(text, "arn:aws:iam::111111111111:root", "sqs:SendMessage", QUEUE)
    assert principal_may(text, "arn:aws:iam::111111111111:user/ann", "sqs:SendMessage", QUEUE)  # the account's root
    assert not principal_may(text, "arn:aws:iam::111111111111:root", "sqs:ReceiveMessage", QUEUE)
    assert not principal_may(text, "arn:aws:iam::222222222222:root", "sqs:SendMessage", QUEUE)
