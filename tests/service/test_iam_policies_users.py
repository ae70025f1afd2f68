"""Managed policies (customer and AWS managed), attachments, users, access keys, user policies."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import error, unique

TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
DOC = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": "*"}]}
)
BASIC = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
ADMIN = "arn:aws:iam::aws:policy/AdministratorAccess"


def test_customer_managed_policy_lifecycle(iam: Any) -> None:
    name = unique("pol")
    policy = iam.create_policy(PolicyName=name, PolicyDocument=DOC, Description="reads")["Policy"]
    arn = policy["Arn"]
    assert arn == f"arn:aws:iam::000000000000:policy/{name}"
    assert policy["DefaultVersionId"] == "v1" and policy["AttachmentCount"] == 0 and policy["IsAttachable"]
    assert policy["PolicyId"].startswith("ANPA")
    got = iam.get_policy(PolicyArn=arn)["Policy"]
    assert got["Description"] == "reads"
    version = iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]
    assert version["Document"] == json.loads(DOC) and version["IsDefaultVersion"] is True
    assert arn in [p["Arn"] for p in iam.list_policies(Scope="Local")["Policies"]]
    with pytest.raises(ClientError) as exc:
        iam.create_policy(PolicyName=name.upper(), PolicyDocument=DOC)
    assert error(exc) == (
        "EntityAlreadyExists",
        f"A policy called {name.upper()} already exists. Duplicate names are not allowed.",
        409,
    )
    iam.delete_policy(PolicyArn=arn)
    with pytest.raises(ClientError) as exc:
        iam.get_policy(PolicyArn=arn)
    assert error(exc) == ("NoSuchEntity", f"Policy {arn} was not found.", 404)


def test_aws_managed_policies_exist(iam: Any) -> None:
    basic = iam.get_policy(PolicyArn=BASIC)["Policy"]
    assert basic["PolicyName"] == "AWSLambdaBasicExecutionRole" and basic["Path"] == "/service-role/"
    doc = iam.get_policy_version(PolicyArn=BASIC, VersionId=basic["DefaultVersionId"])["PolicyVersion"]["Document"]
    assert doc["Statement"][0]["Action"] == ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"]
    assert iam.get_policy(PolicyArn=ADMIN)["Policy"]["PolicyName"] == "AdministratorAccess"
    aws_arns = [p["Arn"] for p in iam.list_policies(Scope="AWS")["Policies"]]
    assert BASIC in aws_arns and ADMIN in aws_arns


def test_attach_detach_and_delete_conflicts(iam: Any) -> None:
    role = unique("role")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    arn = iam.create_policy(PolicyName=unique("pol"), PolicyDocument=DOC)["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=role, PolicyArn=BASIC)
    iam.attach_role_policy(RoleName=role, PolicyArn=arn)
    attached = iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"]
    assert {a["PolicyArn"] for a in attached} == {BASIC, arn}
    assert {a["PolicyName"] for a in attached} >= {"AWSLambdaBasicExecutionRole"}
    assert iam.get_policy(PolicyArn=arn)["Policy"]["AttachmentCount"] == 1
    with pytest.raises(ClientError) as exc:
        iam.delete_policy(PolicyArn=arn)
    assert error(exc) == ("DeleteConflict", "Cannot delete a policy attached to entities.", 409)
    with pytest.raises(ClientError) as exc:
        iam.delete_role(RoleName=role)
    assert error(exc) == ("DeleteConflict", "Cannot delete entity, must detach all policies first.", 409)
    iam.detach_role_policy(RoleName=role, PolicyArn=arn)
    iam.detach_role_policy(RoleName=role, PolicyArn=BASIC)
    with pytest.raises(ClientError) as exc:
        iam.detach_role_policy(RoleName=role, PolicyArn=BASIC)
    assert error(exc) == ("NoSuchEntity", f"Policy {BASIC} was not found.", 404)
    iam.delete_role(RoleName=role)
    iam.delete_policy(PolicyArn=arn)


def test_attach_missing_policy_and_bad_arn(iam: Any) -> None:
    role = unique("role")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    missing = "arn:aws:iam::000000000000:policy/does-not-exist"
    with pytest.raises(ClientError) as exc:
        iam.attach_role_policy(RoleName=role, PolicyArn=missing)
    assert error(exc) == ("NoSuchEntity", f"Policy {missing} does not exist or is not attachable.", 404)
    with pytest.raises(ClientError) as exc:
        iam.get_policy(PolicyArn="not-an-arn-at-all-xyz")
    assert error(exc) == ("InvalidInput", "ARN not-an-arn-at-all-xyz is not valid.", 400)
    # Attaching by a name instead of an ARN is a ValidationError (AWS's recorded answer).
    with pytest.raises(ClientError) as exc:
        iam.attach_role_policy(RoleName=role, PolicyArn="longpolicynamebutnoarn")
    assert error(exc) == ("ValidationError", "ARN longpolicynamebutnoarn is not valid.", 400)
    assert iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"] == []


def test_users_keys_and_user_policies(iam: Any) -> None:
    name = unique("user")
    user = iam.create_user(UserName=name)["User"]
    assert user["Arn"] == f"arn:aws:iam::000000000000:user/{name}" and user["UserId"].startswith("AIDA")
    assert iam.get_user(UserName=name)["User"]["UserId"] == user["UserId"]
    with pytest.raises(ClientError) as exc:
        iam.create_user(UserName=name)
    assert error(exc) == ("EntityAlreadyExists", f"User with name {name} already exists.", 409)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    assert key["AccessKeyId"].startswith("AKIA") and len(key["AccessKeyId"]) == 20
    assert len(key["SecretAccessKey"]) == 40 and key["Status"] == "Active"
    listed = iam.list_access_keys(UserName=name)["AccessKeyMetadata"]
    assert [k["AccessKeyId"] for k in listed] == [key["AccessKeyId"]]
    iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=DOC)
    assert iam.get_user_policy(UserName=name, PolicyName="p")["PolicyDocument"] == json.loads(DOC)
    assert iam.list_user_policies(UserName=name)["PolicyNames"] == ["p"]
    with pytest.raises(ClientError) as exc:
        iam.delete_user(UserName=name)
    assert error(exc) == ("DeleteConflict", "Cannot delete entity, must delete policies first.", 409)
    iam.delete_user_policy(UserName=name, PolicyName="p")
    with pytest.raises(ClientError) as exc:
        iam.delete_user(UserName=name)
    assert error(exc) == ("DeleteConflict", "Cannot delete entity, must delete access keys first.", 409)
    iam.delete_access_key(UserName=name, AccessKeyId=key["AccessKeyId"])
    with pytest.raises(ClientError) as exc:
        iam.delete_access_key(UserName=name, AccessKeyId=key["AccessKeyId"])
    assert error(exc) == ("NoSuchEntity", f"The Access Key with id {key['AccessKeyId']} cannot be found.", 404)
    iam.delete_user(UserName=name)
    with pytest.raises(ClientError) as exc:
        iam.get_user(UserName=name)
    assert error(exc) == ("NoSuchEntity", f"The user with name {name} cannot be found.", 404)


def test_user_access_keys_are_limited_to_two(iam: Any) -> None:
    name = unique("user")
    iam.create_user(UserName=name)
    iam.create_access_key(UserName=name)
    iam.create_access_key(UserName=name)
    with pytest.raises(ClientError) as exc:
        iam.create_access_key(UserName=name)
    assert error(exc) == ("LimitExceeded", "Cannot exceed quota for AccessKeysPerUser: 2", 409)
    assert len(iam.list_access_keys(UserName=name)["AccessKeyMetadata"]) == 2


def test_user_access_key_acts_as_the_user(aws: Callable[..., Any], iam: Any) -> None:
    name = unique("user")
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    sts = aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    ident = sts.get_caller_identity()
    assert ident["Arn"] == f"arn:aws:iam::000000000000:user/{name}"
    assert ident["UserId"] == iam.get_user(UserName=name)["User"]["UserId"]
    as_user = aws("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    assert as_user.get_user()["User"]["UserName"] == name  # no UserName: the caller
    # Without --enforce-iam a user's calls are not evaluated.
    assert as_user.list_roles()["Roles"] is not None


def test_policy_versions_and_the_default_the_authorizer_uses(aws: Callable[..., Any], iam: Any) -> None:
    role = unique("role")
    trust_any = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"AWS": "000000000000"}, "Action": "sts:AssumeRole"}],
        }
    )
    role_arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust_any)["Role"]["Arn"]
    s3_only = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
    )
    allow_get = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:GetRole", "Resource": role_arn}]}
    )
    arn = iam.create_policy(PolicyName=unique("pol"), PolicyDocument=s3_only)["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=role, PolicyArn=arn)
    creds = aws("sts").assume_role(RoleArn=role_arn, RoleSessionName="v1")["Credentials"]
    session = aws(
        "iam", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"], session_token=creds["SessionToken"]
    )
    with pytest.raises(ClientError) as exc:
        session.get_role(RoleName=role)
    assert error(exc)[0] == "AccessDenied"

    v2 = iam.create_policy_version(PolicyArn=arn, PolicyDocument=allow_get)["PolicyVersion"]
    assert (v2["VersionId"], v2["IsDefaultVersion"]) == ("v2", False)
    with pytest.raises(ClientError):
        session.get_role(RoleName=role)  # v1 is still the default
    iam.set_default_policy_version(PolicyArn=arn, VersionId="v2")
    assert session.get_role(RoleName=role)["Role"]["Arn"] == role_arn
    assert iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"] == "v2"
    versions = iam.list_policy_versions(PolicyArn=arn)["Versions"]
    assert [(v["VersionId"], v["IsDefaultVersion"]) for v in versions] == [("v2", True), ("v1", False)]
    assert "Document" not in versions[0]  # AWS lists versions without their documents (recorded)
    assert iam.get_policy_version(PolicyArn=arn, VersionId="v2")["PolicyVersion"]["Document"] == json.loads(allow_get)

    with pytest.raises(ClientError) as exc:
        iam.delete_policy_version(PolicyArn=arn, VersionId="v2")
    assert error(exc) == ("DeleteConflict", "Cannot delete the default version of a policy.", 409)
    iam.detach_role_policy(RoleName=role, PolicyArn=arn)
    with pytest.raises(ClientError) as exc:
        iam.delete_policy(PolicyArn=arn)
    assert error(exc) == (
        "DeleteConflict",
        "This policy has more than one version. Before you delete a policy, you must delete the policy's versions. "
        "The default version is deleted with the policy.",
        409,
    )
    for n in range(3, 6):
        assert iam.create_policy_version(PolicyArn=arn, PolicyDocument=s3_only)["PolicyVersion"]["VersionId"] == f"v{n}"
    with pytest.raises(ClientError) as exc:
        iam.create_policy_version(PolicyArn=arn, PolicyDocument=s3_only)
    assert error(exc) == (
        "LimitExceeded",
        "A managed policy can have up to 5 versions. Before you create a new version, you must delete an existing "
        "version.",
        409,
    )
    for version in ("v1", "v3", "v4", "v5"):
        iam.delete_policy_version(PolicyArn=arn, VersionId=version)
    iam.delete_policy(PolicyArn=arn)


def test_list_users_pages(iam: Any) -> None:
    path = f"/{unique('users')}/"
    names = sorted(unique("u") for _ in range(3))
    for name in names:
        iam.create_user(UserName=name, Path=path)
    first = iam.list_users(PathPrefix=path, MaxItems=2)
    assert [u["UserName"] for u in first["Users"]] == names[:2] and first["IsTruncated"]
    rest = iam.list_users(PathPrefix=path, Marker=first["Marker"])
    assert [u["UserName"] for u in rest["Users"]] == names[2:] and not rest["IsTruncated"]
    assert first["Users"][0]["Arn"] == f"arn:aws:iam::000000000000:user{path}{names[0]}"


def test_user_tags_and_entities_for_policy(iam: Any) -> None:
    user = unique("tagged")
    iam.create_user(UserName=user, Tags=[{"Key": "team", "Value": "a"}])
    iam.tag_user(UserName=user, Tags=[{"Key": "env", "Value": "dev"}])
    iam.untag_user(UserName=user, TagKeys=["TEAM"])
    assert iam.list_user_tags(UserName=user)["Tags"] == [{"Key": "env", "Value": "dev"}]
    role = unique("role")
    role_id = iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)["Role"]["RoleId"]
    arn = iam.create_policy(PolicyName=unique("pol"), PolicyDocument=DOC)["Policy"]["Arn"]
    iam.attach_role_policy(RoleName=role, PolicyArn=arn)
    iam.attach_user_policy(UserName=user, PolicyArn=arn)
    out = iam.list_entities_for_policy(PolicyArn=arn)
    assert out["PolicyRoles"] == [{"RoleName": role, "RoleId": role_id}]
    assert [u["UserName"] for u in out["PolicyUsers"]] == [user]
    assert iam.list_entities_for_policy(PolicyArn=arn, EntityFilter="Role")["PolicyUsers"] == []
    assert [a["PolicyArn"] for a in iam.list_attached_user_policies(UserName=user)["AttachedPolicies"]] == [arn]


def test_an_inactive_access_key_is_refused_until_made_active_again(aws: Callable[..., Any], iam: Any) -> None:
    name = unique("user")
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    sts = aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    assert sts.get_caller_identity()["Arn"].endswith(f":user/{name}")
    iam.update_access_key(UserName=name, AccessKeyId=key["AccessKeyId"], Status="Inactive")
    assert [k["Status"] for k in iam.list_access_keys(UserName=name)["AccessKeyMetadata"]] == ["Inactive"]
    with pytest.raises(ClientError) as exc:
        sts.get_caller_identity()
    assert error(exc) == ("InvalidClientTokenId", "The security token included in the request is invalid.", 403)
    iam.update_access_key(UserName=name, AccessKeyId=key["AccessKeyId"], Status="Active")
    assert sts.get_caller_identity()["Arn"].endswith(f":user/{name}")
    with pytest.raises(ClientError) as exc:
        iam.update_access_key(UserName=name, AccessKeyId="AKIA0000000000000000", Status="Inactive")
    assert error(exc) == ("NoSuchEntity", "The Access Key with id AKIA0000000000000000 cannot be found.", 404)
    with pytest.raises(ClientError) as exc:
        iam.update_access_key(UserName=name, AccessKeyId=key["AccessKeyId"], Status="Paused")
    assert error(exc)[0] == "ValidationError" and error(exc)[2] == 400
    assert [k["Status"] for k in iam.list_access_keys(UserName=name)["AccessKeyMetadata"]] == ["Active"]


def test_which_answers_carry_tags_and_boundaries(iam: Any) -> None:
    # GetPolicy lists tags even when there are none; CreatePolicy and ListPolicies only when set / never.
    path = f"/{unique('attrs')}/"
    plain = iam.create_policy(PolicyName=unique("p"), Path=path, PolicyDocument=DOC)["Policy"]
    assert "Tags" not in plain and iam.get_policy(PolicyArn=plain["Arn"])["Policy"]["Tags"] == []
    tags = [{"Key": "k", "Value": "v"}]
    boundary = iam.create_policy(PolicyName=unique("b"), Path=path, PolicyDocument=DOC, Tags=tags)["Policy"]
    assert boundary["Tags"] == tags
    assert all("Tags" not in p for p in iam.list_policies(PathPrefix=path)["Policies"])
    # a user's tags and boundary are in CreateUser and GetUser, never in ListUsers
    name = unique("u")
    made = iam.create_user(UserName=name, Path=path, Tags=tags, PermissionsBoundary=boundary["Arn"])["User"]
    got = iam.get_user(UserName=name)["User"]
    for user in (made, got):
        assert user["Tags"] == tags and user["PermissionsBoundary"]["PermissionsBoundaryArn"] == boundary["Arn"]
    (listed,) = iam.list_users(PathPrefix=path)["Users"]
    assert listed["UserName"] == name and "Tags" not in listed and "PermissionsBoundary" not in listed
