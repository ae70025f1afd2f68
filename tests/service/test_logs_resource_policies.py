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
    assert put["resourcePolicy"]["policyScope"] == "ACCOUNT" and put["revisionId"]
    again = logs.put_resource_policy(policyName=name, policyDocument=DOC, expectedRevisionId=put["revisionId"])
    assert again["revisionId"] != put["revisionId"]
    with pytest.raises(ClientError) as e:
        logs.put_resource_policy(policyName=name, policyDocument=DOC, expectedRevisionId=put["revisionId"])
    assert e.value.response["Error"]["Code"] == "OperationAbortedException"
    listed = logs.describe_resource_policies(policyScope="ACCOUNT")["resourcePolicies"]
    assert [p["policyDocument"] for p in listed if p["policyName"] == name] == [DOC]

    group = f"/rp/{uuid.uuid4().hex[:6]}"
    logs.create_log_group(logGroupName=group)
    arn = f"arn:aws:logs:us-east-1:000000000000:log-group:{group}"
    logs.put_resource_policy(resourceArn=arn, policyDocument=DOC)
    mine = logs.describe_resource_policies(resourceArn=arn)["resourcePolicies"]
    assert [(p["policyScope"], p["resourceArn"]) for p in mine] == [("RESOURCE", arn)]
    logs.delete_resource_policy(resourceArn=arn)
    assert logs.describe_resource_policies(resourceArn=arn)["resourcePolicies"] == []

    logs.delete_resource_policy(policyName=name)
    with pytest.raises(ClientError) as e:
        logs.delete_resource_policy(policyName=name)
    assert e.value.response["Error"]["Code"] == "ResourceNotFoundException"
    for bad, code in (({"policyName": name, "policyDocument": "[not an object"}, "InvalidParameterException"),
                      ({"resourceArn": arn + "-gone", "policyDocument": DOC}, "ResourceNotFoundException")):
        with pytest.raises(ClientError) as e:
            logs.put_resource_policy(**bad)
        assert e.value.response["Error"]["Code"] == code
    assert logs.describe_resource_policies(policyScope="ACCOUNT")["resourcePolicies"] == [
        p for p in listed if p["policyName"] != name]
