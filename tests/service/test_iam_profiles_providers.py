"""Instance profiles, OpenID Connect and SAML providers, the account alias and the password
policy (issue 22)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import unique

ACCOUNT = "000000000000"
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
THUMB = "a" * 40


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        call(**params)
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def test_instance_profile_holds_one_role(iam: Any) -> None:
    name, role, other = unique("prof"), unique("role"), unique("role")
    created = iam.create_instance_profile(InstanceProfileName=name, Path="/app/",
                                          Tags=[{"Key": "team", "Value": "a"}])["InstanceProfile"]
    assert created["Arn"] == f"arn:aws:iam::{ACCOUNT}:instance-profile/app/{name}"
    assert created["InstanceProfileId"].startswith("AIPA") and created["Roles"] == []
    assert refused(iam.create_instance_profile, InstanceProfileName=name) == (
        "EntityAlreadyExists", f"Instance Profile {name} already exists.", 409)
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
    iam.create_role(RoleName=other, AssumeRolePolicyDocument=TRUST)
    iam.add_role_to_instance_profile(InstanceProfileName=name, RoleName=role)
    assert refused(iam.add_role_to_instance_profile, InstanceProfileName=name, RoleName=other) == (
        "LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1", 409)
    got = iam.get_instance_profile(InstanceProfileName=name)["InstanceProfile"]
    assert [r["RoleName"] for r in got["Roles"]] == [role] and got["Tags"] == [{"Key": "team", "Value": "a"}]
    assert "MaxSessionDuration" not in got["Roles"][0]  # a profile's role as AWS answers it (recorded)
    iam.untag_instance_profile(InstanceProfileName=name, TagKeys=["team"])
    assert iam.get_instance_profile(InstanceProfileName=name)["InstanceProfile"]["Tags"] == []
    listed = iam.list_instance_profiles_for_role(RoleName=role)["InstanceProfiles"]
    assert [p["InstanceProfileName"] for p in listed] == [name]
    assert iam.list_instance_profiles_for_role(RoleName=other)["InstanceProfiles"] == []
    in_path = iam.list_instance_profiles(PathPrefix="/app/")["InstanceProfiles"]
    assert name in [p["InstanceProfileName"] for p in in_path]
    assert refused(iam.delete_instance_profile, InstanceProfileName=name) == (
        "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.", 409)
    assert refused(iam.delete_role, RoleName=role) == (
        "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.", 409)
    iam.remove_role_from_instance_profile(InstanceProfileName=name, RoleName=role)
    assert refused(iam.remove_role_from_instance_profile, InstanceProfileName=name, RoleName=role) == (
        "NoSuchEntity", f"Role {role} in Instance Profile {name} cannot be found.", 404)
    iam.delete_instance_profile(InstanceProfileName=name)
    assert refused(iam.get_instance_profile, InstanceProfileName=name) == (
        "NoSuchEntity", f"Instance Profile {name} cannot be found.", 404)
    iam.delete_role(RoleName=role)


def test_oidc_provider_lifecycle(iam: Any) -> None:
    host = f"{unique('idp')}.example.com"
    arn = iam.create_open_id_connect_provider(Url=f"https://{host}", ClientIDList=["sts.amazonaws.com"],
                                              ThumbprintList=[THUMB], Tags=[{"Key": "k", "Value": "v"}])[
        "OpenIDConnectProviderArn"]
    assert arn == f"arn:aws:iam::{ACCOUNT}:oidc-provider/{host}"
    assert refused(iam.create_open_id_connect_provider, Url=f"https://{host}", ThumbprintList=[THUMB]) == (
        "EntityAlreadyExists", f"Provider with url https://{host} already exists.", 409)
    iam.add_client_id_to_open_id_connect_provider(OpenIDConnectProviderArn=arn, ClientID="app")
    iam.remove_client_id_from_open_id_connect_provider(OpenIDConnectProviderArn=arn, ClientID="sts.amazonaws.com")
    iam.update_open_id_connect_provider_thumbprint(OpenIDConnectProviderArn=arn, ThumbprintList=["b" * 40])
    got = iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert (got["Url"], got["ClientIDList"], got["ThumbprintList"]) == (host, ["app"], ["b" * 40])
    assert got["Tags"] == [{"Key": "k", "Value": "v"}]
    iam.untag_open_id_connect_provider(OpenIDConnectProviderArn=arn, TagKeys=["k"])
    assert iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)["Tags"] == []  # as AWS answers
    assert iam.list_open_id_connect_provider_tags(OpenIDConnectProviderArn=arn)["Tags"] == []
    assert {"Arn": arn} in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]
    assert refused(iam.update_open_id_connect_provider_thumbprint, OpenIDConnectProviderArn=arn,
                   ThumbprintList=[c * 40 for c in "abcdef"])[0] == "InvalidInput"
    assert iam.get_open_id_connect_provider(OpenIDConnectProviderArn=arn)["ThumbprintList"] == ["b" * 40]
    iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert refused(iam.get_open_id_connect_provider, OpenIDConnectProviderArn=arn)[0] == "NoSuchEntity"
    assert {"Arn": arn} not in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]


def test_saml_provider_lifecycle(iam: Any) -> None:
    name = unique("saml")
    metadata = ('<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com" '
                'validUntil="2030-01-01T00:00:00Z">' + "<!-- padding -->" * 70 + "</EntityDescriptor>")
    arn = iam.create_saml_provider(Name=name, SAMLMetadataDocument=metadata)["SAMLProviderArn"]
    assert arn == f"arn:aws:iam::{ACCOUNT}:saml-provider/{name}"
    got = iam.get_saml_provider(SAMLProviderArn=arn)
    assert got["SAMLMetadataDocument"] == metadata and got["ValidUntil"].year == 2030
    # Every member AWS answers (recorded: LocalStack's test_iam_saml_providers snapshot).
    assert (got["AssertionEncryptionMode"], got["PrivateKeyList"], got["Tags"]) == ("Allowed", [], [])
    iam.update_saml_provider(SAMLProviderArn=arn, AssertionEncryptionMode="Required",
                             AddPrivateKey="-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----")
    got = iam.get_saml_provider(SAMLProviderArn=arn)
    assert got["AssertionEncryptionMode"] == "Required" and got["SAMLMetadataDocument"] == metadata
    [key] = got["PrivateKeyList"]
    iam.update_saml_provider(SAMLProviderArn=arn, RemovePrivateKey=key["KeyId"])
    assert iam.get_saml_provider(SAMLProviderArn=arn)["PrivateKeyList"] == []
    assert arn in [p["Arn"] for p in iam.list_saml_providers()["SAMLProviderList"]]
    updated = metadata.replace("idp.example.com", "idp2.example.com")
    assert iam.update_saml_provider(SAMLProviderArn=arn, SAMLMetadataDocument=updated)["SAMLProviderArn"] == arn
    assert iam.get_saml_provider(SAMLProviderArn=arn)["SAMLMetadataDocument"] == updated
    iam.delete_saml_provider(SAMLProviderArn=arn)
    assert refused(iam.get_saml_provider, SAMLProviderArn=arn) == (
        "NoSuchEntity", f"Manifest not found for arn {arn}", 404)
    assert refused(iam.delete_saml_provider, SAMLProviderArn=arn) == (
        "NoSuchEntity", f"Manifest not found for arn {arn}", 404)


def test_account_alias_and_password_policy(server_factory: Callable[..., Any]) -> None:
    iam = server_factory().client("iam")  # account-wide settings: a server of its own
    assert iam.list_account_aliases()["AccountAliases"] == []
    iam.create_account_alias(AccountAlias="my-team")
    assert iam.list_account_aliases()["AccountAliases"] == ["my-team"]
    assert refused(iam.create_account_alias, AccountAlias="other-team")[0] == "LimitExceeded"
    assert refused(iam.delete_account_alias, AccountAlias="other-team")[0] == "NoSuchEntity"
    iam.delete_account_alias(AccountAlias="my-team")
    assert iam.list_account_aliases()["AccountAliases"] == []

    assert refused(iam.get_account_password_policy) == (
        "NoSuchEntity", f"The Password Policy with domain name {ACCOUNT} cannot be found.", 404)
    iam.update_account_password_policy(MinimumPasswordLength=12, RequireSymbols=True, MaxPasswordAge=90)
    policy = iam.get_account_password_policy()["PasswordPolicy"]
    assert policy["MinimumPasswordLength"] == 12 and policy["RequireSymbols"] is True
    assert policy["ExpirePasswords"] is True and policy["MaxPasswordAge"] == 90
    assert policy["RequireNumbers"] is False and "PasswordReusePrevention" not in policy
    iam.delete_account_password_policy()
    assert refused(iam.get_account_password_policy)[0] == "NoSuchEntity"
    # AWS's recorded answers (LocalStack's snapshot of test_iam_account_password_policy): deleting
    # names the policy, getting names the account; an update without parameters answers no HardExpiry.
    assert refused(iam.delete_account_password_policy) == (
        "NoSuchEntity", "The account policy with name PasswordPolicy cannot be found.", 404)
    iam.update_account_password_policy()
    assert iam.get_account_password_policy()["PasswordPolicy"] == {
        "AllowUsersToChangePassword": False, "ExpirePasswords": False, "MinimumPasswordLength": 6,
        "RequireLowercaseCharacters": False, "RequireNumbers": False, "RequireSymbols": False,
        "RequireUppercaseCharacters": False}


def test_service_linked_roles(iam: Any) -> None:
    suffix = uuid.uuid4().hex[:8]
    role = iam.create_service_linked_role(AWSServiceName="autoscaling.amazonaws.com", CustomSuffix=suffix,
                                          Description="scaling")["Role"]
    name = f"AWSServiceRoleForAutoScaling_{suffix}"
    assert role["RoleName"] == name and role["Path"] == "/aws-service-role/autoscaling.amazonaws.com/"
    assert role["Arn"] == f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/{name}"
    trust = iam.get_role(RoleName=name)["Role"]["AssumeRolePolicyDocument"]
    assert trust["Statement"][0]["Principal"] == {"Service": ["autoscaling.amazonaws.com"]}
    assert refused(iam.create_service_linked_role, AWSServiceName="autoscaling.amazonaws.com",
                   CustomSuffix=suffix)[0] == "InvalidInput"
    assert refused(iam.delete_role, RoleName=name) == (
        "UnmodifiableEntity",
        f"Cannot perform the operation on the protected role '{name}' - this role is only modifiable by AWS", 400)
    task = iam.delete_service_linked_role(RoleName=name)["DeletionTaskId"]
    assert iam.get_service_linked_role_deletion_status(DeletionTaskId=task)["Status"] == "SUCCEEDED"
    assert refused(iam.get_role, RoleName=name)[0] == "NoSuchEntity"


def test_tag_lists_page_with_max_items_and_marker(iam: Any) -> None:
    tags = [{"Key": f"k{i}", "Value": f"v{i}"} for i in range(5)]
    arn = iam.create_open_id_connect_provider(Url=f"https://{uuid.uuid4().hex}.example.com", ThumbprintList=[],
                                              Tags=tags)["OpenIDConnectProviderArn"]
    profile = f"p-{uuid.uuid4().hex[:8]}"
    iam.create_instance_profile(InstanceProfileName=profile, Tags=tags)
    lists = [(iam.list_open_id_connect_provider_tags, {"OpenIDConnectProviderArn": arn}),
             (iam.list_instance_profile_tags, {"InstanceProfileName": profile})]
    for list_tags, args in lists:
        first = list_tags(**args, MaxItems=2)
        assert first["Tags"] == tags[:2] and first["IsTruncated"] is True
        second = list_tags(**args, MaxItems=2, Marker=first["Marker"])
        assert second["Tags"] == tags[2:4] and second["IsTruncated"] is True
        last = list_tags(**args, Marker=second["Marker"])
        assert last["Tags"] == tags[4:] and last["IsTruncated"] is False and "Marker" not in last


def test_deleting_an_unknown_oidc_provider_is_refused(iam: Any) -> None:
    # IAM's reference calls DeleteOpenIDConnectProvider idempotent, but AWS refuses a second delete
    # (recorded: LocalStack's test_iam_oidc snapshot, "deletion-not-found-error").
    arn = iam.create_open_id_connect_provider(Url=f"https://{uuid.uuid4().hex}.example.com",
                                              ThumbprintList=[])["OpenIDConnectProviderArn"]
    iam.delete_open_id_connect_provider(OpenIDConnectProviderArn=arn)
    assert refused(iam.delete_open_id_connect_provider, OpenIDConnectProviderArn=arn) == (
        "NoSuchEntity", f"OpenId connect Provider {arn} cannot be found.", 404)
    assert {"Arn": arn} not in iam.list_open_id_connect_providers()["OpenIDConnectProviderList"]
    assert refused(iam.create_open_id_connect_provider, Url="example.org", ThumbprintList=[THUMB]) == (
        "ValidationError", "Invalid Open ID Connect Provider URL", 400)


def test_application_auto_scaling_custom_resource_role_takes_its_documented_name(iam: Any) -> None:
    role = iam.create_service_linked_role(AWSServiceName="custom-resource.application-autoscaling.amazonaws.com")
    name = role["Role"]["RoleName"]
    assert name == "AWSServiceRoleForApplicationAutoScaling_CustomResource"
    assert role["Role"]["Path"] == "/aws-service-role/custom-resource.application-autoscaling.amazonaws.com/"
    iam.delete_service_linked_role(RoleName=name)
