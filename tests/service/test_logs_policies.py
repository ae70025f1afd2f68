"""Data protection policies (per log group) and account policies: checked as the model documents
their documents, stored, described, deleted; a group shows its data protection status. Deletion
protection and KMS key association of log groups."""

from __future__ import annotations

import json
from typing import Any

import pytest
from calls import refused, unique

ACCOUNT = "000000000000"
EMAIL = "arn:aws:dataprotection::aws:data-identifier/EmailAddress"




def protection(*identifiers: str, audit: Any = None, mask: Any = None, **extra: Any) -> str:
    ids = list(identifiers) or [EMAIL]
    return json.dumps({"Name": "p", "Version": "2021-06-01", **extra, "Statement": [
        {"Sid": "audit", "DataIdentifier": ids, "Operation": {"Audit": audit if audit is not None else {
            "FindingsDestination": {}}}},
        {"Sid": "redact", "DataIdentifier": ids, "Operation": {"Deidentify": {
            "MaskConfig": mask if mask is not None else {}}}}]})



@pytest.fixture
def group(logs: Any) -> str:
    name = f"/policies/{unique('g')}"
    logs.create_log_group(logGroupName=name)
    return name


def described(logs: Any, group: str) -> dict[str, Any]:
    found: dict[str, Any] = logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"][0]
    return found


def test_data_protection_policy_of_a_group(logs: Any, group: str) -> None:
    assert "dataProtectionStatus" not in described(logs, group)
    assert logs.get_data_protection_policy(logGroupIdentifier=group)["logGroupIdentifier"] == group
    doc = protection(EMAIL, "arn:aws:dataprotection::aws:data-identifier/DriversLicense-US", "EmployeeId",
                     Configuration={"CustomDataIdentifier": [{"Name": "EmployeeId", "Regex": "EmployeeId-\\d{9}"}]})
    put = logs.put_data_protection_policy(logGroupIdentifier=group, policyDocument=doc)
    assert (put["logGroupIdentifier"], put["policyDocument"]) == (group, doc)
    arn = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"
    got = logs.get_data_protection_policy(logGroupIdentifier=arn)
    assert (got["policyDocument"], got["lastUpdatedTime"]) == (doc, put["lastUpdatedTime"])
    assert described(logs, group)["dataProtectionStatus"] == "ACTIVATED"

    bad_id = "arn:aws:dataprotection::aws:data-identifier/PhoneNumber"
    assert refused(logs.put_data_protection_policy, logGroupIdentifier=group, policyDocument=protection(bad_id)) == (
        "InvalidParameterException", f"{bad_id} is not a valid Data Identifier")
    mismatched = json.loads(protection())
    mismatched["Statement"][1]["DataIdentifier"] = ["arn:aws:dataprotection::aws:data-identifier/IpAddress"]
    for bad in (protection(mask={"x": 1}), protection(audit={}), json.dumps(mismatched), "[]", "not json",
                json.dumps({"Statement": json.loads(protection())["Statement"][:1]})):
        assert refused(logs.put_data_protection_policy, logGroupIdentifier=group, policyDocument=bad)[0] == \
            "InvalidParameterException", bad
    assert logs.get_data_protection_policy(logGroupIdentifier=group)["policyDocument"] == doc  # unchanged
    assert refused(logs.put_data_protection_policy, logGroupIdentifier=group + "-gone", policyDocument=doc) == (
        "ResourceNotFoundException", "The specified log group does not exist.")

    logs.delete_data_protection_policy(logGroupIdentifier=group)
    assert "policyDocument" not in logs.get_data_protection_policy(logGroupIdentifier=group)
    assert "dataProtectionStatus" not in described(logs, group)
    assert refused(logs.delete_data_protection_policy, logGroupIdentifier=group)[0] == "ResourceNotFoundException"

    # A group's policy goes with the group: one made again under the name starts without it.
    logs.put_data_protection_policy(logGroupIdentifier=group, policyDocument=doc)
    logs.delete_log_group(logGroupName=group)
    logs.create_log_group(logGroupName=group)
    assert "policyDocument" not in logs.get_data_protection_policy(logGroupIdentifier=group)


def test_account_policies(logs: Any, group: str) -> None:
    name = unique("acct")
    made = logs.put_account_policy(policyName=name, policyType="DATA_PROTECTION_POLICY",
                                   policyDocument=protection())["accountPolicy"]
    assert made == {"policyName": name, "policyDocument": protection(), "lastUpdatedTime": made["lastUpdatedTime"],
                    "policyType": "DATA_PROTECTION_POLICY", "scope": "ALL", "accountId": ACCOUNT}
    assert described(logs, group)["inheritedProperties"] == ["ACCOUNT_DATA_PROTECTION"]
    # One account-level data protection policy per account: another name is refused, the same replaces.
    assert refused(logs.put_account_policy, policyName=unique("acct"), policyType="DATA_PROTECTION_POLICY",
                   policyDocument=protection())[0] == "LimitExceededException"
    logs.put_account_policy(policyName=name, policyType="DATA_PROTECTION_POLICY",
                            policyDocument=protection("arn:aws:dataprotection::aws:data-identifier/IpAddress"))
    listed = logs.describe_account_policies(policyType="DATA_PROTECTION_POLICY")["accountPolicies"]
    assert [(p["policyName"], "IpAddress" in p["policyDocument"]) for p in listed] == [(name, True)]
    assert refused(logs.put_account_policy, policyName=unique("x"), policyType="DATA_PROTECTION_POLICY",
                   policyDocument=protection(), selectionCriteria='LogGroupName NOT IN ["a"]')[0] == \
        "InvalidParameterException"
    assert refused(logs.put_account_policy, policyName="has space", policyType="FIELD_INDEX_POLICY",
                   policyDocument="{}") == ("InvalidParameterException", "Policy Name can only include alphanumeric "
                                            "characters, hyphens (-) and underscores (_)")

    index = unique("idx")
    fields = json.dumps({"Fields": ["requestId"]})
    logs.put_account_policy(policyName=index, policyType="FIELD_INDEX_POLICY", policyDocument=fields,
                            selectionCriteria='LogGroupNamePrefix IN ["/app"]')
    (found,) = logs.describe_account_policies(policyType="FIELD_INDEX_POLICY", policyName=index)["accountPolicies"]
    assert found["selectionCriteria"] == 'LogGroupNamePrefix IN ["/app"]'
    assert logs.describe_account_policies(policyType="FIELD_INDEX_POLICY",
                                          accountIdentifiers=["111111111111"])["accountPolicies"] == []
    # A policy for every group cannot stand beside ones scoped by selectionCriteria.
    assert refused(logs.put_account_policy, policyName=unique("all"), policyType="FIELD_INDEX_POLICY",
                   policyDocument=fields)[0] == "LimitExceededException"
    assert refused(logs.put_account_policy, policyName=unique("bad"), policyType="TRANSFORMER_POLICY",
                   policyDocument="[1]")[0] == "InvalidParameterException"

    logs.delete_account_policy(policyName=index, policyType="FIELD_INDEX_POLICY")
    logs.delete_account_policy(policyName=name, policyType="DATA_PROTECTION_POLICY")
    assert "inheritedProperties" not in described(logs, group)
    assert refused(logs.delete_account_policy, policyName=name, policyType="DATA_PROTECTION_POLICY")[0] == \
        "ResourceNotFoundException"
    assert logs.describe_account_policies(policyType="DATA_PROTECTION_POLICY")["accountPolicies"] == []


def test_deletion_protection_and_kms_keys(logs: Any, group: str) -> None:
    logs.put_log_group_deletion_protection(logGroupIdentifier=group, deletionProtectionEnabled=True)
    assert described(logs, group)["deletionProtectionEnabled"] is True
    assert refused(logs.delete_log_group, logGroupName=group)[0] == "ValidationException"
    assert described(logs, group)["logGroupName"] == group  # still there
    arn = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"
    logs.put_log_group_deletion_protection(logGroupIdentifier=arn, deletionProtectionEnabled=False)
    assert refused(logs.put_log_group_deletion_protection, logGroupIdentifier=group + "-gone",
                   deletionProtectionEnabled=True)[0] == "ResourceNotFoundException"

    key = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    logs.associate_kms_key(logGroupName=group, kmsKeyId=key)
    assert described(logs, group)["kmsKeyId"] == key
    logs.disassociate_kms_key(resourceIdentifier=arn)
    assert "kmsKeyId" not in described(logs, group)
    assert refused(logs.associate_kms_key, logGroupName=group + "-gone", kmsKeyId=key)[0] == \
        "ResourceNotFoundException"
    assert refused(logs.associate_kms_key, logGroupName=group, resourceIdentifier=arn, kmsKeyId=key)[0] == \
        "InvalidParameterException"

    logs.delete_log_group(logGroupName=group)
    assert logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"] == []
