"""IAM operations served in session 13 (issue 22): GetAccountAuthorizationDetails, the context keys
of policies, service-specific credentials, MFA devices (get, tags, resync), ChangePassword and the
password policy, UpdateOpenIDConnectProvider, then SetSecurityTokenServicePreferences,
ListPoliciesGrantingServiceAccess, outbound web identity federation and centralized root access;
against a real server, each as AWS documents or recorded it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import error, totp_codes, unique

ACCOUNT = "000000000000"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def doc(action: str, **condition: Any) -> str:
    statement: dict[str, Any] = {"Effect": "Allow", "Action": action, "Resource": "*"}
    if condition:
        statement["Condition"] = condition
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        call(**params)
    return error(exc)


def details(iam: Any, **params: Any) -> dict[str, list[Any]]:
    """Every page of GetAccountAuthorizationDetails, the lists joined."""
    out: dict[str, list[Any]] = {k: [] for k in ("UserDetailList", "GroupDetailList", "RoleDetailList", "Policies")}
    for got in iam.get_paginator("get_account_authorization_details").paginate(**params):
        for key in out:
            out[key] += got[key]
    return out


# ---------------------------------------------------------------------- GetAccountAuthorizationDetails
@pytest.fixture
def entities(iam: Any) -> Any:
    """A user in a group, a role in an instance profile, a customer managed policy with two
    versions attached to all three, inline policies on each, a boundary on the role."""
    names = {k: unique(f"gaad-{k}") for k in ("user", "group", "role", "policy", "profile")}
    policy = iam.create_policy(PolicyName=names["policy"], PolicyDocument=doc("s3:ListBucket"),
                               Description="two versions")["Policy"]
    iam.create_policy_version(PolicyArn=policy["Arn"], PolicyDocument=doc("s3:GetObject"), SetAsDefault=True)
    iam.create_user(UserName=names["user"], Path="/gaad/", Tags=[{"Key": "team", "Value": "a"}])
    iam.create_group(GroupName=names["group"])
    iam.add_user_to_group(GroupName=names["group"], UserName=names["user"])
    iam.create_role(RoleName=names["role"], AssumeRolePolicyDocument=TRUST, Description="gaad role",
                    PermissionsBoundary=policy["Arn"])
    iam.create_instance_profile(InstanceProfileName=names["profile"])
    iam.add_role_to_instance_profile(InstanceProfileName=names["profile"], RoleName=names["role"])
    iam.put_user_policy(UserName=names["user"], PolicyName="u-inline", PolicyDocument=doc("sqs:SendMessage"))
    iam.put_group_policy(GroupName=names["group"], PolicyName="g-inline", PolicyDocument=doc("sns:Publish"))
    iam.put_role_policy(RoleName=names["role"], PolicyName="r-inline", PolicyDocument=doc("logs:PutLogEvents"))
    iam.attach_user_policy(UserName=names["user"], PolicyArn=policy["Arn"])
    iam.attach_group_policy(GroupName=names["group"], PolicyArn=policy["Arn"])
    iam.attach_role_policy(RoleName=names["role"], PolicyArn=policy["Arn"])
    iam.attach_role_policy(RoleName=names["role"], PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaRole")
    yield names, policy
    iam.detach_role_policy(RoleName=names["role"], PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaRole")
    iam.detach_role_policy(RoleName=names["role"], PolicyArn=policy["Arn"])


def test_account_authorization_details_describes_each_entity_and_its_relationships(iam: Any, entities: Any) -> None:
    # The shapes as AWS recorded them (LocalStack's test_iam_account_authorization_details snapshot).
    names, policy = entities
    got = details(iam)
    user = next(u for u in got["UserDetailList"] if u["UserName"] == names["user"])
    assert user["Path"] == "/gaad/" and user["Arn"] == f"arn:aws:iam::{ACCOUNT}:user/gaad/{names['user']}"
    assert user["GroupList"] == [names["group"]]
    # botocore decodes the URL-encoded documents back into JSON.
    assert user["UserPolicyList"] == [{"PolicyName": "u-inline", "PolicyDocument": json.loads(doc("sqs:SendMessage"))}]
    assert user["AttachedManagedPolicies"] == [{"PolicyName": names["policy"], "PolicyArn": policy["Arn"]}]
    assert user["Tags"] == [{"Key": "team", "Value": "a"}]

    group = next(g for g in got["GroupDetailList"] if g["GroupName"] == names["group"])
    assert group["GroupPolicyList"] == [{"PolicyName": "g-inline", "PolicyDocument": json.loads(doc("sns:Publish"))}]
    assert group["AttachedManagedPolicies"] == [{"PolicyName": names["policy"], "PolicyArn": policy["Arn"]}]

    role = next(r for r in got["RoleDetailList"] if r["RoleName"] == names["role"])
    assert role["AssumeRolePolicyDocument"] == json.loads(TRUST)
    assert role["RolePolicyList"] == [
        {"PolicyName": "r-inline", "PolicyDocument": json.loads(doc("logs:PutLogEvents"))}]
    assert {a["PolicyArn"] for a in role["AttachedManagedPolicies"]} == {
        policy["Arn"], "arn:aws:iam::aws:policy/service-role/AWSLambdaRole"}
    assert role["PermissionsBoundary"] == {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": policy["Arn"]}
    assert role["Tags"] == [] and role["RoleLastUsed"] == {}
    [profile] = role["InstanceProfileList"]
    assert profile["InstanceProfileName"] == names["profile"]
    [held] = profile["Roles"]  # as CreateRole answers a role
    assert held["RoleName"] == names["role"] and "Description" not in held and "MaxSessionDuration" not in held

    mine = next(p for p in got["Policies"] if p["Arn"] == policy["Arn"])
    assert mine["DefaultVersionId"] == "v2" and mine["AttachmentCount"] == 3
    assert mine["PermissionsBoundaryUsageCount"] == 1 and "Description" not in mine
    assert [(v["VersionId"], v["IsDefaultVersion"]) for v in mine["PolicyVersionList"]] == [("v2", True), ("v1", False)]
    assert mine["PolicyVersionList"][1]["Document"] == json.loads(doc("s3:ListBucket"))
    # An AWS managed policy appears once it is attached; one nobody uses does not.
    arns = {p["Arn"] for p in got["Policies"]}
    assert "arn:aws:iam::aws:policy/service-role/AWSLambdaRole" in arns
    assert "arn:aws:iam::aws:policy/service-role/AWSLambdaDynamoDBExecutionRole" not in arns


def test_account_authorization_details_filter_keeps_the_types_it_names(iam: Any, entities: Any) -> None:
    names, policy = entities
    roles = details(iam, Filter=["Role"])
    assert roles["UserDetailList"] == roles["GroupDetailList"] == roles["Policies"] == []
    assert names["role"] in [r["RoleName"] for r in roles["RoleDetailList"]]
    local = details(iam, Filter=["LocalManagedPolicy"])
    assert local["RoleDetailList"] == [] and policy["Arn"] in [p["Arn"] for p in local["Policies"]]
    assert all(":aws:policy/" not in p["Arn"] for p in local["Policies"])
    managed = details(iam, Filter=["AWSManagedPolicy", "User"])
    assert all(p["Arn"].startswith("arn:aws:iam::aws:policy/") for p in managed["Policies"])
    assert names["user"] in [u["UserName"] for u in managed["UserDetailList"]]
    assert managed["GroupDetailList"] == []


def test_account_authorization_details_pages_over_all_lists_together(iam: Any, entities: Any) -> None:
    names, _ = entities
    first = iam.get_account_authorization_details(MaxItems=1)
    assert first["IsTruncated"] is True and first["Marker"]
    assert sum(len(first[k]) for k in ("UserDetailList", "GroupDetailList", "RoleDetailList", "Policies")) == 1
    seen, marker, pages = [u["UserName"] for u in first["UserDetailList"]], first["Marker"], 1
    while marker:
        got = iam.get_account_authorization_details(MaxItems=1, Marker=marker, Filter=["User", "Group", "Role"])
        seen += [u["UserName"] for u in got["UserDetailList"]] + [r["RoleName"] for r in got["RoleDetailList"]]
        marker, pages = got.get("Marker"), pages + 1
    assert names["user"] in seen and names["role"] in seen and pages >= 3  # a user, a group, a role at least
    # A marker it did not issue is refused as the other listings refuse one.
    assert refused(iam.get_account_authorization_details, Marker="not-a-marker")[0] == "ValidationError"
    assert refused(iam.get_account_authorization_details, MaxItems=1001)[0] == "ValidationError"


# ---------------------------------------------------------------------- GetContextKeysFor*Policy
def test_context_keys_of_a_custom_policy_are_its_variables_and_condition_keys(iam: Any) -> None:
    # AWS's example (IAM User Guide, GetContextKeysForCustomPolicy with a CLI), word for word.
    example = json.dumps({"Version": "2012-10-17", "Statement": {
        "Effect": "Allow", "Action": "dynamodb:*",
        "Resource": "arn:aws:dynamodb:us-west-2:123456789012:table/${aws:username}",
        "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2015-08-16T12:00:00Z"}}}})
    got = iam.get_context_keys_for_custom_policy(PolicyInputList=[example])
    assert got["ContextKeyNames"] == ["aws:username", "aws:CurrentTime"]
    # Each key once across the policies (keys are case-insensitive); none where a policy names none.
    other = doc("s3:GetObject", StringEquals={"AWS:USERNAME": "x", "s3:prefix": "${aws:PrincipalTag/team}"})
    got = iam.get_context_keys_for_custom_policy(PolicyInputList=[example, other, doc("s3:ListBucket")])
    assert got["ContextKeyNames"] == ["aws:username", "aws:CurrentTime", "s3:prefix", "aws:PrincipalTag/team"]
    assert iam.get_context_keys_for_custom_policy(PolicyInputList=[doc("s3:ListBucket")])["ContextKeyNames"] == []
    code, _, status = refused(iam.get_context_keys_for_custom_policy, PolicyInputList=["{not json"])
    assert (code, status) == ("InvalidInput", 400)


def test_context_keys_of_a_principal_are_those_of_its_policies(iam: Any) -> None:
    user, group, role = unique("ck-user"), unique("ck-group"), unique("ck-role")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="own",
                        PolicyDocument=doc("s3:*", Bool={"aws:SecureTransport": "true"}))
    iam.put_group_policy(GroupName=group, PolicyName="team",
                         PolicyDocument=doc("sqs:*", IpAddress={"aws:SourceIp": "10.0.0.0/8"}))
    managed = iam.create_policy(PolicyName=unique("ck-policy"),
                                PolicyDocument=doc("sns:*", StringLike={"sns:Endpoint": "*"}))["Policy"]["Arn"]
    iam.attach_group_policy(GroupName=group, PolicyArn=managed)
    role_arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=role, PolicyName="r",
                        PolicyDocument=doc("logs:*", StringEquals={"aws:RequestedRegion": "x"}))
    user_arn = f"arn:aws:iam::{ACCOUNT}:user/{user}"
    group_arn = f"arn:aws:iam::{ACCOUNT}:group/{group}"

    keys = set(iam.get_context_keys_for_principal_policy(PolicySourceArn=user_arn)["ContextKeyNames"])
    assert keys == {"aws:SecureTransport", "aws:SourceIp", "sns:Endpoint"}  # the user's groups' policies too
    keys = iam.get_context_keys_for_principal_policy(PolicySourceArn=group_arn)["ContextKeyNames"]
    assert set(keys) == {"aws:SourceIp", "sns:Endpoint"}
    extra = doc("s3:*", StringEquals={"s3:x-amz-acl": "private"})
    keys = iam.get_context_keys_for_principal_policy(PolicySourceArn=role_arn, PolicyInputList=[extra])
    assert keys["ContextKeyNames"] == ["aws:RequestedRegion", "s3:x-amz-acl"]

    assert refused(iam.get_context_keys_for_principal_policy, PolicySourceArn=f"{user_arn}-gone")[:2] == (
        "NoSuchEntity", f"The user with name {user}-gone cannot be found.")
    assert refused(iam.get_context_keys_for_principal_policy, PolicySourceArn=f"{group_arn}-gone")[:2] == (
        "NoSuchEntity", f"The group with name {group}-gone cannot be found.")
    assert refused(iam.get_context_keys_for_principal_policy, PolicySourceArn="arn:aws:s3:::a-bucket-name")[0] == (
        "InvalidInput")
    for nameless in (f"arn:aws:iam::{ACCOUNT}:group", f"arn:aws:iam::{ACCOUNT}:user/"):
        assert refused(iam.get_context_keys_for_principal_policy, PolicySourceArn=nameless)[:2] == (
            "InvalidInput", f"ARN {nameless} is not valid.")


def test_account_authorization_details_of_bare_entities(iam: Any) -> None:
    # Recorded (no-filter-result): a user without inline policies has no UserPolicyList, a group
    # or role an empty one.
    user, group = unique("gaad-bare"), unique("gaad-bare")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    got = details(iam, Filter=["User", "Group"])
    bare = next(u for u in got["UserDetailList"] if u["UserName"] == user)
    assert "UserPolicyList" not in bare and bare["Tags"] == [] and bare["GroupList"] == []
    assert bare["AttachedManagedPolicies"] == []
    held = next(g for g in got["GroupDetailList"] if g["GroupName"] == group)
    assert held["GroupPolicyList"] == [] and held["AttachedManagedPolicies"] == []


# ---------------------------------------------------------------------- service-specific credentials
def test_service_specific_credential_lifecycle(iam: Any) -> None:
    user = unique("ssc")
    iam.create_user(UserName=user)
    made = iam.create_service_specific_credential(UserName=user, ServiceName="codecommit.amazonaws.com")
    cred = made["ServiceSpecificCredential"]
    cred_id = cred["ServiceSpecificCredentialId"]
    assert cred["ServiceUserName"] == f"{user}-at-{ACCOUNT}" and cred["Status"] == "Active"
    assert cred_id.startswith("ACCA") and len(cred_id) == 21
    assert len(cred["ServicePassword"]) == 60 and cred["ServicePassword"].endswith("=")
    assert "ServiceCredentialSecret" not in cred and "ExpirationDate" not in cred

    listed = iam.list_service_specific_credentials(UserName=user)["ServiceSpecificCredentials"]
    assert [c["ServiceSpecificCredentialId"] for c in listed] == [cred_id]
    assert "ServicePassword" not in listed[0] and listed[0]["ServiceName"] == "codecommit.amazonaws.com"
    assert iam.list_service_specific_credentials(UserName=user, ServiceName="cassandra.amazonaws.com")[
        "ServiceSpecificCredentials"] == []

    iam.update_service_specific_credential(UserName=user, ServiceSpecificCredentialId=cred_id, Status="Inactive")
    [listed_one] = iam.list_service_specific_credentials(UserName=user)["ServiceSpecificCredentials"]
    assert listed_one["Status"] == "Inactive"
    reset = iam.reset_service_specific_credential(UserName=user, ServiceSpecificCredentialId=cred_id)[
        "ServiceSpecificCredential"]
    assert reset["ServiceSpecificCredentialId"] == cred_id and reset["ServicePassword"] != cred["ServicePassword"]
    assert reset["ServiceUserName"] == cred["ServiceUserName"]

    # A user with a credential cannot be deleted (the message as AWS's DeleteUser gives it).
    assert refused(iam.delete_user, UserName=user) == (
        "DeleteConflict", "Cannot delete entity, must remove service specific credentials first.", 409)
    iam.delete_service_specific_credential(UserName=user, ServiceSpecificCredentialId=cred_id)
    assert iam.list_service_specific_credentials(UserName=user)["ServiceSpecificCredentials"] == []
    iam.delete_user(UserName=user)


def test_service_specific_credentials_refuse_what_iam_refuses(iam: Any) -> None:
    user = unique("ssc-bad")
    assert refused(iam.create_service_specific_credential, UserName=user, ServiceName="codecommit.amazonaws.com") == (
        "NoSuchEntity", f"The user with name {user} cannot be found.", 404)
    iam.create_user(UserName=user)
    for service in ("lambda.amazonaws.com", "o3on3n3onosneo"):
        assert refused(iam.create_service_specific_credential, UserName=user, ServiceName=service) == (
            "NoSuchEntity", f"No such service {service} is supported for Service Specific Credentials", 404)
    assert refused(iam.list_service_specific_credentials, UserName=user, ServiceName="lambda.amazonaws.com")[0] == (
        "NoSuchEntity")
    for _ in range(2):
        iam.create_service_specific_credential(UserName=user, ServiceName="cassandra.amazonaws.com")
    assert refused(iam.create_service_specific_credential, UserName=user, ServiceName="cassandra.amazonaws.com")[
        ::2] == ("LimitExceeded", 409)
    # Two per service: another service still has room.
    iam.create_service_specific_credential(UserName=user, ServiceName="codecommit.amazonaws.com")
    assert refused(iam.create_service_specific_credential, UserName=user, ServiceName="codecommit.amazonaws.com",
                   CredentialAgeDays=5)[0] == "InvalidInput"
    missing = "satisfiesregexbutstillinvalid"
    for call, extra in ((iam.update_service_specific_credential, {"Status": "Inactive"}),
                        (iam.reset_service_specific_credential, {}), (iam.delete_service_specific_credential, {})):
        assert refused(call, UserName=user, ServiceSpecificCredentialId=missing, **extra) == (
            "NoSuchEntity", f"No such credential {missing} exists", 404)
        assert refused(call, UserName=user, ServiceSpecificCredentialId="totally-wrong-credential-id-with-hyphens",
                       **extra)[0] == "ValidationError"
    # Another user's credential id is not found under this user.
    other = unique("ssc-other")
    iam.create_user(UserName=other)
    theirs = iam.create_service_specific_credential(UserName=other, ServiceName="codecommit.amazonaws.com")[
        "ServiceSpecificCredential"]["ServiceSpecificCredentialId"]
    assert refused(iam.delete_service_specific_credential, UserName=user, ServiceSpecificCredentialId=theirs)[0] == (
        "NoSuchEntity")
    every = iam.list_service_specific_credentials(AllUsers=True, ServiceName="codecommit.amazonaws.com")
    assert theirs in [c["ServiceSpecificCredentialId"] for c in every["ServiceSpecificCredentials"]]
    assert refused(iam.list_service_specific_credentials, AllUsers=True, UserName=user)[0] == "InvalidInput"


def test_an_api_key_has_an_alias_a_secret_and_may_expire(iam: Any) -> None:
    user = unique("ssc-key")
    iam.create_user(UserName=user)
    key = iam.create_service_specific_credential(UserName=user, ServiceName="bedrock.amazonaws.com",
                                                 CredentialAgeDays=30)["ServiceSpecificCredential"]
    assert key["ServiceCredentialSecret"] and key["ServiceCredentialAlias"]
    assert "ServicePassword" not in key and "ServiceUserName" not in key
    assert (key["ExpirationDate"] - key["CreateDate"]).days == 30
    [listed] = iam.list_service_specific_credentials(UserName=user)["ServiceSpecificCredentials"]
    assert "ServiceCredentialSecret" not in listed and listed["ExpirationDate"] == key["ExpirationDate"]


# ---------------------------------------------------------------------- MFA devices
def _device(iam: Any, **params: Any) -> tuple[str, str]:
    made = iam.create_virtual_mfa_device(VirtualMFADeviceName=unique("mfa"), **params)["VirtualMFADevice"]
    return made["SerialNumber"], made["Base32StringSeed"].decode()


def test_mfa_device_tags(iam: Any) -> None:
    serial, _ = _device(iam, Tags=[{"Key": "team", "Value": "a"}])
    assert iam.list_mfa_device_tags(SerialNumber=serial)["Tags"] == [{"Key": "team", "Value": "a"}]
    iam.tag_mfa_device(SerialNumber=serial, Tags=[{"Key": "TEAM", "Value": "b"}, {"Key": "env", "Value": "dev"}])
    got = iam.list_mfa_device_tags(SerialNumber=serial)
    assert got["Tags"] == [{"Key": "TEAM", "Value": "b"}, {"Key": "env", "Value": "dev"}] and not got["IsTruncated"]
    first = iam.list_mfa_device_tags(SerialNumber=serial, MaxItems=1)
    assert first["IsTruncated"] and len(first["Tags"]) == 1
    assert iam.list_mfa_device_tags(SerialNumber=serial, Marker=first["Marker"])["Tags"] == [
        {"Key": "env", "Value": "dev"}]
    iam.untag_mfa_device(SerialNumber=serial, TagKeys=["team"])  # keys are case-insensitive
    assert iam.list_mfa_device_tags(SerialNumber=serial)["Tags"] == [{"Key": "env", "Value": "dev"}]

    assert refused(iam.tag_mfa_device, SerialNumber=serial,
                   Tags=[{"Key": "a", "Value": "1"}, {"Key": "A", "Value": "2"}])[0] == "InvalidInput"
    too_many = [{"Key": f"k{n}", "Value": "v"} for n in range(50)]
    assert refused(iam.tag_mfa_device, SerialNumber=serial, Tags=too_many)[0] == "LimitExceeded"
    assert iam.list_mfa_device_tags(SerialNumber=serial)["Tags"] == [{"Key": "env", "Value": "dev"}]
    gone = f"arn:aws:iam::{ACCOUNT}:mfa/{unique('none')}"
    for call, extra in ((iam.tag_mfa_device, {"Tags": [{"Key": "a", "Value": "b"}]}),
                        (iam.untag_mfa_device, {"TagKeys": ["a"]}), (iam.list_mfa_device_tags, {})):
        assert refused(call, SerialNumber=gone, **extra) == (
            "NoSuchEntity", f"MFA Device with serial number {gone} does not exist.", 404)


def test_get_and_resync_an_enabled_mfa_device(iam: Any) -> None:
    user = unique("mfa-user")
    iam.create_user(UserName=user)
    serial, seed = _device(iam)
    assert refused(iam.get_mfa_device, UserName=user, SerialNumber=serial) == (
        "NoSuchEntity", f"MFA Device with serial number {serial} does not exist.", 404)
    first, second = totp_codes(seed)
    iam.enable_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1=first, AuthenticationCode2=second)
    got = iam.get_mfa_device(UserName=user, SerialNumber=serial)
    assert got["UserName"] == user and got["SerialNumber"] == serial and got["EnableDate"]
    assert "Certifications" not in got  # those are a FIDO security key's
    assert refused(iam.get_mfa_device, UserName=f"{user}-gone", SerialNumber=serial)[:2] == (
        "NoSuchEntity", f"The user with name {user}-gone cannot be found.")

    iam.resync_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1=first, AuthenticationCode2=second)
    # Codes that are not the device's, or not consecutive, are refused.
    assert refused(iam.resync_mfa_device, UserName=user, SerialNumber=serial, AuthenticationCode1=second,
                   AuthenticationCode2=first)[::2] == ("InvalidAuthenticationCode", 403)
    wrong = "000000" if first != "000000" else "111111"
    assert refused(iam.resync_mfa_device, UserName=user, SerialNumber=serial, AuthenticationCode1=wrong,
                   AuthenticationCode2=wrong)[0] == "InvalidAuthenticationCode"
    other = unique("mfa-other")
    iam.create_user(UserName=other)
    assert refused(iam.resync_mfa_device, UserName=other, SerialNumber=serial, AuthenticationCode1=first,
                   AuthenticationCode2=second)[0] == "NoSuchEntity"
    iam.deactivate_mfa_device(UserName=user, SerialNumber=serial)


# ---------------------------------------------------------------------- ChangePassword
def _user_client(iam: Any, make: Callable[..., Any], user: str, password: str | None) -> Any:
    """An IAM client signed as `user`, who may change its own password (the policy AWS's knowledge
    center gives: iam:ChangePassword on arn:aws:iam::*:user/${aws:username})."""
    iam.create_user(UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="own-password", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "iam:ChangePassword", "Resource": "arn:aws:iam::*:user/${aws:username}"}]}))
    if password is not None:
        iam.create_login_profile(UserName=user, Password=password, PasswordResetRequired=True)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    return make("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])


def test_a_user_changes_its_own_password(iam: Any, aws: Callable[..., Any]) -> None:
    user = unique("pw")
    own = _user_client(iam, aws, user, "Start-Passw0rd")
    assert iam.get_login_profile(UserName=user)["LoginProfile"]["PasswordResetRequired"] is True
    assert refused(own.change_password, OldPassword="not-it", NewPassword="Next-Passw0rd")[::2] == (
        "AccessDenied", 403)
    own.change_password(OldPassword="Start-Passw0rd", NewPassword="Next-Passw0rd")
    assert iam.get_login_profile(UserName=user)["LoginProfile"]["PasswordResetRequired"] is False  # reset done
    # The old password no longer is the current one.
    assert refused(own.change_password, OldPassword="Start-Passw0rd", NewPassword="Third-Passw0rd")[0] == (
        "AccessDenied")
    # Without an account policy, AWS's default applies: 8 characters, three kinds of them.
    for weak in ("Sh0rt!", "alllowercaseletters"):
        code, _, status = refused(own.change_password, OldPassword="Next-Passw0rd", NewPassword=weak)
        assert (code, status) == ("PasswordPolicyViolation", 400)
    own.change_password(OldPassword="Next-Passw0rd", NewPassword="Third-Passw0rd")
    # The account's root is not an IAM user; a user without a console password has none to change.
    assert refused(iam.change_password, OldPassword="x", NewPassword="Fourth-Passw0rd")[0] == "InvalidUserType"
    bare = unique("pw-bare")
    assert refused(_user_client(iam, aws, bare, None).change_password, OldPassword="x",
                   NewPassword="Fourth-Passw0rd") == (
        "NoSuchEntity", f"Login Profile for User {bare} cannot be found.", 404)
    assert refused(iam.create_login_profile, UserName=bare, Password="weak")[0] == "PasswordPolicyViolation"
    assert refused(iam.get_login_profile, UserName=bare)[0] == "NoSuchEntity"  # nothing was made


def test_the_account_password_policy_applies_to_new_passwords(server_factory: Callable[..., Any]) -> None:
    server = server_factory()  # account-wide settings: a server of its own
    iam = server.client("iam")
    iam.update_account_password_policy(MinimumPasswordLength=10, RequireNumbers=True, RequireSymbols=True,
                                       PasswordReusePrevention=2)
    user = unique("pw-policy")
    own = _user_client(iam, server.client, user, "first-pass-1!")
    assert refused(own.change_password, OldPassword="first-pass-1!", NewPassword="nonumbers!!") == (
        "PasswordPolicyViolation", "Password should have at least one number", 400)
    assert refused(own.change_password, OldPassword="first-pass-1!", NewPassword="short-1!")[1] == (
        "Password should have a minimum length of 10")
    own.change_password(OldPassword="first-pass-1!", NewPassword="second-pass-2!")
    # One of the last two passwords may not come back; the third one back may.
    assert refused(own.change_password, OldPassword="second-pass-2!", NewPassword="first-pass-1!")[0] == (
        "PasswordPolicyViolation")
    own.change_password(OldPassword="second-pass-2!", NewPassword="third-pass-3!")
    own.change_password(OldPassword="third-pass-3!", NewPassword="first-pass-1!")
    # UpdateLoginProfile's new password is held to the policy too.
    assert refused(iam.update_login_profile, UserName=user, Password="no-digits-here!")[0] == (
        "PasswordPolicyViolation")
    iam.update_login_profile(UserName=user, Password="admin-set-4!")
    own.change_password(OldPassword="admin-set-4!", NewPassword="fifth-pass-5!")


# ---------------------------------------------------------------------- UpdateOpenIDConnectProvider
def test_update_openid_connect_provider_sets_and_removes_its_configuration(iam: Any) -> None:
    host = f"{unique('idp')}.example.com"
    arn = iam.create_open_id_connect_provider(Url=f"https://{host}", ClientIDList=["app"],
                                              ThumbprintList=["a" * 40])["OpenIDConnectProviderArn"]
    context = {"SubjectSourceKey": "sub", "KeyDefinitionList": [{"SourceKey": "email", "TargetKey": "mail"}]}
    instance = "arn:aws:sso:::instance/ssoins-1234567890abcdef"
    iam.update_open_id_connect_provider(OpenIDConnectProviderArn=arn, ContextProvider=context)
    got = iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert got["ContextProvider"] == context and "IdentityCenterInstanceArn" not in got
    assert got["ThumbprintList"] == ["a" * 40]  # thumbprints are UpdateOpenIDConnectProviderThumbprint's
    iam.update_open_id_connect_provider(OpenIDConnectProviderArn=arn, IdentityCenterInstanceArn=instance)
    assert iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)["IdentityCenterInstanceArn"] == instance

    # A value with its Remove flag, two changes at once, or nothing: refused, nothing changed.
    for params in ({"ContextProvider": context, "RemoveContextProvider": True},
                   {"IdentityCenterInstanceArn": instance, "RemoveIdentityCenterInstance": True},
                   {"ContextProvider": context, "RemoveIdentityCenterInstance": True}, {}):
        assert refused(iam.update_open_id_connect_provider, OpenIDConnectProviderArn=arn, **params)[::2] == (
            "InvalidInput", 400)
    # The context provider goes only once the Identity Center association is gone.
    assert refused(iam.update_open_id_connect_provider, OpenIDConnectProviderArn=arn,
                   RemoveContextProvider=True)[0] == "InvalidInput"
    iam.update_open_id_connect_provider(OpenIDConnectProviderArn=arn, RemoveIdentityCenterInstance=True)
    iam.update_open_id_connect_provider(OpenIDConnectProviderArn=arn, RemoveContextProvider=True)
    got = iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert "ContextProvider" not in got and "IdentityCenterInstanceArn" not in got

    gone = f"arn:aws:iam::{ACCOUNT}:oidc-provider/{unique('none')}.example.com"
    assert refused(iam.update_open_id_connect_provider, OpenIDConnectProviderArn=gone,
                   RemoveContextProvider=True)[0] == "NoSuchEntity"
    iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)


# ---------------------------------------------------------------------- SetSecurityTokenServicePreferences
def test_sts_preferences_set_the_global_endpoint_token_version(server_factory: Callable[..., Any]) -> None:
    iam = server_factory().client("iam")  # account-wide settings: a server of its own
    assert iam.get_account_summary()["SummaryMap"]["GlobalEndpointTokenVersion"] == 1
    iam.set_security_token_service_preferences(GlobalEndpointTokenVersion="v2Token")
    assert iam.get_account_summary()["SummaryMap"]["GlobalEndpointTokenVersion"] == 2
    iam.set_security_token_service_preferences(GlobalEndpointTokenVersion="v1Token")
    assert iam.get_account_summary()["SummaryMap"]["GlobalEndpointTokenVersion"] == 1
    assert refused(iam.set_security_token_service_preferences, GlobalEndpointTokenVersion="v3Token")[0] == (
        "ValidationError")


# ---------------------------------------------------------------------- ListPoliciesGrantingServiceAccess
def test_policies_granting_service_access(iam: Any) -> None:
    user, group, role = unique("psa-user"), unique("psa-group"), unique("psa-role")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="s3-read", PolicyDocument=doc("s3:Get*"))
    iam.put_user_policy(UserName=user, PolicyName="deny-sqs", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "sqs:*", "Resource": "*"}]}))
    iam.put_group_policy(GroupName=group, PolicyName="all-but-iam", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}]}))
    managed = iam.create_policy(PolicyName=unique("psa-sqs"), PolicyDocument=doc("sqs:SendMessage"))["Policy"]
    iam.attach_user_policy(UserName=user, PolicyArn=managed["Arn"])
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=role, PolicyName="anything", PolicyDocument=doc("*"))

    user_arn = f"arn:aws:iam::{ACCOUNT}:user/{user}"
    got = iam.list_policies_granting_service_access(Arn=user_arn, ServiceNamespaces=["s3", "sqs", "iam"])
    assert got["IsTruncated"] is False
    by_ns = {e["ServiceNamespace"]: e["Policies"] for e in got["PoliciesGrantingServiceAccess"]}
    assert list(by_ns) == ["s3", "sqs", "iam"]
    assert by_ns["s3"] == [
        {"PolicyName": "s3-read", "PolicyType": "INLINE", "EntityType": "USER", "EntityName": user},
        {"PolicyName": "all-but-iam", "PolicyType": "INLINE", "EntityType": "GROUP", "EntityName": group}]
    # A Deny grants nothing; the managed policy is named by its ARN.
    assert [p["PolicyName"] for p in by_ns["sqs"]] == ["all-but-iam", managed["PolicyName"]]
    assert by_ns["sqs"][1] == {"PolicyName": managed["PolicyName"], "PolicyType": "MANAGED",
                               "PolicyArn": managed["Arn"]}
    assert by_ns["iam"] == []  # NotAction iam:* leaves every IAM action out

    group_arn = f"arn:aws:iam::{ACCOUNT}:group/{group}"
    got = iam.list_policies_granting_service_access(Arn=group_arn, ServiceNamespaces=["s3"])
    assert [p["PolicyName"] for p in got["PoliciesGrantingServiceAccess"][0]["Policies"]] == ["all-but-iam"]
    role_arn = f"arn:aws:iam::{ACCOUNT}:role/{role}"
    got = iam.list_policies_granting_service_access(Arn=role_arn, ServiceNamespaces=["dynamodb"])
    assert [p["PolicyName"] for p in got["PoliciesGrantingServiceAccess"][0]["Policies"]] == ["anything"]

    assert refused(iam.list_policies_granting_service_access, Arn=f"{user_arn}-gone", ServiceNamespaces=["s3"]) == (
        "NoSuchEntity", f"The user with name {user}-gone cannot be found.", 404)
    assert refused(iam.list_policies_granting_service_access, Arn="arn:aws:s3:::some-bucket",
                   ServiceNamespaces=["s3"])[:2] == ("InvalidInput", "ARN arn:aws:s3:::some-bucket is not valid.")


# ---------------------------------------------------------------------- outbound web identity federation
def test_outbound_web_identity_federation_is_enabled_once_and_disabled_once(server_factory: Callable[..., Any]) -> None:
    iam = server_factory().client("iam")  # account-wide settings: a server of its own
    assert refused(iam.get_outbound_web_identity_federation_info)[::2] == ("FeatureDisabled", 404)
    assert refused(iam.disable_outbound_web_identity_federation)[::2] == ("FeatureDisabled", 404)
    issuer = iam.enable_outbound_web_identity_federation()["IssuerIdentifier"]
    assert issuer.startswith("https://")
    assert refused(iam.enable_outbound_web_identity_federation)[::2] == ("FeatureEnabled", 409)
    info = iam.get_outbound_web_identity_federation_info()
    assert (info["IssuerIdentifier"], info["JwtVendingEnabled"]) == (issuer, True)
    iam.disable_outbound_web_identity_federation()
    assert iam.get_outbound_web_identity_federation_info()["JwtVendingEnabled"] is False
    assert refused(iam.disable_outbound_web_identity_federation)[0] == "FeatureDisabled"
    assert iam.enable_outbound_web_identity_federation()["IssuerIdentifier"] == issuer  # the account's one


def test_the_credential_report_shows_when_a_password_last_changed(server_factory: Callable[..., Any]) -> None:
    import csv
    import io
    import time

    server = server_factory()  # a server of its own: the report is cached per account for hours
    iam = server.client("iam")
    user = unique("pw-report")
    own = _user_client(iam, server.client, user, "Start-Passw0rd")
    created = iam.get_login_profile(UserName=user)["LoginProfile"]["CreateDate"]
    time.sleep(1.1)  # IAM's dates are to the second: the change lands in a later one
    own.change_password(OldPassword="Start-Passw0rd", NewPassword="Next-Passw0rd")
    iam.generate_credential_report()
    rows = csv.DictReader(io.StringIO(iam.get_credential_report()["Content"].decode()))
    ours = next(r for r in rows if r["user"] == user)
    assert ours["password_enabled"] == "true"
    assert ours["password_last_changed"] > created.isoformat()  # the change, not the profile's creation


# ---------------------------------------------------------------------- centralized root access
@pytest.mark.parametrize("call", ["list_organizations_features", "enable_organizations_root_credentials_management",
                                  "disable_organizations_root_credentials_management",
                                  "enable_organizations_root_sessions", "disable_organizations_root_sessions"])
def test_centralized_root_access_finds_no_organization(iam: Any, call: str) -> None:
    # onceflow serves no AWS Organizations: every account stands alone.
    assert refused(getattr(iam, call)) == (
        "OrganizationNotFoundException",
        "The request was rejected because no organization is associated with your account.", 400)


# ---------------------------------------------------------------------- service last accessed
def _report(iam: Any, arn: str) -> tuple[str, dict[str, Any]]:
    job = iam.generate_service_last_accessed_details(Arn=arn)["JobId"]
    got = iam.get_service_last_accessed_details(JobId=job)
    assert got["JobStatus"] == "COMPLETED" and got["JobType"] == "SERVICE_LEVEL"
    return job, {s["ServiceNamespace"]: s for s in got["ServicesLastAccessed"]}


def test_service_last_accessed_reports(iam: Any, aws: Callable[..., Any]) -> None:
    user, group = unique("sla-user"), unique("sla-group")
    iam.create_user(UserName=user)
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=user)
    iam.put_user_policy(UserName=user, PolicyName="ddb", PolicyDocument=doc("dynamodb:*"))
    iam.put_group_policy(GroupName=group, PolicyName="queues", PolicyDocument=doc("sqs:*"))
    managed = iam.create_policy(PolicyName=unique("sla-ec2"), PolicyDocument=doc("ec2:Describe*"))["Policy"]["Arn"]
    iam.attach_user_policy(UserName=user, PolicyArn=managed)
    key = iam.create_access_key(UserName=user)["AccessKey"]
    user_arn = f"arn:aws:iam::{ACCOUNT}:user/{user}"
    aws("dynamodb", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"]).list_tables()

    job, services = _report(iam, user_arn)
    assert sorted(services) == ["dynamodb", "ec2", "sqs"]  # what its policies and its group's reach, by namespace
    ddb = services["dynamodb"]
    assert (ddb["ServiceName"], ddb["TotalAuthenticatedEntities"], ddb["LastAuthenticatedEntity"]) == (
        "Amazon DynamoDB", 1, user_arn)
    assert ddb["LastAuthenticatedRegion"] == "us-east-1" and ddb["LastAuthenticated"]
    assert services["sqs"]["TotalAuthenticatedEntities"] == 0 and "LastAuthenticated" not in services["sqs"]
    [me] = iam.get_service_last_accessed_details_with_entities(JobId=job, ServiceNamespace="dynamodb")[
        "EntityDetailsList"]
    assert me["EntityInfo"]["Arn"] == user_arn and me["EntityInfo"]["Type"] == "USER" and me["LastAuthenticated"]

    # A group's report is its members'; a policy's the entities it is attached to.
    job, services = _report(iam, f"arn:aws:iam::{ACCOUNT}:group/{group}")
    assert sorted(services) == ["sqs"] and services["sqs"]["TotalAuthenticatedEntities"] == 0
    [member] = iam.get_service_last_accessed_details_with_entities(JobId=job, ServiceNamespace="sqs")[
        "EntityDetailsList"]
    assert member["EntityInfo"]["Name"] == user and "LastAuthenticated" not in member
    _, services = _report(iam, managed)
    assert sorted(services) == ["ec2"] and services["ec2"]["ServiceName"] == "ec2"

    assert refused(iam.get_service_last_accessed_details, JobId=str(uuid.uuid4()))[::2] == ("NoSuchEntity", 404)
    assert refused(iam.generate_service_last_accessed_details, Arn=f"{user_arn}-gone")[:2] == (
        "NoSuchEntity", f"The user with name {user}-gone cannot be found.")
    assert refused(iam.generate_service_last_accessed_details, Arn="arn:aws:s3:::bucket-name")[0] == "InvalidInput"
    # A job is read by the principal that made it.
    mine = iam.generate_service_last_accessed_details(Arn=user_arn)["JobId"]
    as_user = aws("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    iam.put_user_policy(UserName=user, PolicyName="reports", PolicyDocument=doc("iam:GetServiceLastAccessedDetails"))
    assert refused(as_user.get_service_last_accessed_details, JobId=mine)[0] == "NoSuchEntity"
