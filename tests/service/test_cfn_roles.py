"""RoleARN: a stack's service role is what its operations act as (an AWSCloudFormation session of
it), checked under --enforce-iam; a role that does not exist is refused with AWS's message."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from botocore.exceptions import ClientError


def test_a_service_role_is_what_the_stack_acts_as(server_factory: Any) -> None:
    server = server_factory(extra_args=("--enforce-iam",))
    iam, cfn = server.client("iam"), server.client("cloudformation")
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "Service": "cloudformation.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="cfn-topics-only", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    iam.put_role_policy(RoleName="cfn-topics-only", PolicyName="sns", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sns:*", "Resource": "*"}]}))
    topic = json.dumps({"Resources": {"T": {"Type": "AWS::SNS::Topic"}}})
    cfn.create_stack(StackName="topics", TemplateBody=topic, RoleARN=role)
    cfn.get_waiter("stack_create_complete").wait(StackName="topics", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    assert cfn.describe_stacks(StackName="topics")["Stacks"][0]["RoleARN"] == role

    cfn.create_stack(StackName="queues", TemplateBody=json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}),
                     RoleARN=role)
    for _ in range(600):
        status = cfn.describe_stacks(StackName="queues")["Stacks"][0]["StackStatus"]
        if not status.endswith("_IN_PROGRESS"):
            break
        time.sleep(0.05)
    assert status == "ROLLBACK_COMPLETE"
    reasons = [e.get("ResourceStatusReason", "") for e in cfn.describe_stack_events(StackName="queues")["StackEvents"]
               if e["LogicalResourceId"] == "Q" and e["ResourceStatus"] == "CREATE_FAILED"]
    assert len(reasons) == 1 and "(HandlerErrorCode: AccessDenied)" in reasons[0], reasons
    assert "assumed-role/cfn-topics-only/AWSCloudFormation" in reasons[0]

    with pytest.raises(ClientError) as err:
        cfn.create_stack(StackName="nobody", TemplateBody=topic, RoleARN="arn:aws:iam::000000000000:role/none")
    assert err.value.response["Error"]["Message"] == \
        "Role arn:aws:iam::000000000000:role/none is invalid or cannot be assumed"
