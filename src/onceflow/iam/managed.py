"""AWS managed policies every account can attach (arn:aws:iam::aws:policy/...).

Only the documents written here exist; they are the published default versions of these policies
(only the default version of each is served, made at the policy's last edit).
"""

from __future__ import annotations

import json
from typing import Any

_CREATED = "2015-02-06T18:39:46+00:00"  # AdministratorAccess's, and the ones not listed below
# (created, last edited, default version) from the AWS Managed Policy Reference, to the minute; the
# default version dates from the last edit. AWSLambdaBasicExecutionRole's 15:03:43 and
# IAMUserChangePassword's 00:25:16 are moto's records of AWS's answers (test_get_aws_managed_policy,
# test_get_aws_managed_policy_version); the other seconds are UNCONFIRMED.
_HISTORY = {
    "AWSLambdaBasicExecutionRole": ("2015-04-09T15:03:43+00:00", "2015-04-09T15:03:43+00:00", "v1"),
    "AWSLambdaRole": ("2015-02-06T18:41:00+00:00", "2015-02-06T18:41:00+00:00", "v1"),
    "AWSLambdaDynamoDBExecutionRole": ("2015-04-09T15:09:00+00:00", "2015-04-09T15:09:00+00:00", "v1"),
    "IAMUserChangePassword": ("2016-11-15T00:25:16+00:00", "2025-05-29T21:52:00+00:00", "v3"),
}

_DOCS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    # name: (path, policy id, description, document)
    "AdministratorAccess": (
        "/",
        "ANPAIWMBCKSKIEE64ZLYK",
        "Provides full access to AWS services and resources.",
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]},
    ),
    "AWSLambdaBasicExecutionRole": (
        "/service-role/",
        "ANPAJNCQGXC42545SKXIK",
        "Provides write permissions to CloudWatch Logs.",
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
                    "Resource": "*",
                }
            ],
        },
    ),
    "AWSLambdaRole": (
        "/service-role/",
        "ANPAJX4DPCRGTC4NFDUXI",
        "Default policy for AWS Lambda service role.",
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": ["lambda:InvokeFunction"], "Resource": ["*"]}],
        },
    ),
    "AWSLambdaDynamoDBExecutionRole": (
        "/service-role/",
        "ANPAIP7WNAGMIPYNW4WQG",
        "Provides list and read access to DynamoDB streams and write permissions to CloudWatch logs.",
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": [
                        "dynamodb:DescribeStream",
                        "dynamodb:GetRecords",
                        "dynamodb:GetShardIterator",
                        "dynamodb:ListStreams",
                        "logs:CreateLogGroup",
                        "logs:CreateLogStream",
                        "logs:PutLogEvents",
                    ],
                    "Resource": "*",
                }
            ],
        },
    ),
    # What the IAM User Guide gives users to change their own password (ChangePassword). Its policy
    # id is onceflow's.
    "IAMUserChangePassword": (
        "/",
        "ANPAONCEFLOWCHANGEPW1",
        "Provides the ability for an IAM user to change their own password.",
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["iam:ChangePassword"],
                    "Resource": ["arn:aws:iam::*:user/${aws:username}", "arn:aws:iam::*:user/*/${aws:username}"],
                },
                {"Effect": "Allow", "Action": ["iam:GetAccountPasswordPolicy"], "Resource": "*"},
            ],
        },
    ),
    # SAM's SQS and Kinesis event sources attach these to the function's role. Their policy ids are
    # onceflow's (AWS does not publish them); the documents are AWS's default versions.
    "AWSLambdaSQSQueueExecutionRole": (
        "/service-role/",
        "ANPAONCEFLOWSQSQUEUEEX",
        "Provides receive message, delete message, and read attribute access to SQS queues, and write "
        "permissions to CloudWatch logs.",
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": [
                        "sqs:ReceiveMessage",
                        "sqs:DeleteMessage",
                        "sqs:GetQueueAttributes",
                        "logs:CreateLogGroup",
                        "logs:CreateLogStream",
                        "logs:PutLogEvents",
                    ],
                    "Resource": "*",
                }
            ],
        },
    ),
    "AWSLambdaKinesisExecutionRole": (
        "/service-role/",
        "ANPAONCEFLOWKINESISEX",
        "Provides list and read access to Kinesis streams and write permissions to CloudWatch logs.",
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": [
                        "kinesis:DescribeStream",
                        "kinesis:DescribeStreamSummary",
                        "kinesis:GetRecords",
                        "kinesis:GetShardIterator",
                        "kinesis:ListShards",
                        "kinesis:ListStreams",
                        "kinesis:SubscribeToShard",
                        "logs:CreateLogGroup",
                        "logs:CreateLogStream",
                        "logs:PutLogEvents",
                    ],
                    "Resource": "*",
                }
            ],
        },
    ),
}


def _policy(name: str) -> dict[str, Any]:
    path, policy_id, description, doc = _DOCS[name]
    created, updated, default_version = _HISTORY.get(name, (_CREATED, _CREATED, "v1"))
    return {
        "name": name,
        "path": path,
        "arn": f"arn:aws:iam::aws:policy{path}{name}",
        "policy_id": policy_id,
        "description": description,
        "created": created,
        "updated": updated,
        "default_version": default_version,
        "document": json.dumps(doc, indent=4),
        "tags": [],
        "aws_managed": True,
    }


AWS_POLICIES: dict[str, dict[str, Any]] = {p["arn"]: p for p in (_policy(n) for n in _DOCS)}


def aws_policies(partition: str = "aws") -> list[dict[str, Any]]:
    """The AWS managed policies as a region of `partition` lists them (arn:aws-cn:iam::aws:policy/...)."""
    if partition == "aws":
        return list(AWS_POLICIES.values())
    return [{**p, "arn": f"arn:{partition}:{p['arn'].split(':', 2)[2]}"} for p in AWS_POLICIES.values()]


def aws_managed(arn: str) -> dict[str, Any] | None:
    """The AWS managed policy `arn` names in any partition (arn:aws-cn:iam::aws:policy/... too)."""
    parts = arn.split(":", 2)
    if len(parts) < 3 or parts[1] == "aws":
        return AWS_POLICIES.get(arn)
    found = AWS_POLICIES.get(f"arn:aws:{parts[2]}")
    return None if found is None else {**found, "arn": arn}
