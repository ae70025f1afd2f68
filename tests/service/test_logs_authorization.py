"""Logs calls made with an assumed role's keys are authorized against the ARNs AWS evaluates."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCT, REGION = "000000000000", "us-east-1"


def test_role_policy_on_group_arn_with_wildcard_covers_group_and_stream_actions(aws: Callable[..., Any]) -> None:
    role, prefix = f"logger-{uuid.uuid4().hex[:8]}", f"/allowed-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": f"arn:aws:logs:{REGION}:{ACCT}:log-group:{prefix}/*:*"}]}
    iam = aws("iam")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="logs", PolicyDocument=json.dumps(policy))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/{role}", RoleSessionName="s1")["Credentials"]
    logs = aws("logs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])

    group = f"{prefix}/app"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    logs.put_log_events(logGroupName=group, logStreamName="s",
                        logEvents=[{"timestamp": int(time.time() * 1000), "message": "allowed"}])

    with pytest.raises(ClientError) as denied:
        logs.create_log_group(logGroupName=f"/denied-{uuid.uuid4().hex[:8]}")
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    assert ":log-stream: because no identity-based policy allows the logs:CreateLogGroup action" in (
        denied.value.response["Error"]["Message"])
    with pytest.raises(ClientError) as read_denied:
        logs.get_log_events(logGroupName=group, logStreamName="s")
    assert read_denied.value.response["Error"]["Message"].endswith(
        f"on resource: arn:aws:logs:{REGION}:{ACCT}:log-group:{group}:log-stream:s because no identity-based "
        "policy allows the logs:GetLogEvents action")
    events = aws("logs").get_log_events(logGroupName=group, logStreamName="s")["events"]
    assert [e["message"] for e in events] == ["allowed"]


def test_source_ip_is_the_callers_address_whatever_x_forwarded_for_says(aws: Callable[..., Any]) -> None:
    role = f"ip-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "logs:DescribeLogGroups", "Resource": "*",
         "Condition": {"IpAddress": {"aws:SourceIp": "127.0.0.1/32"}}},
        {"Effect": "Allow", "Action": "logs:DescribeLogStreams", "Resource": "*",
         "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/8"}}}]}
    iam = aws("iam")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="ip", PolicyDocument=json.dumps(policy))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/{role}", RoleSessionName="s1")["Credentials"]
    logs = aws("logs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])

    def claim_another_address(request: Any, **_: Any) -> None:
        request.headers["X-Forwarded-For"] = "10.1.2.3"

    logs.meta.events.register("before-send.cloudwatch-logs", claim_another_address)
    logs.describe_log_groups()  # the caller is on loopback
    with pytest.raises(ClientError) as denied:
        logs.describe_log_streams(logGroupName="/any")
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
