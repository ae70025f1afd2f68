"""Every service names the partition of the caller's region in the ARNs it builds (botocore's
partitions.json: aws-cn for cn-*, aws-us-gov for us-gov-*), as IAM, STS, DynamoDB and Step Functions
already did (test_iam_partitions.py): Lambda's functions, aliases, layers, runtime versions and its
not-found message, SQS queues, SNS topics, EventBridge rules and buses, Scheduler groups and
CloudFormation stacks; and a role policy written with the partition's own ARN grants what it names.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import zip_of

ACCOUNT = "000000000000"
REGIONS = [("cn-north-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov")]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def role_for(aws: Callable[..., Any], region: str, services: list[str], policy: dict[str, Any] | None = None) -> str:
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": services}, "Action": "sts:AssumeRole"}]}
    iam = aws("iam", region=region)
    name = unique("part")
    arn = str(iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"])
    if policy is not None:
        iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=json.dumps(policy))
    return arn


@pytest.mark.parametrize(("region", "partition"), REGIONS)
def test_lambda_arns_name_the_partition(aws: Callable[..., Any], region: str, partition: str) -> None:
    lam = aws("lambda", region=region)
    name = unique("fn")
    made = lam.create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler",
                               Role=role_for(aws, region, ["lambda.amazonaws.com"]), Code={"ZipFile": zip_of()})
    base = f"arn:{partition}:lambda:{region}:{ACCOUNT}"
    assert made["FunctionArn"] == f"{base}:function:{name}"
    assert made["RuntimeVersionConfig"]["RuntimeVersionArn"].startswith(f"arn:{partition}:lambda:{region}::runtime:")
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    assert lam.create_alias(FunctionName=name, Name="live", FunctionVersion="$LATEST")["AliasArn"] == (
        f"{base}:function:{name}:live")
    layer = lam.publish_layer_version(LayerName=unique("layer"), Content={"ZipFile": zip_of()})
    assert layer["LayerVersionArn"].startswith(f"{base}:layer:")
    # An account as the principal is written as that account's root in the function's partition.
    lam.add_permission(FunctionName=name, StatementId="peer", Action="lambda:InvokeFunction", Principal="111122223333")
    granted = json.loads(lam.get_policy(FunctionName=name)["Policy"])["Statement"][0]
    assert granted["Principal"] == {"AWS": f"arn:{partition}:iam::111122223333:root"}
    lam.add_layer_version_permission(LayerName=layer["LayerArn"], VersionNumber=layer["Version"], StatementId="peer",
                                     Action="lambda:GetLayerVersion", Principal="111122223333")
    shared = json.loads(lam.get_layer_version_policy(LayerName=layer["LayerArn"],
                                                     VersionNumber=layer["Version"])["Policy"])
    assert shared["Statement"][0]["Principal"] == {"AWS": f"arn:{partition}:iam::111122223333:root"}
    with pytest.raises(ClientError) as missing:
        lam.get_function(FunctionName="no-such-function")
    assert missing.value.response["Error"]["Message"] == f"Function not found: {base}:function:no-such-function"


@pytest.mark.parametrize(("region", "partition"), REGIONS)
def test_messaging_and_stack_arns_name_the_partition(aws: Callable[..., Any], region: str, partition: str) -> None:
    sqs = aws("sqs", region=region)
    queue = unique("q")
    url = sqs.create_queue(QueueName=queue)["QueueUrl"]
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"] == (
        f"arn:{partition}:sqs:{region}:{ACCOUNT}:{queue}")
    sqs.add_permission(QueueUrl=url, Label="peer", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    policy = json.loads(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"])
    assert policy["Statement"][0]["Principal"] == {"AWS": f"arn:{partition}:iam::111122223333:root"}
    topic = unique("t")
    sns = aws("sns", region=region)
    topic_arn = sns.create_topic(Name=topic)["TopicArn"]
    assert topic_arn == f"arn:{partition}:sns:{region}:{ACCOUNT}:{topic}"
    sns.add_permission(TopicArn=topic_arn, Label="peer", AWSAccountId=["111122223333"], ActionName=["Publish"])
    policy = json.loads(sns.get_topic_attributes(TopicArn=topic_arn)["Attributes"]["Policy"])
    assert [s["Principal"] for s in policy["Statement"] if s.get("Sid") == "peer"] == [
        {"AWS": f"arn:{partition}:iam::111122223333:root"}]
    events = aws("events", region=region)
    rule = unique("r")
    assert events.put_rule(Name=rule, ScheduleExpression="rate(1 hour)")["RuleArn"] == (
        f"arn:{partition}:events:{region}:{ACCOUNT}:rule/{rule}")
    bus = unique("bus")
    assert events.create_event_bus(Name=bus)["EventBusArn"] == (
        f"arn:{partition}:events:{region}:{ACCOUNT}:event-bus/{bus}")
    group = unique("g")
    assert aws("scheduler", region=region).create_schedule_group(Name=group)["ScheduleGroupArn"] == (
        f"arn:{partition}:scheduler:{region}:{ACCOUNT}:schedule-group/{group}")
    stack = unique("s")
    template = {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    stack_id = aws("cloudformation", region=region).create_stack(StackName=stack, TemplateBody=json.dumps(template))
    assert stack_id["StackId"].startswith(f"arn:{partition}:cloudformation:{region}:{ACCOUNT}:stack/{stack}/")


def test_a_role_policy_in_the_partitions_arns_lets_a_workflow_invoke(aws: Callable[..., Any]) -> None:
    region, partition = REGIONS[0]
    lam = aws("lambda", region=region)
    name = unique("fn")
    lam.create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler",
                        Role=role_for(aws, region, ["lambda.amazonaws.com"]), Code={"ZipFile": zip_of()})
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    # What a user in cn-north-1 writes: the function's ARN in its own partition, no wildcard.
    function_arn = f"arn:{partition}:lambda:{region}:{ACCOUNT}:function:{name}"
    allow = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": function_arn}]}
    role = role_for(aws, region, ["states.amazonaws.com"], allow)
    definition = {"StartAt": "Call", "States": {"Call": {
        "Type": "Task", "Resource": "arn:aws-cn:states:::lambda:invoke",
        "Parameters": {"FunctionName": name, "Payload": {"n": 1}}, "OutputPath": "$.Payload", "End": True}}}
    sfn = aws("stepfunctions", region=region)
    machine = sfn.create_state_machine(name=unique("m"), roleArn=role, definition=json.dumps(definition))
    run = sfn.start_execution(stateMachineArn=machine["stateMachineArn"], input="{}")["executionArn"]
    deadline = time.time() + 60
    while (done := sfn.describe_execution(executionArn=run))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    assert done["status"] == "SUCCEEDED", done.get("cause")
    assert json.loads(done["output"]) == {"n": 1}
