"""Policy documents checked as IAM checks them, through the API (issue 22): the version managed
policies need, the first failing stage's message, and nothing stored when a document is refused.
The full table of documents is tests/unit/iam/cases/documents.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import unique

STATEMENT = {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::example_bucket"}
OLD_VERSION = "Policy document must be version 2012-10-17 or greater."
TRUST = {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        call(**params)
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"Statement": STATEMENT}, OLD_VERSION),
        ({"Version": "2008-10-17", "Statement": STATEMENT}, OLD_VERSION),
        ({"Version": "2013-10-17", "Statement": STATEMENT}, "Syntax errors in policy."),
        ({"Version": "2012-10-17", "Statement": {**STATEMENT, "Effect": "denY"}}, "The policy failed legacy parsing"),
        ({"Version": "2012-10-17", "Statement": {**STATEMENT, "Action": "a a:ListBucket"}}, "Vendor a a is not valid"),
        ({"Version": "2012-10-17", "Statement": {**STATEMENT, "Resource": "aws:s3:::example_bucket"}},
         'Partition "s3" is not valid for resource "arn:s3:::example_bucket:*".'),
        ({"Version": "2012-10-17", "Statement": {**STATEMENT, "Condition": {"x": {"a": "1"}}}},
         "Syntax errors in policy."),
    ],
)
def test_create_policy_refuses_what_iam_refuses_and_stores_nothing(iam: Any, document: dict, message: str) -> None:
    name = unique("doc")
    assert refused(iam.create_policy, PolicyName=name, PolicyDocument=json.dumps(document)) == (
        "MalformedPolicyDocument", message, 400)
    assert name not in [p["PolicyName"] for p in iam.list_policies(Scope="Local")["Policies"]]


def test_managed_policy_versions_need_2012_10_17_too(iam: Any) -> None:
    doc = {"Version": "2012-10-17", "Statement": STATEMENT}
    arn = iam.create_policy(PolicyName=unique("doc"), PolicyDocument=json.dumps(doc))["Policy"]["Arn"]
    old = json.dumps({"Version": "2008-10-17", "Statement": STATEMENT})
    assert refused(iam.create_policy_version, PolicyArn=arn, PolicyDocument=old) == (
        "MalformedPolicyDocument", OLD_VERSION, 400)
    assert [v["VersionId"] for v in iam.list_policy_versions(PolicyArn=arn)["Versions"]] == ["v1"]


@pytest.mark.parametrize(
    "statement",
    [
        {**STATEMENT, "Resource": "arn:aws:fdsasf"},
        {**STATEMENT, "Action": "iam: asdf safdsf af "},
        {**STATEMENT, "Condition": {"DateGreaterThan": {}}},
        {**STATEMENT, "Condition": {"x": {}, "y": {}}},
        {**STATEMENT, "Condition": {"DateLessThanEquals": {"a": "2016-12-13t2:00:00.593194+23"}}},
        {**STATEMENT, "Resource": "arn:aws:invalid-service:us-east-1::example_bucket"},
    ],
)
def test_create_policy_accepts_what_iam_accepts(iam: Any, statement: dict) -> None:
    doc = json.dumps({"Version": "2012-10-17", "Statement": statement})
    arn = iam.create_policy(PolicyName=unique("doc"), PolicyDocument=doc)["Policy"]["Arn"]
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]["Document"] == json.loads(doc)


def test_inline_policies_and_trust_policies_keep_the_older_version(iam: Any) -> None:
    # Only managed policies must be 2012-10-17: an inline policy without Version and a trust
    # policy of 2008-10-17 are stored (a missing Version means 2008-10-17).
    role = unique("role")
    trust = json.dumps({"Version": "2008-10-17", "Statement": [TRUST]})
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust)
    iam.put_role_policy(RoleName=role, PolicyName="old", PolicyDocument=json.dumps({"Statement": STATEMENT}))
    assert iam.get_role_policy(RoleName=role, PolicyName="old")["PolicyDocument"] == {"Statement": STATEMENT}


def test_trust_policies_refuse_resources_and_keep_the_old_document(iam: Any) -> None:
    role = unique("role")
    trust = {"Version": "2012-10-17", "Statement": [TRUST]}
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    bad = {"Version": "2012-10-17", "Statement": [{**TRUST, "Resource": "*"}]}
    assert refused(iam.update_assume_role_policy, RoleName=role, PolicyDocument=json.dumps(bad)) == (
        "MalformedPolicyDocument", "Has prohibited field Resource", 400)
    assert iam.get_role(RoleName=role)["Role"]["AssumeRolePolicyDocument"] == trust
    assert refused(iam.create_role, RoleName=unique("role"), AssumeRolePolicyDocument=json.dumps(bad))[1] == (
        "Has prohibited field Resource")
