"""Logs resource policies: account-wide by name (at most 10) and one per log group, revision ids."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

DOC = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "route53.amazonaws.com"},
     "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": "*"}]})


def test_account_and_group_policies(aws: Callable[..., Any]) -> None:
    logs = aws("logs")
    name = f"p-{uuid.uuid4().hex[:6]}"
    put = logs.put_resource_policy(policyName=name, policyDocument=DOC)
    # An account-wide policy carries no revision id (snapshot-recorded on AWS).
    assert put["resourcePolicy"]["policyScope"] == "ACCOUNT" and "revisionId" not in put
    assert "revisionId" not in put["resourcePolicy"] and put["resourcePolicy"]["policyDocument"] == DOC
    listed = logs.describe_resource_policies(policyScope="ACCOUNT")["resourcePolicies"]
    assert [p["policyDocument"] for p in listed if p["policyName"] == name] == [DOC]  # nothing to rewrite

    group = f"/rp/{uuid.uuid4().hex[:6]}"
    logs.create_log_group(logGroupName=group)
    arn = f"arn:aws:logs:us-east-1:000000000000:log-group:{group}"
    first = logs.put_resource_policy(resourceArn=arn, policyDocument=DOC)
    assert first["revisionId"] == first["resourcePolicy"]["revisionId"]
    again = logs.put_resource_policy(resourceArn=arn, policyDocument=DOC, expectedRevisionId=first["revisionId"])
    assert again["revisionId"] != first["revisionId"]
    with pytest.raises(ClientError) as e:
        logs.put_resource_policy(resourceArn=arn, policyDocument=DOC, expectedRevisionId=first["revisionId"])
    assert e.value.response["Error"]["Code"] == "OperationAbortedException"
    mine = logs.describe_resource_policies(resourceArn=arn)["resourcePolicies"]
    assert [(p["policyScope"], p["resourceArn"], p["revisionId"]) for p in mine] == [
        ("RESOURCE", arn, again["revisionId"])]
    logs.delete_resource_policy(resourceArn=arn)
    assert logs.describe_resource_policies(resourceArn=arn)["resourcePolicies"] == []

    logs.delete_resource_policy(policyName=name)
    with pytest.raises(ClientError) as e:
        logs.delete_resource_policy(policyName=name)
    assert (e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]) == (
        "ResourceNotFoundException", f"Policy with name [{name}] does not exist.")
    for bad, code in (({"policyName": name, "policyDocument": "[not an object"}, "InvalidParameterException"),
                      ({"resourceArn": arn + "-gone", "policyDocument": DOC}, "ResourceNotFoundException")):
        with pytest.raises(ClientError) as e:
            logs.put_resource_policy(**bad)
        assert e.value.response["Error"]["Code"] == code
    assert logs.describe_resource_policies(policyScope="ACCOUNT")["resourcePolicies"] == [
        p for p in listed if p["policyName"] != name]


def test_described_documents_are_in_the_form_aws_stores(aws: Callable[..., Any]) -> None:
    """Recorded on AWS: a document without a Version is described with 2008-10-17, and a principal
    given as a one-element list as that principal; PutResourcePolicy answers it as given."""
    logs = aws("logs")
    name = f"p-{uuid.uuid4().hex[:6]}"
    given = json.dumps({"Statement": [{"Action": "logs:*", "Effect": "Allow",
                                       "Principal": {"Service": ["route53.amazonaws.com"]}, "Resource": "*"}]})
    assert logs.put_resource_policy(policyName=name, policyDocument=given)["resourcePolicy"]["policyDocument"] == given
    (described,) = [p for p in logs.describe_resource_policies()["resourcePolicies"] if p["policyName"] == name]
    assert json.loads(described["policyDocument"]) == {"Version": "2008-10-17", "Statement": [
        {"Action": "logs:*", "Effect": "Allow", "Principal": {"Service": "route53.amazonaws.com"}, "Resource": "*"}]}
    logs.delete_resource_policy(policyName=name)
