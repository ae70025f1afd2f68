"""AWS::CloudFormation::Stack: a nested stack from a template in onceflow's S3, its outputs read
by the parent, updated in place with new parameters, deleted with it; a failing nested stack fails
and rolls back its parent."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

CHILD = {
    "Parameters": {"Visibility": {"Type": "Number"}},
    "Resources": {"Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": {"Ref": "Visibility"}}}},
    "Outputs": {"QueueUrl": {"Value": {"Ref": "Jobs"}}},
}
BROKEN = {"Resources": {"Nope": {"Type": "AWS::EC2::VPC", "Properties": {"CidrBlock": "10.0.0.0/16"}}}}


def _parent(url: str, **parameters: Any) -> str:
    return json.dumps({
        "Resources": {"Child": {"Type": "AWS::CloudFormation::Stack", "Properties": {
            "TemplateURL": url, "Parameters": parameters}}},
        "Outputs": {"Url": {"Value": {"Fn::GetAtt": ["Child", "Outputs.QueueUrl"]}}},
    })


def test_a_nested_stack_is_made_read_and_deleted_with_its_parent(aws: Any) -> None:
    s3, cfn, tag = aws("s3"), aws("cloudformation"), uuid.uuid4().hex[:8]
    bucket = f"nested-{tag}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="child.json", Body=json.dumps(CHILD).encode())
    name = f"parent-{tag}"
    body = _parent(f"https://s3.amazonaws.com/{bucket}/child.json", Visibility=45)
    cfn.create_stack(StackName=name, TemplateBody=body)
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    url = stack["Outputs"][0]["OutputValue"]
    attrs = aws("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attrs == {"VisibilityTimeout": "45"}
    child_id = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Child")[
        "StackResourceDetail"]["PhysicalResourceId"]
    child = cfn.describe_stacks(StackName=child_id)["Stacks"][0]
    assert child["StackStatus"] == "CREATE_COMPLETE" and child["StackName"].startswith(f"{name}-Child-")
    assert child["ParentId"] == child["RootId"] == stack["StackId"]

    # New parameters: the nested stack is updated in place (the same stack, the same queue).
    cfn.update_stack(StackName=name, TemplateBody=_parent(f"https://s3.amazonaws.com/{bucket}/child.json",
                                                          Visibility=90))
    cfn.get_waiter("stack_update_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    assert cfn.describe_stack_resource(StackName=name, LogicalResourceId="Child")[
        "StackResourceDetail"]["PhysicalResourceId"] == child_id
    assert cfn.describe_stacks(StackName=child_id)["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    attrs = aws("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert attrs == {"VisibilityTimeout": "90"}

    cfn.delete_stack(StackName=name)
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack["StackId"], WaiterConfig={"Delay": 1})
    assert cfn.describe_stacks(StackName=child_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    assert url not in aws("sqs").list_queues().get("QueueUrls", [])


def test_a_failing_nested_stack_rolls_its_parent_back(aws: Any) -> None:
    s3, cfn, tag = aws("s3"), aws("cloudformation"), uuid.uuid4().hex[:8]
    bucket = f"nested-{tag}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="broken.json", Body=json.dumps(BROKEN).encode())
    name = f"parent-{tag}"
    body = json.loads(_parent(f"https://{bucket}.s3.amazonaws.com/broken.json"))
    del body["Outputs"]
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(body))
    for _ in range(600):  # boto3's stack_rollback_complete waits for UPDATE_ROLLBACK_COMPLETE: poll
        status = cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
        if not status.endswith("_IN_PROGRESS"):
            break
        time.sleep(0.05)
    assert status == "ROLLBACK_COMPLETE"
    failed = [e for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
              if e["LogicalResourceId"] == "Child" and e["ResourceStatus"] == "CREATE_FAILED"]
    assert len(failed) == 1
    reason = failed[0]["ResourceStatusReason"]
    assert reason.startswith("Embedded stack arn:aws:cloudformation:us-east-1:") and reason.endswith(
        " was not successfully created: The following resource(s) failed to create: [Nope]. ")
    child_id = reason.split()[2]
    assert cfn.describe_stacks(StackName=child_id)["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"


ROLE_CHILD = {"Resources": {"Worker": {"Type": "AWS::IAM::Role", "Properties": {
    "RoleName": {"Fn::Sub": "${AWS::StackName}-worker"}, "AssumeRolePolicyDocument": {
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"},
                                                "Action": "sts:AssumeRole"}]}}}}}


def _settle(cfn: Any, name: str) -> str:
    for _ in range(600):
        status = str(cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"])
        if not status.endswith("_IN_PROGRESS"):
            return status
        time.sleep(0.05)
    raise AssertionError(f"{name} still {status}")


def test_a_nested_stack_may_do_only_what_its_parent_was_allowed(aws: Any) -> None:
    """The child gets the parent's capabilities: a named role in it needs CAPABILITY_NAMED_IAM on
    the parent, and without it the child's resource fails with AWS's reason."""
    s3, cfn, iam, tag = aws("s3"), aws("cloudformation"), aws("iam"), uuid.uuid4().hex[:8]
    bucket = f"nested-{tag}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="role.json", Body=json.dumps(ROLE_CHILD).encode())
    body = json.loads(_parent(f"https://s3.amazonaws.com/{bucket}/role.json"))
    del body["Outputs"]
    for given in ([], ["CAPABILITY_IAM"]):
        name = f"caps-{len(given)}-{tag}"
        cfn.create_stack(StackName=name, TemplateBody=json.dumps(body), Capabilities=given)
        assert _settle(cfn, name) == "ROLLBACK_COMPLETE"
        failed = [e for e in cfn.describe_stack_events(StackName=name)["StackEvents"]
                  if e["LogicalResourceId"] == "Child" and e["ResourceStatus"] == "CREATE_FAILED"]
        assert [e["ResourceStatusReason"] for e in failed] == ["Requires capabilities : [CAPABILITY_NAMED_IAM]"]
    assert not [r for r in iam.list_roles()["Roles"] if r["RoleName"].startswith("caps-")]

    name = f"caps-2-{tag}"
    stack_id = cfn.create_stack(StackName=name, TemplateBody=json.dumps(body),
                                Capabilities=["CAPABILITY_NAMED_IAM"])["StackId"]
    assert _settle(cfn, name) == "CREATE_COMPLETE"
    child_id = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Child")[
        "StackResourceDetail"]["PhysicalResourceId"]
    child = cfn.describe_stacks(StackName=child_id)["Stacks"][0]
    assert child["Capabilities"] == ["CAPABILITY_NAMED_IAM"]
    assert iam.get_role(RoleName=f"{child['StackName']}-worker")["Role"]["RoleName"]
    cfn.delete_stack(StackName=name)
    assert _settle(cfn, stack_id) == "DELETE_COMPLETE"
