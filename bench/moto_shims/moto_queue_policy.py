"""A pytest plugin for bench/moto_suites.py (`--shim-queue-policy`): moto's SNS and EventBridge tests
subscribe a queue to a topic (or make it a rule's target) and expect the messages there, but never
give the queue a policy. On AWS the queue's policy must let the service principal
(sns.amazonaws.com, events.amazonaws.com) send to it, or nothing arrives (SNS's and EventBridge's
guides); onceflow holds that rule, so those tests fail on delivery and hide whatever else they
check. After a Subscribe with Protocol=sqs, or a PutTargets naming queues, this gives each such
queue that has no Policy one that lets that service send to it, which is what a user on AWS
writes. It changes what the tests send, not what onceflow answers; run without it for the issue's
figure, with it to see what fails behind the missing policy."""

from __future__ import annotations

import json
from typing import Any

import botocore.client
import botocore.exceptions

_original = botocore.client.BaseClient._make_api_call


def _grant(client: Any, queue_arn: str, service: str) -> None:
    parts = queue_arn.split(":")
    if len(parts) != 6 or parts[2] != "sqs":
        return
    region, account, name = parts[3], parts[4], parts[5]
    import boto3  # moto's test environment has it; imported late so the plugin loads first

    sqs = boto3.client("sqs", region_name=region, endpoint_url=client.meta.endpoint_url)
    try:
        url = _original(sqs, "GetQueueUrl", {"QueueName": name, "QueueOwnerAWSAccountId": account})["QueueUrl"]
        attributes = _original(sqs, "GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["Policy"]})
        if "Policy" in attributes.get("Attributes", {}):
            return
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": service},
                    "Action": "sqs:SendMessage",
                    "Resource": queue_arn,
                }
            ],
        }
        _original(sqs, "SetQueueAttributes", {"QueueUrl": url, "Attributes": {"Policy": json.dumps(policy)}})
    except botocore.exceptions.ClientError:
        pass  # no such queue (a test of a refusal): leave it to the test


def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
    answer = _original(self, operation_name, api_params)
    service = self.meta.service_model.service_name
    if service == "sns" and operation_name == "Subscribe" and api_params.get("Protocol") == "sqs":
        _grant(self, str(api_params.get("Endpoint", "")), "sns.amazonaws.com")
    elif service == "events" and operation_name == "PutTargets":
        for target in api_params.get("Targets", []):
            _grant(self, str(target.get("Arn", "")), "events.amazonaws.com")
    return answer


def pytest_configure(config: Any) -> None:
    botocore.client.BaseClient._make_api_call = _make_api_call  # type: ignore[method-assign]
