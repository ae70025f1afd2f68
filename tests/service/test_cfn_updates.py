"""Stack updates: a function's code, a table's GSI and a state machine's definition changed in
place, a resource added and one removed, a renamed queue replaced; a failed update rolled back;
`deploy` of a changed template through an UPDATE change set."""

from __future__ import annotations

import copy
import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": [
    "lambda.amazonaws.com", "states.amazonaws.com"]}, "Action": "sts:AssumeRole"}]}
KEY = [{"AttributeName": "pk", "AttributeType": "S"}]


def _template(code: str, state: str) -> dict[str, Any]:
    return {"Resources": {
        "Role": {"Type": "AWS::IAM::Role", "Properties": {"AssumeRolePolicyDocument": TRUST}},
        "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": KEY,
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}},
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {
            "Runtime": "python3.12", "Handler": "index.handler", "Role": {"Fn::GetAtt": ["Role", "Arn"]},
            "Code": {"ZipFile": code}}},
        "Machine": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
            "RoleArn": {"Fn::GetAtt": ["Role", "Arn"]},
            "Definition": {"StartAt": state, "States": {state: {"Type": "Pass", "End": True}}}}},
        "Topic": {"Type": "AWS::SNS::Topic"},
    }}


def _resources(cfn: Any, name: str) -> dict[str, str]:
    return {r["LogicalResourceId"]: r["PhysicalResourceId"]
            for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}


def _answer(aws: Any, fn: str) -> Any:
    """What the function's code returns (which code it runs)."""
    return json.loads(aws("lambda").invoke(FunctionName=fn, Payload=b"{}")["Payload"].read())


def test_update_changes_only_what_changed(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = f"u{uuid.uuid4().hex[:8]}"
    first = _template("def handler(e, c):\n    return 1\n", "One")
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(first), Capabilities=["CAPABILITY_IAM"])
    before = _resources(cfn, name)

    second = copy.deepcopy(first)
    second["Resources"]["Fn"]["Properties"]["Code"]["ZipFile"] = "def handler(e, c):\n    return 2\n"
    second["Resources"]["Machine"]["Properties"]["Definition"] = {"StartAt": "Two", "States": {
        "Two": {"Type": "Pass", "End": True}}}
    second["Resources"]["Table"]["Properties"]["AttributeDefinitions"] = [*KEY, {"AttributeName": "g",
                                                                               "AttributeType": "S"}]
    second["Resources"]["Table"]["Properties"]["GlobalSecondaryIndexes"] = [{
        "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}]
    del second["Resources"]["Topic"]
    second["Resources"]["Queue"] = {"Type": "AWS::SQS::Queue"}
    cfn.update_stack(StackName=name, TemplateBody=json.dumps(second), Capabilities=["CAPABILITY_IAM"])
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "UPDATE_COMPLETE" and "LastUpdatedTime" in stack
    after = _resources(cfn, name)
    assert set(after) == {"Role", "Table", "Fn", "Machine", "Queue"}
    assert all(after[k] == before[k] for k in ("Role", "Table", "Fn", "Machine"))  # updated in place
    assert _answer(aws, after["Fn"]) == 2
    definition = aws("stepfunctions").describe_state_machine(stateMachineArn=after["Machine"])["definition"]
    assert json.loads(definition)["StartAt"] == "Two"
    gsis = aws("dynamodb").describe_table(TableName=after["Table"])["Table"]["GlobalSecondaryIndexes"]
    assert [g["IndexName"] for g in gsis] == ["byG"]
    with pytest.raises(ClientError):
        aws("sns").get_topic_attributes(TopicArn=before["Topic"])
    aws("sqs").get_queue_attributes(QueueUrl=after["Queue"])
    statuses = [e["ResourceStatus"] for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
                if e["LogicalResourceId"] == name][:3]
    assert statuses == ["UPDATE_COMPLETE", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS", "UPDATE_IN_PROGRESS"]

    with pytest.raises(ClientError) as err:
        cfn.update_stack(StackName=name, TemplateBody=json.dumps(second), Capabilities=["CAPABILITY_IAM"])
    assert err.value.response["Error"]["Message"] == "No updates are to be performed."

    # A failed update rolls back: the added queue goes, the function keeps its code.
    third = copy.deepcopy(second)
    third["Resources"]["Fn"]["Properties"]["Code"]["ZipFile"] = "def handler(e, c):\n    return 3\n"
    third["Resources"]["Extra"] = {"Type": "AWS::SQS::Queue"}
    third["Resources"]["Vpc"] = {"Type": "AWS::EC2::VPC", "DependsOn": ["Fn", "Extra"]}
    cfn.update_stack(StackName=name, TemplateBody=json.dumps(third), Capabilities=["CAPABILITY_IAM"])
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
    assert _resources(cfn, name) == after
    assert _answer(aws, after["Fn"]) == 2
    events = cfn.describe_stack_events(StackName=name)["StackEvents"]
    extra = [e for e in events if e["LogicalResourceId"] == "Extra" and e["PhysicalResourceId"]]
    with pytest.raises(ClientError):
        aws("sqs").get_queue_attributes(QueueUrl=extra[0]["PhysicalResourceId"])
    cfn.delete_stack(StackName=name)


YAML = """\
Parameters:
  Visibility: {Type: Number, Default: 30}
  Name: {Type: String, Default: first}
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      QueueName: !Sub "${AWS::StackName}-${Name}"
      VisibilityTimeout: !Ref Visibility
Outputs:
  Url: {Value: !Ref Queue}
"""


def test_deploy_updates_through_a_change_set(aws: Any, aws_cli: Any, tmp_path: Path) -> None:
    name = f"u{uuid.uuid4().hex[:8]}"
    (tmp_path / "t.yaml").write_text(YAML)
    deploy = ["cloudformation", "deploy", "--template-file", str(tmp_path / "t.yaml"), "--stack-name", name]
    assert aws_cli(*deploy).returncode == 0
    cfn = aws("cloudformation")
    url = cfn.describe_stacks(StackName=name)["Stacks"][0]["Outputs"][0]["OutputValue"]

    done = aws_cli(*deploy, "--parameter-overrides", "Visibility=60")
    assert done.returncode == 0, done.stderr
    attrs = aws("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attrs == {"VisibilityTimeout": "60"}

    # A new name replaces the queue: a new one is made, the old one deleted.
    created = cfn.create_change_set(StackName=name, ChangeSetName="rename", TemplateBody=YAML, Parameters=[
        {"ParameterKey": "Name", "ParameterValue": "second"}, {"ParameterKey": "Visibility",
                                                              "UsePreviousValue": True}])
    cs = cfn.describe_change_set(ChangeSetName=created["Id"])
    assert cs["Status"] == "CREATE_COMPLETE" and cs["ExecutionStatus"] == "AVAILABLE"
    change = cs["Changes"][0]["ResourceChange"]
    assert (change["Action"], change["LogicalResourceId"], change["Replacement"]) == ("Modify", "Queue", "True")
    target = {"Attribute": "Properties", "Name": "QueueName", "RequiresRecreation": "Always"}
    assert (change["PolicyAction"], change["Scope"], change["Details"]) == ("ReplaceAndDelete", ["Properties"], [
        {"Target": target, "Evaluation": "Static", "ChangeSource": "ParameterReference", "CausingEntity": "Name"},
        {"Target": target, "Evaluation": "Dynamic", "ChangeSource": "DirectModification"}])
    cfn.execute_change_set(ChangeSetName="rename", StackName=name)
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "UPDATE_COMPLETE"
    new_url = stack["Outputs"][0]["OutputValue"]
    assert new_url.endswith(f"/{name}-second")
    assert aws("sqs").get_queue_attributes(QueueUrl=new_url, AttributeNames=["VisibilityTimeout"])[
        "Attributes"] == {"VisibilityTimeout": "60"}
    with pytest.raises(ClientError):
        aws("sqs").get_queue_attributes(QueueUrl=url)
    cfn.delete_stack(StackName=name)


def test_an_update_with_rollback_disabled_stays_as_the_failure_left_it(aws: Any) -> None:
    """DisableRollback on UpdateStack: the failed update ends at UPDATE_FAILED with what it changed
    kept; the next update starts from there."""
    cfn, sqs = aws("cloudformation"), aws("sqs")
    name = f"u{uuid.uuid4().hex[:8]}"
    queue = {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": {"Jobs": queue}}))
    url = _resources(cfn, name)["Jobs"]
    broken = {"Resources": {"Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
                            "Nope": {"Type": "AWS::EC2::VPC", "DependsOn": "Jobs",
                                     "Properties": {"CidrBlock": "10.0.0.0/16"}}}}
    cfn.update_stack(StackName=name, TemplateBody=json.dumps(broken), DisableRollback=True)
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert (stack["StackStatus"], stack["StackStatusReason"]) == (
        "UPDATE_FAILED", "The following resource(s) failed to create: [Nope]. ")
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "60"}
    cfn.update_stack(StackName=name, TemplateBody=json.dumps({"Resources": {"Jobs": {
        "Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 90}}}}))
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert sorted(_resources(cfn, name)) == ["Jobs"]
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "90"}
    cfn.delete_stack(StackName=name)


def test_rollback_stack_returns_a_stack_disable_rollback_left_to_its_last_stable_state(aws: Any) -> None:
    """RollbackStack: an update left at UPDATE_FAILED goes back to the stack before it
    (UPDATE_ROLLBACK_COMPLETE); a create left at CREATE_FAILED has no stable state, so its
    resources go (ROLLBACK_COMPLETE); any other state is refused and nothing changes."""
    cfn, sqs = aws("cloudformation"), aws("sqs")
    name = f"r{uuid.uuid4().hex[:8]}"
    queue = {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}}
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": {"Jobs": queue}}))
    with pytest.raises(ClientError) as exc:
        cfn.rollback_stack(StackName=name)
    assert exc.value.response["Error"]["Code"] == "ValidationError"
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    url = _resources(cfn, name)["Jobs"]
    broken = {"Resources": {"Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
                            "Nope": {"Type": "AWS::EC2::VPC", "DependsOn": "Jobs",
                                     "Properties": {"CidrBlock": "10.0.0.0/16"}}}}
    cfn.update_stack(StackName=name, TemplateBody=json.dumps(broken), DisableRollback=True)
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "UPDATE_FAILED"
    stack_id = cfn.rollback_stack(StackName=name)["StackId"]
    assert stack_id == cfn.describe_stacks(StackName=name)["Stacks"][0]["StackId"]
    deadline = time.time() + 60
    while (status := cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]).endswith("IN_PROGRESS"):
        assert time.time() < deadline
        time.sleep(0.1)
    assert status == "UPDATE_ROLLBACK_COMPLETE"
    assert sorted(_resources(cfn, name)) == ["Jobs"]
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "30"}
    statuses = [e["ResourceStatus"] for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
                if e["LogicalResourceId"] == name]
    assert statuses.count("UPDATE_ROLLBACK_IN_PROGRESS") == 1
    cfn.delete_stack(StackName=name)

    failed = f"c{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=failed, DisableRollback=True, TemplateBody=json.dumps({"Resources": {
        "Jobs": queue, "Nope": {"Type": "AWS::EC2::VPC", "DependsOn": "Jobs",
                                "Properties": {"CidrBlock": "10.0.0.0/16"}}}}))
    assert cfn.describe_stacks(StackName=failed)["Stacks"][0]["StackStatus"] == "CREATE_FAILED"
    made = _resources(cfn, failed)["Jobs"]
    cfn.rollback_stack(StackName=failed)
    deadline = time.time() + 60
    while (status := cfn.describe_stacks(StackName=failed)["Stacks"][0]["StackStatus"]).endswith("IN_PROGRESS"):
        assert time.time() < deadline
        time.sleep(0.1)
    assert status == "ROLLBACK_COMPLETE"
    with pytest.raises(ClientError):
        sqs.get_queue_attributes(QueueUrl=made)
    cfn.delete_stack(StackName=failed)
