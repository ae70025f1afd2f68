"""Differences from AWS found by running moto 5.2.1's own IAM suite against onceflow in session 13
(bench/moto_issue22.md), each fixed to what AWS recorded; against a real server."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import unique

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
TAGS = [{"Key": "somekey", "Value": "somevalue"}, {"Key": "someotherkey", "Value": "someothervalue"}]


def role_details(iam: Any, name: str) -> dict[str, Any]:
    pages = iam.get_paginator("get_account_authorization_details").paginate(Filter=["Role"])
    return next(r for page in pages for r in page["RoleDetailList"] if r["RoleName"] == name)


def test_authorization_details_lists_a_profiles_roles_without_their_tags(iam: Any) -> None:
    # AWS's recorded answer (LocalStack's test_iam_account_authorization_details snapshot,
    # filter_role, 2026-02, the calls of moto's test_get_account_authorization_details): a role with
    # a Description, tagged with TagRole, in an instance profile. RoleDetailList carries the tags; the
    # profile's Roles hold only Path, RoleName, RoleId, Arn, CreateDate and AssumeRolePolicyDocument.
    role, profile = unique("moto-role"), unique("moto-ip")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST, Path="/my-path/", Description="testing role")
    iam.tag_role(RoleName=role, Tags=TAGS)
    iam.create_instance_profile(InstanceProfileName=profile)
    iam.add_role_to_instance_profile(InstanceProfileName=profile, RoleName=role)
    try:
        detail = role_details(iam, role)
        assert detail["Tags"] == TAGS
        [held] = detail["InstanceProfileList"][0]["Roles"]
        assert set(held) == {"Path", "RoleName", "RoleId", "Arn", "CreateDate", "AssumeRolePolicyDocument"}
        assert held["AssumeRolePolicyDocument"] == json.loads(TRUST)
    finally:
        iam.remove_role_from_instance_profile(InstanceProfileName=profile, RoleName=role)
        iam.delete_instance_profile(InstanceProfileName=profile)
        iam.delete_role(RoleName=role)


def test_credential_report_says_no_information_for_a_password_never_used(server_factory: Callable[..., Any]) -> None:
    # moto's test_get_credential_report_content (server mode) wants no_information for a user whose
    # password was never used; so do tools reading AWS's reports (password_enabled true with
    # password_last_used no_information: "never signed in"); a user without a password has N/A.
    iam = server_factory().client("iam")  # a server of its own: the report is kept for four hours
    with_password, without = unique("moto-pw"), unique("moto-nopw")
    iam.create_user(UserName=with_password)
    iam.create_login_profile(UserName=with_password, Password="Aa1!moto-pass")
    iam.create_user(UserName=without)
    while iam.generate_credential_report()["State"] != "COMPLETE":
        pass
    rows = {r["user"]: r for r in csv.DictReader(io.StringIO(iam.get_credential_report()["Content"].decode()))}
    assert (rows[with_password]["password_enabled"], rows[with_password]["password_last_used"]) == (
        "true", "no_information")
    assert (rows[without]["password_enabled"], rows[without]["password_last_used"]) == ("false", "N/A")


def test_aws_managed_policies_carry_their_own_creation_times(iam: Any) -> None:
    # AWS Managed Policy Reference, "Creation time" of each (one version each, edited when created);
    # moto's test_get_aws_managed_policy_version (skipped in server mode) records AWSLambdaBasicExecutionRole's
    # v1 as 2015-04-09T15:03:43Z. onceflow gave every AWS managed policy AdministratorAccess's date.
    def created(name: str) -> tuple[str, str]:
        arn = f"arn:aws:iam::aws:policy/service-role/{name}"
        policy = iam.get_policy(PolicyArn=arn)["Policy"]
        version = iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]
        assert policy["UpdateDate"] == policy["CreateDate"] == version["CreateDate"]
        return policy["CreateDate"].strftime("%Y-%m-%d %H:%M"), version["CreateDate"].strftime("%S")

    assert created("AWSLambdaBasicExecutionRole") == ("2015-04-09 15:03", "43")
    assert created("AWSLambdaRole")[0] == "2015-02-06 18:41"
    assert created("AWSLambdaDynamoDBExecutionRole")[0] == "2015-04-09 15:09"
    admin = iam.get_policy(PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")["Policy"]
    assert admin["CreateDate"].strftime("%Y-%m-%d %H:%M:%S") == "2015-02-06 18:39:46"


def test_iam_user_change_password_lets_a_user_change_only_its_own_password(
        server_factory: Callable[..., Any]) -> None:
    # moto's test_get_aws_managed_policy (skipped in server mode) reads IAMUserChangePassword; the AWS
    # Managed Policy Reference gives it: created 2016-11-15 00:25, edited 2025-05-29 21:52, v3 default,
    # iam:ChangePassword on the caller's own user and iam:GetAccountPasswordPolicy. onceflow had none.
    server = server_factory(extra_args=("--enforce-iam",))
    iam = server.client("iam")
    arn = "arn:aws:iam::aws:policy/IAMUserChangePassword"
    policy = iam.get_policy(PolicyArn=arn)["Policy"]
    assert (policy["Path"], policy["DefaultVersionId"]) == ("/", "v3")
    assert policy["CreateDate"].strftime("%Y-%m-%d %H:%M:%S") == "2016-11-15 00:25:16"
    assert policy["UpdateDate"].strftime("%Y-%m-%d %H:%M") == "2025-05-29 21:52"
    version = iam.get_policy_version(PolicyArn=arn, VersionId="v3")["PolicyVersion"]
    assert version["IsDefaultVersion"] and version["CreateDate"] == policy["UpdateDate"]
    assert [s["Action"] for s in version["Document"]["Statement"]] == [
        ["iam:ChangePassword"], ["iam:GetAccountPasswordPolicy"]]

    for name in ("user", "other"):
        iam.create_user(UserName=name)
        iam.create_login_profile(UserName=name, Password="Aa1!first-pass")
    iam.attach_user_policy(UserName="user", PolicyArn=arn)
    key = iam.create_access_key(UserName="user")["AccessKey"]
    own = server.client("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    own.change_password(OldPassword="Aa1!first-pass", NewPassword="Aa1!second-pass")
    with pytest.raises(ClientError) as exc:  # no account policy: NoSuchEntity, past the authorizer
        own.get_account_password_policy()
    assert exc.value.response["Error"]["Code"] == "NoSuchEntity"
    with pytest.raises(ClientError) as exc:  # nothing else: the policy grants no other action
        own.update_login_profile(UserName="other", Password="Aa1!third-pass")
    assert exc.value.response["Error"]["Code"] == "AccessDenied"
