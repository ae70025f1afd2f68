"""Adding and removing a replica needs dynamodb:CreateTableReplica / dynamodb:DeleteTableReplica on the table
besides dynamodb:UpdateTable (AWS's "Using IAM with global tables")."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCT, REGION = "000000000000", "us-east-1"


def _role_client(aws: Callable[..., Any], actions: list[str]) -> Any:
    role = f"gti-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole"}]}
    iam = aws("iam")
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="p", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/{role}", RoleSessionName="s1")["Credentials"]
    return aws("dynamodb", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
               session_token=creds["SessionToken"])


def test_a_replica_needs_its_own_actions(aws: Callable[..., Any]) -> None:
    name = f"gti-{uuid.uuid4().hex[:8]}"
    aws("dynamodb").create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                                 AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                                 KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    update_only = _role_client(aws, ["dynamodb:UpdateTable"])
    with pytest.raises(ClientError) as e:
        update_only.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}])
    assert e.value.response["Error"]["Code"] == "AccessDeniedException"
    assert "dynamodb:CreateTableReplica" in e.value.response["Error"]["Message"]
    assert "Replicas" not in aws("dynamodb").describe_table(TableName=name)["Table"]
    both = _role_client(aws, ["dynamodb:UpdateTable", "dynamodb:CreateTableReplica"])
    both.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "us-west-2"}}])
    with pytest.raises(ClientError) as e:
        both.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": "us-west-2"}}])
    assert "dynamodb:DeleteTableReplica" in e.value.response["Error"]["Message"]
