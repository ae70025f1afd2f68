"""ARNs name the partition of the caller's region (issue 22): aws-cn for cn-*, aws-us-gov for
us-gov-*, aws-iso-b for us-isob-* (botocore's partitions.json), aws elsewhere; IAM and STS build
every ARN with it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest

ACCOUNT = "000000000000"


@pytest.mark.parametrize(
    ("region", "partition"),
    [("cn-north-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov"), ("us-isob-east-1", "aws-iso-b")],
)
def test_arns_name_the_regions_partition(aws: Callable[..., Any], region: str, partition: str) -> None:
    iam, sts = aws("iam", region=region), aws("sts", region=region)
    suffix = uuid.uuid4().hex[:10]
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:{partition}:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=f"r-{suffix}", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    assert role["Arn"] == f"arn:{partition}:iam::{ACCOUNT}:role/r-{suffix}"
    assert iam.create_user(UserName=f"u-{suffix}")["User"]["Arn"] == f"arn:{partition}:iam::{ACCOUNT}:user/u-{suffix}"
    assert iam.create_group(GroupName=f"g-{suffix}")["Group"]["Arn"] == (
        f"arn:{partition}:iam::{ACCOUNT}:group/g-{suffix}")
    doc = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    policy = iam.create_policy(PolicyName=f"p-{suffix}", PolicyDocument=doc)["Policy"]["Arn"]
    assert policy == f"arn:{partition}:iam::{ACCOUNT}:policy/p-{suffix}"
    iam.attach_role_policy(RoleName=f"r-{suffix}", PolicyArn=policy)
    admin = f"arn:{partition}:iam::aws:policy/AdministratorAccess"
    iam.attach_role_policy(RoleName=f"r-{suffix}", PolicyArn=admin)
    attached = iam.list_attached_role_policies(RoleName=f"r-{suffix}")["AttachedPolicies"]
    assert sorted(a["PolicyArn"] for a in attached) == sorted([policy, admin])
    listed = iam.list_policies(Scope="AWS", OnlyAttached=True)["Policies"]
    assert admin in [p["Arn"] for p in listed]
    assert {p["Arn"].split(":")[1] for p in iam.list_policies(Scope="AWS")["Policies"]} == {partition}

    session = sts.assume_role(RoleArn=role["Arn"], RoleSessionName="s1")["AssumedRoleUser"]
    assert session["Arn"] == f"arn:{partition}:sts::{ACCOUNT}:assumed-role/r-{suffix}/s1"
    assert sts.get_caller_identity()["Arn"] == f"arn:{partition}:iam::{ACCOUNT}:root"
    assert aws("sts").get_caller_identity()["Arn"] == f"arn:aws:iam::{ACCOUNT}:root"
