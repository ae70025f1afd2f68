"""Updating a resource in place, as CloudFormation does for the properties AWS documents as
"Update requires: No interruption"; a change to a property that requires replacement (its name,
a table's key schema ...) is made as a new resource instead, and the old one is deleted once the
update succeeds. `REPLACE_ON[type]` lists those properties; a type without an updater is replaced
whenever its properties change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.cloudformation.global_table import global_table_update
from onceflow.cloudformation.more_types import access_key_update, archive_update
from onceflow.cloudformation.nested import stack_update
from onceflow.cloudformation.resources import (
    Caller,
    Made,
    Props,
    _json_text,
    _throughput,
    _zip,
    queue_attributes,
    state_machine_params,
)

Updater = Callable[[Caller, str, str, Props, Props, dict[str, Any]], Made]

REPLACE_ON: dict[str, tuple[str, ...]] = {
    "AWS::IAM::Role": ("RoleName", "Path"),
    "AWS::DynamoDB::Table": ("TableName", "KeySchema", "LocalSecondaryIndexes"),
    "AWS::DynamoDB::GlobalTable": ("TableName", "KeySchema", "LocalSecondaryIndexes"),
    "AWS::Lambda::Function": ("FunctionName", "PackageType"),
    "AWS::StepFunctions::StateMachine": ("StateMachineName", "StateMachineType"),
    "AWS::SQS::Queue": ("QueueName", "FifoQueue"),
    "AWS::SNS::Topic": ("TopicName", "FifoTopic"),
    "AWS::S3::Bucket": ("BucketName",),
    "AWS::Logs::LogGroup": ("LogGroupName",),
    "AWS::IAM::AccessKey": ("UserName", "Serial"),
    "AWS::Events::Archive": ("ArchiveName", "SourceArn"),
}


def needs_replacement(kind: str, old: Props, new: Props) -> bool:
    if kind not in UPDATERS:
        return True
    return any(old.get(k) != new.get(k) for k in REPLACE_ON.get(kind, ()))


def role_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    if old.get("AssumeRolePolicyDocument") != new.get("AssumeRolePolicyDocument"):
        c("iam", "UpdateAssumeRolePolicy", {"RoleName": physical,
                                            "PolicyDocument": _json_text(new["AssumeRolePolicyDocument"])})
    before = {p["PolicyName"]: p["PolicyDocument"] for p in old.get("Policies") or []}
    after = {p["PolicyName"]: p["PolicyDocument"] for p in new.get("Policies") or []}
    for name, document in after.items():
        if before.get(name) != document:
            c("iam", "PutRolePolicy", {"RoleName": physical, "PolicyName": name,
                                       "PolicyDocument": _json_text(document)})
    for name in set(before) - set(after):
        c("iam", "DeleteRolePolicy", {"RoleName": physical, "PolicyName": name})
    was, now = set(old.get("ManagedPolicyArns") or []), set(new.get("ManagedPolicyArns") or [])
    for arn in sorted(now - was):
        c("iam", "AttachRolePolicy", {"RoleName": physical, "PolicyArn": arn})
    for arn in sorted(was - now):
        c("iam", "DetachRolePolicy", {"RoleName": physical, "PolicyArn": arn})
    return physical, attrs


def table_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    base: Props = {"TableName": physical}
    if old.get("BillingMode") != new.get("BillingMode") or \
            old.get("ProvisionedThroughput") != new.get("ProvisionedThroughput"):
        params = dict(base, BillingMode=new.get("BillingMode", "PROVISIONED"))
        if "ProvisionedThroughput" in new:
            params["ProvisionedThroughput"] = _throughput(new["ProvisionedThroughput"])
        c("dynamodb", "UpdateTable", params)
    before = {i["IndexName"]: i for i in old.get("GlobalSecondaryIndexes") or []}
    after = {i["IndexName"]: i for i in new.get("GlobalSecondaryIndexes") or []}
    for name in [n for n in before if n not in after or after[n] != before[n]]:
        c("dynamodb", "UpdateTable", dict(base, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": name}}]))
    for name in [n for n in after if n not in before or after[n] != before[n]]:
        index = dict(after[name])
        if "ProvisionedThroughput" in index:
            index["ProvisionedThroughput"] = _throughput(index["ProvisionedThroughput"])
        c("dynamodb", "UpdateTable", dict(base, AttributeDefinitions=new["AttributeDefinitions"],
                                          GlobalSecondaryIndexUpdates=[{"Create": index}]))
    if old.get("StreamSpecification") != new.get("StreamSpecification"):
        if old.get("StreamSpecification"):
            c("dynamodb", "UpdateTable", dict(base, StreamSpecification={"StreamEnabled": False}))
        if new.get("StreamSpecification"):
            c("dynamodb", "UpdateTable", dict(base, StreamSpecification={
                "StreamEnabled": True, "StreamViewType": new["StreamSpecification"]["StreamViewType"]}))
    table = c("dynamodb", "DescribeTable", base)["Table"]
    out = {"Arn": table["TableArn"]}
    if table.get("LatestStreamArn") and new.get("StreamSpecification"):
        out["StreamArn"] = table["LatestStreamArn"]
    return physical, out


def function_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    if old.get("Code") != new.get("Code"):
        code = dict(new.get("Code") or {})
        if "ZipFile" in code:
            code = {"ZipFile": _zip(str(code["ZipFile"]), str(new.get("Runtime", "")))}
        c("lambda", "UpdateFunctionCode", {"FunctionName": physical, **code})
    keys = ("Role", "Handler", "Description", "Timeout", "MemorySize", "Environment", "Runtime", "Layers",
            "TracingConfig", "DeadLetterConfig", "EphemeralStorage", "LoggingConfig")
    if any(old.get(k) != new.get(k) for k in keys):
        params: Props = {"FunctionName": physical}
        for k in keys:
            if k in new:
                params[k] = int(new[k]) if k in ("Timeout", "MemorySize") else new[k]
        if "Environment" in old and "Environment" not in new:
            params["Environment"] = {"Variables": {}}
        c("lambda", "UpdateFunctionConfiguration", params)
    return physical, attrs


def state_machine_update(c: Caller, logical: str, physical: str, old: Props, new: Props,
                         attrs: dict[str, Any]) -> Made:
    params = state_machine_params(logical, attrs["Name"], new)
    c("stepfunctions", "UpdateStateMachine", {"stateMachineArn": physical, "definition": params["definition"],
                                              "roleArn": params["roleArn"],
                                              **({"loggingConfiguration": params["loggingConfiguration"]}
                                                 if "loggingConfiguration" in params else {})})
    return physical, attrs


def queue_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    values = queue_attributes(new)
    if values:
        c("sqs", "SetQueueAttributes", {"QueueUrl": physical, "Attributes": values})
    return physical, attrs


def log_group_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    if "RetentionInDays" in new:
        c("logs", "PutRetentionPolicy", {"logGroupName": physical, "retentionInDays": int(new["RetentionInDays"])})
    elif "RetentionInDays" in old:
        c("logs", "DeleteRetentionPolicy", {"logGroupName": physical})
    return physical, attrs


def unchanged(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    """Properties onceflow keeps nowhere but the stack (tags, display names): nothing to call."""
    return physical, attrs


UPDATERS: dict[str, Updater] = {
    "AWS::IAM::Role": role_update,
    "AWS::DynamoDB::Table": table_update,
    "AWS::DynamoDB::GlobalTable": global_table_update,
    "AWS::Lambda::Function": function_update,
    "AWS::StepFunctions::StateMachine": state_machine_update,
    "AWS::SQS::Queue": queue_update,
    "AWS::Logs::LogGroup": log_group_update,
    "AWS::SNS::Topic": unchanged,
    "AWS::S3::Bucket": unchanged,
    "AWS::CloudFormation::Stack": stack_update,
    "AWS::CDK::Metadata": unchanged,
    "AWS::IAM::AccessKey": access_key_update,
    "AWS::Events::Archive": archive_update,
}
