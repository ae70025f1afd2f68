"""A user's other credentials (login profile, SSH keys, signing certificates, MFA devices), UpdateUser,
GetAccessKeyLastUsed and managed policies' tags, against a real server."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import segno
from botocore.exceptions import ClientError
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from iam_setup import error, totp_codes, unique

ACCT = "000000000000"
DOC = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})


def certificate() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "onceflow-test")])
    start = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(start)
            .not_valid_after(start + timedelta(days=1)).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def ssh_key() -> str:
    public = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    return public.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def test_policy_tags_are_set_listed_replaced_and_removed(iam: Any) -> None:
    # A managed policy's tag keys are case-sensitive, unlike a role's or a user's, and ListPolicyTags
    # lists them by key (AWS's recorded answers: LocalStack's test_iam_policies snapshot).
    tags = [{"Key": "a", "Value": "1"}]
    arn = iam.create_policy(PolicyName=unique("p"), PolicyDocument=DOC, Tags=tags)["Policy"]["Arn"]
    iam.tag_policy(PolicyArn=arn, Tags=[{"Key": "A", "Value": "2"}, {"Key": "b", "Value": ""}])
    both = [{"Key": "A", "Value": "2"}, {"Key": "a", "Value": "1"}, {"Key": "b", "Value": ""}]
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == both
    assert sorted(iam.get_policy(PolicyArn=arn)["Policy"]["Tags"], key=lambda t: t["Key"]) == both
    first = iam.list_policy_tags(PolicyArn=arn, MaxItems=1)
    assert first["Tags"] == [{"Key": "A", "Value": "2"}] and first["IsTruncated"]
    assert iam.list_policy_tags(PolicyArn=arn, Marker=first["Marker"])["Tags"] == both[1:]
    iam.untag_policy(PolicyArn=arn, TagKeys=["a", "A"])
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == [{"Key": "b", "Value": ""}]
    with pytest.raises(ClientError) as exc:
        iam.tag_policy(PolicyArn=arn, Tags=[{"Key": "x", "Value": "1"}, {"Key": "x", "Value": "2"}])
    assert error(exc) == ("InvalidInput", "Duplicate tag keys found.", 400)
    with pytest.raises(ClientError) as exc:
        iam.tag_policy(PolicyArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)])
    assert error(exc)[0] == "LimitExceeded"
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == [{"Key": "b", "Value": ""}]  # refused: nothing changed
    gone = f"arn:aws:iam::{ACCT}:policy/{unique('none')}"
    with pytest.raises(ClientError) as exc:
        iam.tag_policy(PolicyArn=gone, Tags=[{"Key": "a", "Value": "1"}])
    assert error(exc) == ("NoSuchEntity", f"Policy {gone} was not found.", 404)


def test_login_profile_lifecycle(iam: Any) -> None:
    name = unique("u")
    with pytest.raises(ClientError) as exc:
        iam.create_login_profile(UserName=name, Password="Passw0rd!")
    assert error(exc) == ("NoSuchEntity", f"The user with name {name} cannot be found.", 404)
    iam.create_user(UserName=name)
    with pytest.raises(ClientError) as exc:
        iam.get_login_profile(UserName=name)
    assert error(exc) == ("NoSuchEntity", f"Login Profile for User {name} cannot be found.", 404)
    made = iam.create_login_profile(UserName=name, Password="Passw0rd!", PasswordResetRequired=True)["LoginProfile"]
    assert made["UserName"] == name and made["PasswordResetRequired"] is True and "Password" not in made
    with pytest.raises(ClientError) as exc:
        iam.create_login_profile(UserName=name, Password="Passw0rd!")
    assert error(exc)[0::2] == ("EntityAlreadyExists", 409)
    iam.update_login_profile(UserName=name, PasswordResetRequired=False)
    assert iam.get_login_profile(UserName=name)["LoginProfile"]["PasswordResetRequired"] is False
    with pytest.raises(ClientError) as exc:
        iam.delete_user(UserName=name)
    assert error(exc) == ("DeleteConflict", "Cannot delete entity, must delete login profile first.", 409)
    iam.delete_login_profile(UserName=name)
    with pytest.raises(ClientError) as exc:
        iam.delete_login_profile(UserName=name)
    assert error(exc)[0] == "NoSuchEntity"
    iam.delete_user(UserName=name)


def test_ssh_public_keys(iam: Any) -> None:
    name = unique("u")
    iam.create_user(UserName=name)
    body = ssh_key()
    key = iam.upload_ssh_public_key(UserName=name, SSHPublicKeyBody=body)["SSHPublicKey"]
    assert key["SSHPublicKeyId"].startswith("APKA") and len(key["SSHPublicKeyId"]) == 20
    assert (key["UserName"], key["Status"], key["SSHPublicKeyBody"]) == (name, "Active", body)
    assert len(key["Fingerprint"].split(":")) == 16
    key_id = key["SSHPublicKeyId"]
    iam.update_ssh_public_key(UserName=name, SSHPublicKeyId=key_id, Status="Inactive")
    got = iam.get_ssh_public_key(UserName=name, SSHPublicKeyId=key_id, Encoding="SSH")["SSHPublicKey"]
    assert got["Status"] == "Inactive" and got["Fingerprint"] == key["Fingerprint"]
    listed = iam.list_ssh_public_keys(UserName=name)
    assert [k["SSHPublicKeyId"] for k in listed["SSHPublicKeys"]] == [key_id] and listed["IsTruncated"] is False
    pem = serialization.load_ssh_public_key(body.encode()).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    as_pem = iam.upload_ssh_public_key(UserName=name, SSHPublicKeyBody=pem)["SSHPublicKey"]
    assert as_pem["Fingerprint"] == key["Fingerprint"]  # the same key, in IAM's other format
    iam.delete_ssh_public_key(UserName=name, SSHPublicKeyId=as_pem["SSHPublicKeyId"])
    with pytest.raises(ClientError) as exc:
        iam.upload_ssh_public_key(UserName=name, SSHPublicKeyBody="not a key")
    assert error(exc)[0::2] == ("InvalidPublicKey", 400)
    with pytest.raises(ClientError) as exc:
        iam.delete_user(UserName=name)
    assert error(exc)[0] == "DeleteConflict"
    iam.delete_ssh_public_key(UserName=name, SSHPublicKeyId=key_id)
    assert iam.list_ssh_public_keys(UserName=name)["SSHPublicKeys"] == []
    with pytest.raises(ClientError) as exc:
        iam.get_ssh_public_key(UserName=name, SSHPublicKeyId=key_id, Encoding="SSH")
    assert error(exc)[0::2] == ("NoSuchEntity", 404)


def test_signing_certificates(iam: Any) -> None:
    name = unique("u")
    iam.create_user(UserName=name)
    body = certificate()
    cert = iam.upload_signing_certificate(UserName=name, CertificateBody=body)["Certificate"]
    assert (cert["UserName"], cert["Status"], cert["CertificateBody"]) == (name, "Active", body)
    iam.update_signing_certificate(UserName=name, CertificateId=cert["CertificateId"], Status="Inactive")
    listed = iam.list_signing_certificates(UserName=name)["Certificates"]
    assert [(c["CertificateId"], c["Status"]) for c in listed] == [(cert["CertificateId"], "Inactive")]
    iam.upload_signing_certificate(UserName=name, CertificateBody=certificate())
    with pytest.raises(ClientError) as exc:
        iam.upload_signing_certificate(UserName=name, CertificateBody=certificate())
    assert error(exc) == ("LimitExceeded", "Cannot exceed quota for CertificatesPerUser: 2", 409)
    with pytest.raises(ClientError) as exc:
        iam.upload_signing_certificate(UserName=name, CertificateBody="notacert")
    assert error(exc) == ("MalformedCertificate", "Certificate notacert is malformed.", 400)
    with pytest.raises(ClientError) as exc:
        iam.update_signing_certificate(UserName=name, CertificateId="x" * 32, Status="Inactive")
    assert error(exc) == ("NoSuchEntity", f"The Certificate with id {'x' * 32} cannot be found.", 404)
    with pytest.raises(ClientError) as exc:
        iam.list_signing_certificates(UserName=unique("nobody"))
    assert error(exc)[0] == "NoSuchEntity"
    iam.delete_signing_certificate(UserName=name, CertificateId=cert["CertificateId"])
    assert len(iam.list_signing_certificates(UserName=name)["Certificates"]) == 1


def test_virtual_mfa_devices(iam: Any) -> None:
    device_name, user = unique("mfa"), unique("u")
    device = iam.create_virtual_mfa_device(VirtualMFADeviceName=device_name, Path="/team/")["VirtualMFADevice"]
    serial = device["SerialNumber"]
    assert serial == f"arn:aws:iam::{ACCT}:mfa/team/{device_name}"
    assert len(base64.b32decode(device["Base32StringSeed"])) == 40  # a base32 seed an authenticator takes
    # The QR code encodes AWS's documented otpauth URI: the device's name at the account, and the seed.
    uri = f"otpauth://totp/{device_name}@{ACCT}?secret={device['Base32StringSeed'].decode()}"
    expected = io.BytesIO()
    segno.make(uri, error="m", micro=False).save(expected, kind="png", scale=4, border=4)
    assert device["QRCodePNG"] == expected.getvalue()
    with pytest.raises(ClientError) as exc:
        iam.create_virtual_mfa_device(VirtualMFADeviceName=device_name, Path="/team/")
    # AWS's words as recorded (LocalStack's test_iam_mfa snapshot, "create-duplicate-error").
    assert error(exc) == ("EntityAlreadyExists", "MFA device already exists.", 409)
    unassigned = iam.list_virtual_mfa_devices(AssignmentStatus="Unassigned")["VirtualMFADevices"]
    assert serial in [d["SerialNumber"] for d in unassigned]
    iam.create_user(UserName=user, Tags=[{"Key": "team", "Value": "a"}])
    # Codes the device does not show are refused (API_EnableMFADevice: two consecutive codes), and
    # nothing is enabled; the authenticator's two latest codes enable it.
    with pytest.raises(ClientError) as exc:
        iam.enable_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1="123456",
                              AuthenticationCode2="654321")
    assert error(exc) == ("InvalidAuthenticationCode", "Authentication code for device is not valid.", 403)
    assert iam.list_mfa_devices(UserName=user)["MFADevices"] == []
    first, second = totp_codes(device["Base32StringSeed"])
    with pytest.raises(ClientError) as exc:  # the right codes in the wrong order are not consecutive
        iam.enable_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1=second,
                              AuthenticationCode2=first)
    assert error(exc)[0] == "InvalidAuthenticationCode"
    iam.enable_mfa_device(UserName=user, SerialNumber=serial, AuthenticationCode1=first, AuthenticationCode2=second)
    assert [d["SerialNumber"] for d in iam.list_mfa_devices(UserName=user)["MFADevices"]] == [serial]
    assigned = {d["SerialNumber"]: d for d in iam.list_virtual_mfa_devices(AssignmentStatus="Assigned")
                ["VirtualMFADevices"]}
    assert assigned[serial]["User"]["UserName"] == user and "EnableDate" in assigned[serial]
    assert assigned[serial]["User"]["Tags"] == [{"Key": "team", "Value": "a"}]
    with pytest.raises(ClientError) as exc:
        iam.delete_virtual_mfa_device(SerialNumber=serial)
    assert error(exc)[0] == "DeleteConflict"
    iam.deactivate_mfa_device(UserName=user, SerialNumber=serial)
    assert iam.list_mfa_devices(UserName=user)["MFADevices"] == []
    iam.delete_virtual_mfa_device(SerialNumber=serial)
    with pytest.raises(ClientError) as exc:
        iam.delete_virtual_mfa_device(SerialNumber=serial)
    assert error(exc) == ("NoSuchEntity", f"MFA Device with serial number {serial} does not exist.", 404)


def test_update_user_renames_and_moves_what_the_user_has(iam: Any, aws: Callable[..., Any]) -> None:
    old, new, group = unique("old"), unique("new"), unique("g")
    iam.create_user(UserName=old)
    iam.create_group(GroupName=group)
    iam.add_user_to_group(GroupName=group, UserName=old)
    key = iam.create_access_key(UserName=old)["AccessKey"]
    iam.create_login_profile(UserName=old, Password="Passw0rd!")
    iam.update_user(UserName=old, NewUserName=new, NewPath="/moved/")
    user = iam.get_user(UserName=new)["User"]
    assert (user["Path"], user["Arn"]) == ("/moved/", f"arn:aws:iam::{ACCT}:user/moved/{new}")
    with pytest.raises(ClientError) as exc:
        iam.get_user(UserName=old)
    assert error(exc)[0] == "NoSuchEntity"
    assert [u["UserName"] for u in iam.get_group(GroupName=group)["Users"]] == [new]
    assert [k["AccessKeyId"] for k in iam.list_access_keys(UserName=new)["AccessKeyMetadata"]] == [key["AccessKeyId"]]
    assert iam.get_login_profile(UserName=new)["LoginProfile"]["UserName"] == new
    who = aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"]).get_caller_identity()
    assert who["Arn"] == user["Arn"]
    other = unique("other")
    iam.create_user(UserName=other)
    with pytest.raises(ClientError) as exc:
        iam.update_user(UserName=other, NewUserName=new.upper())
    assert error(exc) == ("EntityAlreadyExists", f"User with name {new.upper()} already exists.", 409)


def test_access_key_last_used_names_the_owner(iam: Any) -> None:
    name = unique("u")
    iam.create_user(UserName=name)
    key_id = iam.create_access_key(UserName=name)["AccessKey"]["AccessKeyId"]
    out = iam.get_access_key_last_used(AccessKeyId=key_id)
    assert out["UserName"] == name and out["AccessKeyLastUsed"] == {"ServiceName": "N/A", "Region": "N/A"}
    # A key the account does not have is refused as not authorized, not as not found (AWS's recorded
    # answer: LocalStack's test_iam_users snapshot, "get-last-used-nonexistent-key-error").
    with pytest.raises(ClientError) as exc:
        iam.get_access_key_last_used(AccessKeyId="AKIANOTAKEY000000000")
    assert error(exc) == ("AccessDenied", f"User: arn:aws:iam::{ACCT}:root is not authorized to perform "
                          "iam:GetAccessKeyLastUsed on resource: access key AKIANOTAKEY000000000", 403)


def test_virtual_mfa_device_paths_are_refused_in_iams_words(aws: Callable[..., Any]) -> None:
    """AWS's answers to the same calls (LocalStack's test_iam_mfa snapshot, test_virtual_mfa_device_errors and
    test_virtual_mfa_device_lifecycle[/test//double/], recorded 2026-02-17)."""
    from botocore.config import Config

    iam = aws("iam", config=Config(parameter_validation=False, retries={"max_attempts": 0}))
    invalid = ("ValidationError", "The specified value for path is invalid. It must begin and end with / and contain "
               "only alphanumeric characters and/or / characters.", 400)
    for path in ("nolead/", "/notrail"):
        with pytest.raises(ClientError) as exc:
            iam.create_virtual_mfa_device(VirtualMFADeviceName=unique("mfa"), Path=path)
        assert error(exc) == invalid
    with pytest.raises(ClientError) as exc:
        iam.create_virtual_mfa_device(VirtualMFADeviceName=unique("mfa"), Path="/" + "a" * 511 + "/")
    assert error(exc) == ("ValidationError", "1 validation error detected: Value at 'path' failed to satisfy "
                          "constraint: Member must have length less than or equal to 512", 400)
    name = unique("mfa")
    serial = iam.create_virtual_mfa_device(VirtualMFADeviceName=name, Path="/test//double/")["VirtualMFADevice"]
    assert serial["SerialNumber"].endswith(f":mfa/test//double/{name}")
    iam.delete_virtual_mfa_device(SerialNumber=serial["SerialNumber"])
