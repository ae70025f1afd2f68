"""The credential report and the account summary against a real server."""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def test_credential_report_lists_every_user_and_their_keys(server_factory: Callable[..., Any]) -> None:
    iam = server_factory().client("iam")  # a server of its own: the report is cached per account
    with pytest.raises(ClientError) as exc:
        iam.get_credential_report()
    assert (exc.value.response["Error"]["Code"], exc.value.response["ResponseMetadata"]["HTTPStatusCode"]) == (
        "ReportNotPresent", 410)
    assert "Message" not in exc.value.response["Error"]  # AWS's answer has none
    name = f"u-{uuid.uuid4().hex[:8]}"
    iam.create_user(UserName=name)
    iam.create_access_key(UserName=name)
    iam.create_login_profile(UserName=name, Password="Passw0rd!")
    assert iam.generate_credential_report()["State"] == "STARTED"
    assert iam.generate_credential_report()["State"] == "COMPLETE"  # a fresh report is kept
    report = iam.get_credential_report()
    assert report["ReportFormat"] == "text/csv"
    rows = list(csv.DictReader(io.StringIO(report["Content"].decode())))
    assert rows[0]["user"] == "<root_account>"
    ours = next(r for r in rows if r["user"] == name)
    assert ours["arn"].endswith(f":user/{name}")
    assert (ours["password_enabled"], ours["access_key_1_active"], ours["access_key_2_active"]) == (
        "true", "true", "false")
    assert ours["cert_1_active"] == "false" and ours["mfa_active"] == "false"


def test_account_summary_counts_entities_beside_quotas(server_factory: Callable[..., Any]) -> None:
    iam = server_factory().client("iam")
    before = iam.get_account_summary()["SummaryMap"]
    iam.create_user(UserName=f"u-{uuid.uuid4().hex[:8]}")
    iam.create_group(GroupName=f"g-{uuid.uuid4().hex[:8]}")
    iam.create_virtual_mfa_device(VirtualMFADeviceName=f"m-{uuid.uuid4().hex[:8]}")
    after = iam.get_account_summary()["SummaryMap"]
    assert after["Users"] == before["Users"] + 1 and after["Groups"] == before["Groups"] + 1
    assert after["MFADevices"] == before["MFADevices"] + 1 and after["MFADevicesInUse"] == before["MFADevicesInUse"]
    assert (after["AccessKeysPerUserQuota"], after["PolicySizeQuota"], after["VersionsPerPolicyQuota"]) == (2, 6144, 5)
    # Every member of AWS's recorded summary (LocalStack's test_iam_account_summary snapshot) is there.
    recorded = {"AccessKeysPerUserQuota", "AccountAccessKeysPresent", "AccountMFAEnabled", "AccountPasswordPresent",
                "AccountSigningCertificatesPresent", "AssumeRolePolicySizeQuota", "AttachedPoliciesPerGroupQuota",
                "AttachedPoliciesPerRoleQuota", "AttachedPoliciesPerUserQuota", "GlobalEndpointTokenVersion",
                "GroupPolicySizeQuota", "Groups", "GroupsPerUserQuota", "GroupsQuota", "InstanceProfiles",
                "InstanceProfilesQuota", "MFADevices", "MFADevicesInUse", "Policies", "PoliciesQuota",
                "PolicySizeQuota", "PolicyVersionsInUse", "PolicyVersionsInUseQuota", "Providers",
                "RolePolicySizeQuota", "Roles", "RolesQuota", "ServerCertificates", "ServerCertificatesQuota",
                "SigningCertificatesPerUserQuota", "UserPolicySizeQuota", "Users", "UsersQuota",
                "VersionsPerPolicyQuota"}
    assert set(after) == recorded
