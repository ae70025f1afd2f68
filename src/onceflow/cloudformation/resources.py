"""Resource types: how each is made and deleted through the services' own operations (as the
stack's caller), its Ref value and the attributes Fn::GetAtt exposes, as AWS documents them.

A provider's `create` returns (physical id, attributes); `delete` takes them back. Names AWS
generates are `stack-logical-RANDOM` (cut to the service's limit), as CloudFormation forms them.
"""

from __future__ import annotations

import io
import json
import secrets
import string
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.stack import Stack

Props = dict[str, Any]
Made = tuple[str, dict[str, Any]]

_ALPHABET = string.ascii_uppercase + string.digits


@dataclass
class Caller:
    """Calls to the other services as the principal that asked for the stack."""

    stack: Stack
    principal: Principal
    region: str
    stack_name: str

    @property
    def account(self) -> str:
        return self.principal.account

    def __call__(self, service: str, operation: str, params: Props) -> dict[str, Any]:
        assert self.stack.call_from_json is not None
        return self.stack.call_from_json(self.principal, service, operation, params, region=self.region)

    def name(self, logical: str, limit: int, *, lower: bool = False, suffix: str = "") -> str:
        """A physical name as CloudFormation generates it: stack-logical-RANDOM within `limit`."""
        rand = "".join(secrets.choice(_ALPHABET) for _ in range(13))
        room = limit - len(rand) - len(suffix) - 2
        stack_part = self.stack_name[: max(1, room // 2)] if len(self.stack_name) + len(logical) > room else \
            self.stack_name
        logical_part = logical[: max(1, room - len(stack_part))]
        out = f"{stack_part}-{logical_part}-{rand}{suffix}"
        return out.lower() if lower else out


def _tags(props: Props, key: str = "Key", value: str = "Value") -> list[dict[str, str]]:
    return [{key: str(t["Key"]), value: str(t["Value"])} for t in props.get("Tags") or []]


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _ignore_missing(fn: Callable[..., Any]) -> None:
    """Deleting what is already gone succeeds, as CloudFormation's delete does."""
    try:
        fn()
    except ServiceError as exc:
        if exc.status != 404 and "NotFound" not in exc.code and "NoSuch" not in exc.code and \
                "NonExistent" not in exc.code and "DoesNotExist" not in exc.code:
            raise


# ------------------------------------------------------------------ IAM
def role_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("RoleName") or c.name(logical, 64)
    params: Props = {"RoleName": name, "AssumeRolePolicyDocument": _json_text(p["AssumeRolePolicyDocument"]),
                     "Path": p.get("Path", "/")}
    for k in ("Description", "MaxSessionDuration", "PermissionsBoundary"):
        if k in p:
            params[k] = int(p[k]) if k == "MaxSessionDuration" else p[k]
    if p.get("Tags"):
        params["Tags"] = _tags(p)
    role = c("iam", "CreateRole", params)["Role"]
    for policy in p.get("Policies") or []:
        c("iam", "PutRolePolicy", {"RoleName": name, "PolicyName": policy["PolicyName"],
                                   "PolicyDocument": _json_text(policy["PolicyDocument"])})
    for arn in p.get("ManagedPolicyArns") or []:
        c("iam", "AttachRolePolicy", {"RoleName": name, "PolicyArn": arn})
    return name, {"Arn": role["Arn"], "RoleId": role["RoleId"]}


def role_delete(c: Caller, physical: str, props: Props) -> None:
    for policy in props.get("Policies") or []:
        _ignore_missing(lambda n=policy["PolicyName"]: c("iam", "DeleteRolePolicy",
                                                          {"RoleName": physical, "PolicyName": n}))
    for arn in props.get("ManagedPolicyArns") or []:
        _ignore_missing(lambda a=arn: c("iam", "DetachRolePolicy", {"RoleName": physical, "PolicyArn": a}))
    _ignore_missing(lambda: c("iam", "DeleteRole", {"RoleName": physical}))


# ------------------------------------------------------------------ DynamoDB
def _throughput(t: Props) -> Props:
    return {k: int(v) for k, v in t.items()}


def table_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("TableName") or c.name(logical, 255)
    params: Props = {"TableName": name, "AttributeDefinitions": p["AttributeDefinitions"],
                     "KeySchema": p["KeySchema"]}
    for k in ("BillingMode", "TableClass", "SSESpecification", "DeletionProtectionEnabled"):
        if k in p:
            params[k] = p[k]
    if "ProvisionedThroughput" in p:
        params["ProvisionedThroughput"] = _throughput(p["ProvisionedThroughput"])
    for k in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if p.get(k):
            params[k] = [dict(i, **({"ProvisionedThroughput": _throughput(i["ProvisionedThroughput"])}
                                    if "ProvisionedThroughput" in i else {})) for i in p[k]]
    stream = p.get("StreamSpecification")
    if stream:
        params["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": stream["StreamViewType"]}
    if p.get("Tags"):
        params["Tags"] = _tags(p)
    table = c("dynamodb", "CreateTable", params)["TableDescription"]
    ttl = p.get("TimeToLiveSpecification")
    if ttl and ttl.get("Enabled") in (True, "true"):
        c("dynamodb", "UpdateTimeToLive", {"TableName": name, "TimeToLiveSpecification": {
            "AttributeName": ttl["AttributeName"], "Enabled": True}})
    attrs = {"Arn": table["TableArn"]}
    if table.get("LatestStreamArn"):
        attrs["StreamArn"] = table["LatestStreamArn"]
    return name, attrs


def table_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("dynamodb", "DeleteTable", {"TableName": physical}))


# ------------------------------------------------------------------ Lambda
def _zip(source: str, runtime: str) -> str:
    """Inline code as CloudFormation packages it: one file named index.<ext>."""
    import base64

    name = "index.js" if runtime.startswith("nodejs") else "index.py"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, source)
    return base64.b64encode(buf.getvalue()).decode()


def function_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("FunctionName") or c.name(logical, 64)
    code = dict(p.get("Code") or {})
    if "ZipFile" in code:
        code = {"ZipFile": _zip(str(code["ZipFile"]), str(p.get("Runtime", "")))}
    params: Props = {"FunctionName": name, "Role": p["Role"], "Code": code}
    for k in ("Runtime", "Handler", "Description", "Environment", "Layers", "Architectures", "PackageType",
              "TracingConfig", "DeadLetterConfig", "EphemeralStorage", "LoggingConfig"):
        if k in p:
            params[k] = p[k]
    for k in ("Timeout", "MemorySize"):
        if k in p:
            params[k] = int(p[k])
    if p.get("Tags"):
        params["Tags"] = {t["Key"]: t["Value"] for t in _tags(p)}
    out = c("lambda", "CreateFunction", params)
    return name, {"Arn": out["FunctionArn"]}


def function_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("lambda", "DeleteFunction", {"FunctionName": physical}))


# ------------------------------------------------------------------ Step Functions
def state_machine_params(logical: str, name: str, p: Props) -> Props:
    if "DefinitionString" in p:
        text = str(p["DefinitionString"])
    elif "Definition" in p:
        text = json.dumps(p["Definition"])
    else:
        raise ServiceError("ValidationError", "Properties validation failed for resource "
                           f"{logical} with message: [#: required key [DefinitionString] not found]")
    for key, value in (p.get("DefinitionSubstitutions") or {}).items():
        text = text.replace("${" + key + "}", str(value).lower() if isinstance(value, bool) else str(value))
    params: Props = {"name": name, "definition": text, "roleArn": p["RoleArn"]}
    if "StateMachineType" in p:
        params["type"] = p["StateMachineType"]
    if "LoggingConfiguration" in p:
        lc = p["LoggingConfiguration"]
        params["loggingConfiguration"] = {
            "level": lc.get("Level", "OFF"), "includeExecutionData": bool(lc.get("IncludeExecutionData", False)),
            "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": d["CloudWatchLogsLogGroup"]["LogGroupArn"]}}
                             for d in lc.get("Destinations") or []]}
    if "TracingConfiguration" in p:
        params["tracingConfiguration"] = {"enabled": bool(p["TracingConfiguration"].get("Enabled"))}
    if p.get("Tags"):
        params["tags"] = _tags(p, "key", "value")
    return params


def state_machine_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("StateMachineName") or c.name(logical, 80)
    if "DefinitionS3Location" in p and "DefinitionString" not in p and "Definition" not in p:
        p = dict(p, DefinitionString=_definition_from_s3(c, p["DefinitionS3Location"]))
    arn = c("stepfunctions", "CreateStateMachine", state_machine_params(logical, name, p))["stateMachineArn"]
    return arn, {"Arn": arn, "Name": name}


def _definition_from_s3(c: Caller, location: dict[str, Any]) -> str:
    """DefinitionS3Location: the definition's text, read from onceflow's S3 as the caller's account."""
    _, pieces = c.stack.ports.objects().get_object(c.account, location["Bucket"], location["Key"],
                                                  location.get("Version"))
    return b"".join(pieces).decode("utf-8")


def state_machine_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("stepfunctions", "DeleteStateMachine", {"stateMachineArn": physical}))


# ------------------------------------------------------------------ SQS, SNS
_QUEUE_PROPS = ("DelaySeconds", "MaximumMessageSize", "MessageRetentionPeriod", "ReceiveMessageWaitTimeSeconds",
                "VisibilityTimeout", "RedrivePolicy", "RedriveAllowPolicy", "FifoQueue", "ContentBasedDeduplication",
                "DeduplicationScope", "FifoThroughputLimit", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds",
                "SqsManagedSseEnabled")


def queue_attributes(p: Props) -> dict[str, str]:
    return {k: (str(v).lower() if isinstance(v, bool) else _json_text(v) if isinstance(v, dict) else str(v))
            for k, v in p.items() if k in _QUEUE_PROPS}


def queue_create(c: Caller, logical: str, p: Props) -> Made:
    fifo = str(p.get("FifoQueue", "false")).lower() == "true"
    name = p.get("QueueName") or c.name(logical, 80, suffix=".fifo" if fifo else "")
    params: Props = {"QueueName": name, "Attributes": queue_attributes(p)}
    if p.get("Tags"):
        params["tags"] = {t["Key"]: t["Value"] for t in _tags(p)}
    url = c("sqs", "CreateQueue", params)["QueueUrl"]
    arn = f"arn:{partition(c.region)}:sqs:{c.region}:{c.account}:{name}"
    return url, {"Arn": arn, "QueueName": name, "QueueUrl": url}


def queue_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("sqs", "DeleteQueue", {"QueueUrl": physical}))


def topic_create(c: Caller, logical: str, p: Props) -> Made:
    fifo = str(p.get("FifoTopic", "false")).lower() == "true"
    name = p.get("TopicName") or c.name(logical, 256, suffix=".fifo" if fifo else "")
    attributes = {k: str(p[k]).lower() if isinstance(p[k], bool) else str(p[k])
                  for k in ("DisplayName", "FifoTopic", "ContentBasedDeduplication", "KmsMasterKeyId") if k in p}
    params: Props = {"Name": name, "Attributes": attributes}
    if p.get("Tags"):
        params["Tags"] = _tags(p)
    arn = c("sns", "CreateTopic", params)["TopicArn"]
    try:
        for sub in p.get("Subscription") or []:
            c("sns", "Subscribe", {"TopicArn": arn, "Protocol": sub["Protocol"], "Endpoint": sub["Endpoint"]})
    except ServiceError:
        # The resource failed: the rollback will not delete what it never made, so nothing of it may stay.
        _ignore_missing(lambda: c("sns", "DeleteTopic", {"TopicArn": arn}))
        raise
    return arn, {"TopicArn": arn, "TopicName": name}


def topic_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("sns", "DeleteTopic", {"TopicArn": physical}))


# ------------------------------------------------------------------ S3, Logs
def bucket_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("BucketName") or c.name(logical, 63, lower=True)
    params: Props = {"Bucket": name}
    if c.region != "us-east-1":
        params["CreateBucketConfiguration"] = {"LocationConstraint": c.region}
    c("s3", "CreateBucket", params)
    return name, {"Arn": f"arn:{partition(c.region)}:s3:::{name}", "DomainName": f"{name}.s3.amazonaws.com",
                  "RegionalDomainName": f"{name}.s3.{c.region}.amazonaws.com",
                  "DualStackDomainName": f"{name}.s3.dualstack.{c.region}.amazonaws.com",
                  "WebsiteURL": f"http://{name}.s3-website-{c.region}.amazonaws.com"}


def bucket_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("s3", "DeleteBucket", {"Bucket": physical}))


def log_group_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("LogGroupName") or c.name(logical, 512)
    params: Props = {"logGroupName": name}
    if p.get("Tags"):
        params["tags"] = {t["Key"]: t["Value"] for t in _tags(p)}
    c("logs", "CreateLogGroup", params)
    if "RetentionInDays" in p:
        c("logs", "PutRetentionPolicy", {"logGroupName": name, "retentionInDays": int(p["RetentionInDays"])})
    return name, {"Arn": f"arn:{partition(c.region)}:logs:{c.region}:{c.account}:log-group:{name}:*"}


def log_group_delete(c: Caller, physical: str, props: Props) -> None:
    _ignore_missing(lambda: c("logs", "DeleteLogGroup", {"logGroupName": physical}))


# ------------------------------------------------------------------ CDK
def cdk_metadata_create(c: Caller, logical: str, p: Props) -> Made:
    """AWS::CDK::Metadata (the CDKMetadata resource `cdk synth` adds): AWS keeps it for the CDK's
    usage reports and makes nothing; neither does onceflow."""
    import uuid

    return str(uuid.uuid4()), {}


def cdk_metadata_delete(c: Caller, physical: str, props: Props) -> None:
    return None
