"""IAM cases settled for issue 22's undetermined moto lines (bench/moto_issue22.md), against a real
server, each as AWS recorded it (LocalStack's AWS-recorded snapshots, 2026-02) or as AWS documents it."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _error(call: Any, **params: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as e:
        call(**params)
    return dict(e.value.response["Error"])


def test_password_policy_violations_in_iams_order_without_their_values(iam: Any) -> None:
    # Recorded (test_iam_account_password_policy snapshot, validation-errors): IAM lists these three in
    # this order, neither the model's nor botocore's, and leaves their values out.
    err = _error(iam.update_account_password_policy, MaxPasswordAge=1096, MinimumPasswordLength=129,
                 PasswordReusePrevention=25)
    assert err["Code"] == "ValidationError"
    limit = "failed to satisfy constraint: Member must have value less than or equal to"
    assert err["Message"] == (
        f"3 validation errors detected: Value at 'minimumPasswordLength' {limit} 128; "
        f"Value at 'passwordReusePrevention' {limit} 24; Value at 'maxPasswordAge' {limit} 1095")
    # One violation alone keeps the same form; nothing was stored.
    err = _error(iam.update_account_password_policy, MaxPasswordAge=1096)
    assert err["Message"] == ("1 validation error detected: Value at 'maxPasswordAge' failed to satisfy constraint: "
                              "Member must have value less than or equal to 1095")
    assert _error(iam.get_account_password_policy)["Code"] == "NoSuchEntity"


def test_removing_a_missing_user_from_a_missing_group_names_the_user(iam: Any) -> None:
    # Recorded (test_iam_groups snapshot, remove-from-unknown-group): the user is looked up first.
    err = _error(iam.remove_user_from_group, GroupName=f"g{uuid.uuid4().hex[:8]}", UserName="any-user")
    assert err["Code"] == "NoSuchEntity"
    assert err["Message"] == "The user with name any-user cannot be found."


def _document(statement: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": statement})


def test_an_action_without_vendor_and_no_resource_reports_the_missing_resource(iam: Any) -> None:
    # Recorded (test_iam_policies snapshot, invalid-29, the same document as moto's case 29).
    err = _error(iam.create_policy, PolicyName=f"p{uuid.uuid4().hex[:8]}",
                 PolicyDocument=_document({"Effect": "Allow", "Action": "invalid"}))
    assert (err["Code"], err["Message"]) == ("MalformedPolicyDocument", "Policy statement must contain resources.")


def test_a_sid_with_an_underscore_is_refused(iam: Any) -> None:
    # IAM documents the Sid as ASCII letters and digits only; users report the API refusing '_'.
    name = f"p{uuid.uuid4().hex[:8]}"
    err = _error(iam.create_policy, PolicyName=name, PolicyDocument=_document(
        {"Sid": "Null_Condition", "Effect": "Allow", "Action": "kms:CreateGrant", "Resource": "*"}))
    assert err["Code"] == "MalformedPolicyDocument"
    assert err["Message"].startswith("Statement IDs (SID) must be alpha-numeric.")
    assert all(p["PolicyName"] != name for p in iam.list_policies(Scope="Local")["Policies"])


def test_oidc_provider_violations_in_iams_order_without_their_values(iam: Any) -> None:
    # Recorded (test_iam_oidc snapshot, multiple-validation-errors), the same call as moto's test.
    err = _error(iam.create_open_id_connect_provider, Url="b" * 256, ThumbprintList=["b" * 41],
                 ClientIDList=["b" * 256])
    assert err["Code"] == "ValidationError"
    assert err["Message"] == (
        "3 validation errors detected: Value at 'clientIDList' failed to satisfy constraint: Member must satisfy "
        "constraint: [Member must have length less than or equal to 255, Member must have length greater than or "
        "equal to 1]; Value at 'thumbprintList' failed to satisfy constraint: Member must satisfy constraint: "
        "[Member must have length less than or equal to 40, Member must have length greater than or equal to 40]; "
        "Value at 'url' failed to satisfy constraint: Member must have length less than or equal to 255")
    assert all(not p["Arn"].endswith("/" + "b" * 256) for p in iam.list_open_id_connect_providers()[
        "OpenIDConnectProviderList"])
