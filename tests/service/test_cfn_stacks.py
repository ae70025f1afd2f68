"""CloudFormation against a real server: boto3 create_stack, `aws cloudformation deploy` (change
sets), the resources checked through their own APIs, a rollback, and AWS's errors."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": [
    "lambda.amazonaws.com", "states.amazonaws.com"]}, "Action": "sts:AssumeRole"}]}

TEMPLATE = {
    "AWSTemplateFormatVersion": "2010-09-09",
    "Description": "a small app",
    "Parameters": {"Stage": {"Type": "String", "Default": "dev", "AllowedValues": ["dev", "prod"]}},
    "Conditions": {"IsProd": {"Fn::Equals": [{"Ref": "Stage"}, "prod"]}},
    "Resources": {
        "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": TRUST}},
        "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}},
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {
            "Runtime": "python3.12", "Handler": "index.handler", "Role": {"Fn::GetAtt": ["Role", "Arn"]},
            "Environment": {"Variables": {"TABLE": {"Ref": "Table"}}},
            "Code": {"ZipFile": "def handler(event, context):\n    return {'got': event}\n"}}},
        "Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
            "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]},
            "DefinitionString": json.dumps({"StartAt": "Call", "States": {"Call": {
                "Type": "Task", "Resource": "${FnArn}", "End": True}}}),
            "DefinitionSubstitutions": {"FnArn": {"Fn::GetAtt": ["Fn", "Arn"]}}}},
        "Queue": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 45}},
        "Topic": {"Type": "AWS::SNS::Topic"},
        "Bucket": {"Type": "AWS::S3::Bucket"},
        "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"RetentionInDays": 7}},
        "ProdOnly": {"Type": "AWS::SQS::Queue", "Condition": "IsProd"},
    },
    "Outputs": {
        "TableName": {"Value": {"Ref": "Table"}},
        "FnArn": {"Value": {"Fn::GetAtt": ["Fn", "Arn"]}, "Description": "the function"},
        "QueueUrl": {"Value": {"Ref": "Queue"}},
        "Joined": {"Value": {"Fn::Join": ["/", [{"Ref": "AWS::Region"}, {"Ref": "Stage"}]]}},
    },
}


def _name() -> str:
    return f"s{uuid.uuid4().hex[:8]}"


def _outputs(stack: dict[str, Any]) -> dict[str, str]:
    return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}


def test_create_stack_makes_every_resource_and_delete_removes_them(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    stack_id = cfn.create_stack(StackName=name, TemplateBody=json.dumps(TEMPLATE),
                                Capabilities=["CAPABILITY_IAM"])["StackId"]
    assert stack_id.startswith("arn:aws:cloudformation:us-east-1:") and f":stack/{name}/" in stack_id
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    assert stack["Description"] == "a small app"
    assert stack["Parameters"] == [{"ParameterKey": "Stage", "ParameterValue": "dev"}]
    out = _outputs(stack)
    assert out["Joined"] == "us-east-1/dev"

    res = {r["LogicalResourceId"]: r for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    assert set(res) == {"Role", "Table", "Fn", "Machine", "Queue", "Topic", "Bucket", "Logs"}  # ProdOnly: condition
    assert all(r["ResourceStatus"] == "CREATE_COMPLETE" for r in res.values())
    table = res["Table"]["PhysicalResourceId"]
    assert table.startswith(f"{name}-Table-") and out["TableName"] == table
    assert res["Bucket"]["PhysicalResourceId"] == res["Bucket"]["PhysicalResourceId"].lower()

    # The resources, through their own APIs.
    assert aws("dynamodb").describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE"
    fn = aws("lambda").get_function_configuration(FunctionName=res["Fn"]["PhysicalResourceId"])
    assert fn["FunctionArn"] == out["FnArn"] and fn["Environment"]["Variables"]["TABLE"] == table
    machine = aws("stepfunctions").describe_state_machine(stateMachineArn=res["Machine"]["PhysicalResourceId"])
    assert json.loads(machine["definition"])["States"]["Call"]["Resource"] == out["FnArn"]
    attrs = aws("sqs").get_queue_attributes(QueueUrl=out["QueueUrl"], AttributeNames=["VisibilityTimeout"])
    assert attrs["Attributes"]["VisibilityTimeout"] == "45"
    aws("sns").get_topic_attributes(TopicArn=res["Topic"]["PhysicalResourceId"])
    aws("s3").head_bucket(Bucket=res["Bucket"]["PhysicalResourceId"])
    groups = aws("logs").describe_log_groups(logGroupNamePrefix=res["Logs"]["PhysicalResourceId"])["logGroups"]
    assert groups[0]["retentionInDays"] == 7
    assert aws("iam").get_role(RoleName=res["Role"]["PhysicalResourceId"])["Role"]["Arn"]

    events = cfn.describe_stack_events(StackName=name)["StackEvents"]
    assert events[0]["LogicalResourceId"] == name and events[0]["ResourceStatus"] == "CREATE_COMPLETE"
    assert events[-1]["ResourceStatus"] == "CREATE_IN_PROGRESS"
    assert events[-1]["ResourceStatusReason"] == "User Initiated"
    template = cfn.get_template(StackName=name)["TemplateBody"]
    assert template["Resources"]["Topic"] == {"Type": "AWS::SNS::Topic"}

    cfn.delete_stack(StackName=name)
    with pytest.raises(ClientError) as err:
        cfn.describe_stacks(StackName=name)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert err.value.response["Error"]["Message"] == f"Stack with id {name} does not exist"
    assert cfn.describe_stacks(StackName=stack_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    with pytest.raises(ClientError):
        aws("dynamodb").describe_table(TableName=table)
    with pytest.raises(ClientError):
        aws("lambda").get_function(FunctionName=res["Fn"]["PhysicalResourceId"])


def test_a_failed_resource_rolls_the_stack_back(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    body = {"Resources": {
        "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}},
        "Vpc": {"Type": "AWS::EC2::VPC", "DependsOn": "Table", "Properties": {"CidrBlock": "10.0.0.0/16"}}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body))
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "ROLLBACK_COMPLETE"
    events = cfn.describe_stack_events(StackName=name)["StackEvents"]
    failed = [e for e in events if e["ResourceStatus"] == "CREATE_FAILED"]
    assert failed[0]["LogicalResourceId"] == "Vpc" and "AWS::EC2::VPC" in failed[0]["ResourceStatusReason"]
    rollback = next(e for e in events if e["ResourceStatus"] == "ROLLBACK_IN_PROGRESS")
    assert rollback["ResourceStatusReason"] == ("The following resource(s) failed to create: [Vpc]. Rollback "
                                                "requested by user.")
    table = [e for e in events if e["LogicalResourceId"] == "Table" and e["ResourceStatus"] == "CREATE_COMPLETE"]
    with pytest.raises(ClientError) as err:
        aws("dynamodb").describe_table(TableName=table[0]["PhysicalResourceId"])
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
    statuses = [e["ResourceStatus"] for e in reversed(events) if e["LogicalResourceId"] == name]
    assert statuses == ["CREATE_IN_PROGRESS", "ROLLBACK_IN_PROGRESS", "ROLLBACK_COMPLETE"]
    cfn.delete_stack(StackName=name)

    # OnFailure=DELETE: the failed stack is deleted instead of kept in ROLLBACK_COMPLETE.
    stack_id = cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), OnFailure="DELETE")["StackId"]
    assert cfn.describe_stacks(StackName=stack_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    events = cfn.describe_stack_events(StackName=stack_id)["StackEvents"]
    assert [(e["ResourceStatus"], e.get("ResourceStatusReason")) for e in reversed(events)
            if e["LogicalResourceId"] == name] == [
        ("CREATE_IN_PROGRESS", "User Initiated"),
        ("DELETE_IN_PROGRESS", "The following resource(s) failed to create: [Vpc]. Delete requested by user."),
        ("DELETE_COMPLETE", None)]
    assert not [s for s in cfn.list_stacks(StackStatusFilter=["ROLLBACK_COMPLETE"])["StackSummaries"]
                if s["StackId"] == stack_id]


def test_a_topic_whose_subscription_fails_leaves_nothing(aws: Any) -> None:
    cfn, sns = aws("cloudformation"), aws("sns")
    name = _name()
    topic = f"{name}-topic"
    body = {"Resources": {"Topic": {"Type": "AWS::SNS::Topic", "Properties": {
        "TopicName": topic, "Subscription": [{"Protocol": "sqs", "Endpoint": "not-a-queue-arn"}]}}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body))
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "ROLLBACK_COMPLETE"
    assert not [t for t in sns.list_topics()["Topics"] if t["TopicArn"].endswith(f":{topic}")]
    cfn.delete_stack(StackName=name)


def test_bad_input_gets_aws_errors(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    queue = {"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(queue))
    cases = [
        (dict(StackName=name, TemplateBody=json.dumps(queue)), "AlreadyExistsException",
         f"Stack [{name}] already exists"),
        (dict(StackName=_name(), TemplateBody="{not json"), "ValidationError",
         "Template format error: JSON not well-formed. (line 1, column 2)"),
        (dict(StackName=_name(), TemplateBody=json.dumps({"Resources": {
            "A": {"Type": "AWS::SQS::Queue", "DependsOn": "B"},
            "B": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": {"Fn::GetAtt": ["A", "QueueName"]}}}}})),
         "ValidationError", "Circular dependency between resources: [A, B]"),
        (dict(StackName=_name(), TemplateBody=json.dumps({"Resources": {"A": {"Type": "AWS::SQS::Queue",
                                                           "Properties": {"QueueName": {"Ref": "Nope"}}}}})),
         "ValidationError", "Template format error: Unresolved resource dependencies [Nope] in the Resources block "
                            "of the template"),
        (dict(StackName=_name(), TemplateBody=json.dumps(queue), Parameters=[{"ParameterKey": "X",
                                                                             "ParameterValue": "1"}]),
         "ValidationError", "Parameters: [X] do not exist in the template"),
        (dict(StackName=_name(), TemplateBody=json.dumps(TEMPLATE)), "InsufficientCapabilitiesException",
         "Requires capabilities : [CAPABILITY_IAM]"),
    ]
    for kwargs, code, message in cases:
        with pytest.raises(ClientError) as err:
            cfn.create_stack(**kwargs)
        assert (err.value.response["Error"]["Code"], err.value.response["Error"]["Message"]) == (code, message)
    with pytest.raises(ClientError) as err:
        cfn.describe_stack_events(StackName="never-made")
    assert err.value.response["Error"]["Message"] == "Stack with id never-made does not exist"
    with pytest.raises(ClientError) as err:
        cfn.create_change_set(StackName=name, ChangeSetName="adopt", ChangeSetType="IMPORT",
                              TemplateBody=json.dumps(queue))
    assert err.value.response["Error"]["Code"] == "ValidationError"
    assert [c["ChangeSetName"] for c in cfn.list_change_sets(StackName=name)["Summaries"]] == []
    cfn.delete_stack(StackName=name)


def test_validate_template_reports_parameters_and_capabilities(aws: Any) -> None:
    out = aws("cloudformation").validate_template(TemplateBody=json.dumps(TEMPLATE))
    assert out["Parameters"] == [{"ParameterKey": "Stage", "DefaultValue": "dev", "NoEcho": False}]
    assert out["Description"] == "a small app"
    assert out["Capabilities"] == ["CAPABILITY_IAM"]
    assert out["CapabilitiesReason"] == "The following resource(s) require capabilities: [AWS::IAM::Role]"


YAML = """\
AWSTemplateFormatVersion: 2010-09-09
Parameters:
  Prefix:
    Type: String
    Default: app
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${Prefix}-${AWS::StackName}-orders"
      BillingMode: PAY_PER_REQUEST
      AttributeDefinitions:
        - AttributeName: id
          AttributeType: S
      KeySchema:
        - AttributeName: id
          KeyType: HASH
  Events:
    Type: AWS::SQS::Queue
Outputs:
  TableArn:
    Value: !GetAtt Orders.Arn
  QueueArn:
    Value: !GetAtt [Events, Arn]
  Picked:
    Value: !Select [1, !Split [",", "a,b,c"]]
"""


def test_aws_cloudformation_deploy_with_a_yaml_template(aws: Any, aws_cli: Any, tmp_path: Path) -> None:
    name = _name()
    (tmp_path / "t.yaml").write_text(YAML)
    done = aws_cli("cloudformation", "deploy", "--template-file", str(tmp_path / "t.yaml"), "--stack-name", name,
                   "--parameter-overrides", "Prefix=web")
    assert done.returncode == 0, done.stderr
    assert f"Successfully created/updated stack - {name}" in done.stdout
    stack = aws("cloudformation").describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE"
    out = _outputs(stack)
    assert out["TableArn"].endswith(f":table/web-{name}-orders") and out["Picked"] == "b"
    aws("dynamodb").describe_table(TableName=f"web-{name}-orders")
    assert out["QueueArn"].startswith("arn:aws:sqs:us-east-1:")

    # The same template again: an empty change set, which the CLI reports (and fails on by default).
    again = aws_cli("cloudformation", "deploy", "--template-file", str(tmp_path / "t.yaml"), "--stack-name", name,
                    "--parameter-overrides", "Prefix=web")
    assert again.returncode == 255 and f"No changes to deploy. Stack {name} is up to date" in again.stderr
    again = aws_cli("cloudformation", "deploy", "--template-file", str(tmp_path / "t.yaml"), "--stack-name", name,
                    "--parameter-overrides", "Prefix=web", "--no-fail-on-empty-changeset")
    assert again.returncode == 0, again.stderr

    done = aws_cli("cloudformation", "delete-stack", "--stack-name", name)
    assert done.returncode == 0, done.stderr
    with pytest.raises(ClientError):
        aws("dynamodb").describe_table(TableName=f"web-{name}-orders")


def test_stack_events_and_lists_come_in_pages_of_100(aws: Any) -> None:
    cfn, name = aws("cloudformation"), _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(
        {"Resources": {f"Q{i}": {"Type": "AWS::SQS::Queue"} for i in range(40)}}))
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    pages = list(cfn.get_paginator("describe_stack_events").paginate(StackName=name))
    assert [len(p["StackEvents"]) for p in pages] == [100, 22]  # 3 events a queue, 2 of the stack
    events = [e for p in pages for e in p["StackEvents"]]
    assert len({e["EventId"] for e in events}) == 122
    assert (events[0]["LogicalResourceId"], events[0]["ResourceStatus"]) == (name, "CREATE_COMPLETE")
    assert (events[-1]["LogicalResourceId"], events[-1]["ResourceStatus"]) == (name, "CREATE_IN_PROGRESS")
    resources = cfn.list_stack_resources(StackName=name)
    assert len(resources["StackResourceSummaries"]) == 40 and "NextToken" not in resources
    with pytest.raises(ClientError) as err:
        cfn.describe_stack_events(StackName=name, NextToken="not-a-token")
    assert err.value.response["Error"]["Code"] == "ValidationError"
    cfn.delete_stack(StackName=name)
