"""Which partition a region is in (botocore's partitions.json, read by awsmodels/partitions.py), the
partition a call's context names, and the account root named in any partition's ARN."""

from __future__ import annotations

import pytest

from onceflow.awsmodels.partitions import partition
from onceflow.iam.policy.evaluate import principal_matches


@pytest.mark.parametrize(
    ("region", "expected"),
    [
        ("us-east-1", "aws"),
        ("eu-west-3", "aws"),
        ("mx-central-1", "aws"),
        ("cn-north-1", "aws-cn"),
        ("cn-northwest-1", "aws-cn"),
        ("us-gov-west-1", "aws-us-gov"),
        ("us-iso-east-1", "aws-iso"),
        ("us-isob-east-1", "aws-iso-b"),
        ("eu-isoe-west-1", "aws-iso-e"),
        ("us-isof-south-1", "aws-iso-f"),
        ("eusc-de-east-1", "aws-eusc"),
        ("local", "aws"),
    ],
)
def test_partition_of_a_region(region: str, expected: str) -> None:
    assert partition(region) == expected


@pytest.mark.parametrize("root", ["arn:aws:iam::111122223333:root", "arn:aws-cn:iam::111122223333:root",
                                  "arn:aws-iso-b:iam::111122223333:root", "111122223333"])
def test_the_account_root_in_any_partition_names_its_principals(root: str) -> None:
    who = ("AWS", "arn:aws-cn:iam::111122223333:user/alice")
    assert principal_matches({"AWS": (root,)}, who)


@pytest.mark.parametrize("other", ["arn:aws-cn:iam::444455556666:root", "arn:aws-cn:iam::111122223333:user/bob",
                                   "arn:aws-cn:iam::111122223333:role/x:root"])
def test_another_account_or_principal_does_not(other: str) -> None:
    assert not principal_matches({"AWS": (other,)}, ("AWS", "arn:aws-cn:iam::111122223333:user/alice"))


def test_a_calls_context_names_its_regions_partition() -> None:
    from onceflow.context import Principal, RequestContext

    def ctx(region: str) -> RequestContext:
        return RequestContext("sqs", "CreateQueue", "000000000000", region, Principal.root("000000000000"))

    assert (ctx("cn-north-1").partition, ctx("us-gov-east-1").partition, ctx("us-east-1").partition) == (
        "aws-cn", "aws-us-gov", "aws")
