"""Resource import (change sets of type IMPORT): the types onceflow can adopt, the identifier each
is named by in ResourcesToImport (the type's primary identifier, as AWS names it), and how the
existing resource is read to its Ref value and the attributes Fn::GetAtt exposes."""

from __future__ import annotations

from collections.abc import Callable

from onceflow.awsmodels.partitions import partition
from onceflow.cloudformation.resources import Caller, Made
from onceflow.errors import ServiceError

Reader = Callable[[Caller, str], Made]  # identifier value -> (physical id, attributes); raises if missing


def _table(c: Caller, name: str) -> Made:
    table = c("dynamodb", "DescribeTable", {"TableName": name})["Table"]
    attrs = {"Arn": table["TableArn"]}
    if table.get("LatestStreamArn"):
        attrs["StreamArn"] = table["LatestStreamArn"]
    return name, attrs


def _function(c: Caller, name: str) -> Made:
    return name, {"Arn": c("lambda", "GetFunction", {"FunctionName": name})["Configuration"]["FunctionArn"]}


def _role(c: Caller, name: str) -> Made:
    role = c("iam", "GetRole", {"RoleName": name})["Role"]
    return name, {"Arn": role["Arn"], "RoleId": role["RoleId"]}


def _state_machine(c: Caller, arn: str) -> Made:
    machine = c("stepfunctions", "DescribeStateMachine", {"stateMachineArn": arn})
    return arn, {"Arn": arn, "Name": machine["name"]}


def _queue(c: Caller, url: str) -> Made:
    arn = c("sqs", "GetQueueAttributes", {"QueueUrl": url, "AttributeNames": ["QueueArn"]})["Attributes"]["QueueArn"]
    return url, {"Arn": arn, "QueueName": arn.rsplit(":", 1)[-1], "QueueUrl": url}


def _topic(c: Caller, arn: str) -> Made:
    c("sns", "GetTopicAttributes", {"TopicArn": arn})
    return arn, {"TopicArn": arn, "TopicName": arn.rsplit(":", 1)[-1]}


def _bucket(c: Caller, name: str) -> Made:
    c("s3", "HeadBucket", {"Bucket": name})
    return name, {"Arn": f"arn:{partition(c.region)}:s3:::{name}", "DomainName": f"{name}.s3.amazonaws.com",
                  "RegionalDomainName": f"{name}.s3.{c.region}.amazonaws.com",
                  "DualStackDomainName": f"{name}.s3.dualstack.{c.region}.amazonaws.com",
                  "WebsiteURL": f"http://{name}.s3-website-{c.region}.amazonaws.com"}


def _log_group(c: Caller, name: str) -> Made:
    groups = c("logs", "DescribeLogGroups", {"logGroupNamePrefix": name})["logGroups"]
    if not any(g["logGroupName"] == name for g in groups):
        raise ServiceError("ResourceNotFoundException", "The specified log group does not exist.", 400)
    return name, {"Arn": f"arn:{partition(c.region)}:logs:{c.region}:{c.account}:log-group:{name}:*"}


# type -> (its primary identifier's property, the reader)
IMPORTABLE: dict[str, tuple[str, Reader]] = {
    "AWS::DynamoDB::Table": ("TableName", _table),
    "AWS::Lambda::Function": ("FunctionName", _function),
    "AWS::IAM::Role": ("RoleName", _role),
    "AWS::StepFunctions::StateMachine": ("Arn", _state_machine),
    "AWS::SQS::Queue": ("QueueUrl", _queue),
    "AWS::SNS::Topic": ("TopicArn", _topic),
    "AWS::S3::Bucket": ("BucketName", _bucket),
    "AWS::Logs::LogGroup": ("LogGroupName", _log_group),
}
