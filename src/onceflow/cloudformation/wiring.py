"""Resource types that wire resources together (what SAM's events and policies become): IAM
policies, Lambda permissions, event source mappings, versions and aliases, SNS subscriptions,
SQS queue policies and EventBridge rules. Same contract as resources.py: create -> (physical id,
attributes), delete(physical id, properties)."""

from __future__ import annotations

import json
from typing import Any

from onceflow.cloudformation.resources import Caller, Made, Props, _ignore_missing, _json_text


# ------------------------------------------------------------------ IAM
def _policy_targets(p: Props) -> list[tuple[str, str]]:
    return [("Role", r) for r in p.get("Roles") or []] + [("User", u) for u in p.get("Users") or []]


def policy_create(c: Caller, logical: str, p: Props) -> Made:
    """AWS::IAM::Policy: an inline policy put on each role and user it names."""
    name = p["PolicyName"]
    for kind, who in _policy_targets(p):
        c("iam", f"Put{kind}Policy", {f"{kind}Name": who, "PolicyName": name,
                                      "PolicyDocument": _json_text(p["PolicyDocument"])})
    return c.name(logical, 64), {"Id": name}


def policy_delete(c: Caller, physical: str, p: Props) -> None:
    for kind, who in _policy_targets(p):
        _ignore_missing(lambda k=kind, w=who: c("iam", f"Delete{k}Policy", {f"{k}Name": w,
                                                                           "PolicyName": p["PolicyName"]}))


def managed_policy_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("ManagedPolicyName") or c.name(logical, 128)
    params: Props = {"PolicyName": name, "PolicyDocument": _json_text(p["PolicyDocument"]),
                     "Path": p.get("Path", "/")}
    if "Description" in p:
        params["Description"] = p["Description"]
    arn = c("iam", "CreatePolicy", params)["Policy"]["Arn"]
    for kind, who in _policy_targets(p):
        c("iam", f"Attach{kind}Policy", {f"{kind}Name": who, "PolicyArn": arn})
    return arn, {"PolicyArn": arn}


def managed_policy_delete(c: Caller, physical: str, p: Props) -> None:
    for kind, who in _policy_targets(p):
        _ignore_missing(lambda k=kind, w=who: c("iam", f"Detach{k}Policy", {f"{k}Name": w, "PolicyArn": physical}))
    _ignore_missing(lambda: c("iam", "DeletePolicy", {"PolicyArn": physical}))


# ------------------------------------------------------------------ Lambda
def permission_create(c: Caller, logical: str, p: Props) -> Made:
    sid = c.name(logical, 100)
    params: Props = {"FunctionName": p["FunctionName"], "StatementId": sid, "Action": p["Action"],
                     "Principal": p["Principal"]}
    for k in ("SourceArn", "SourceAccount", "EventSourceToken", "PrincipalOrgID", "FunctionUrlAuthType"):
        if k in p:
            params[k] = p[k]
    c("lambda", "AddPermission", params)
    return sid, {}


def permission_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("lambda", "RemovePermission", {"FunctionName": p["FunctionName"],
                                                             "StatementId": physical}))


def event_source_mapping_create(c: Caller, logical: str, p: Props) -> Made:
    params = {k: v for k, v in p.items() if k not in ("Tags",)}
    for k in ("BatchSize", "MaximumBatchingWindowInSeconds", "ParallelizationFactor", "MaximumRetryAttempts",
              "MaximumRecordAgeInSeconds"):
        if k in params:
            params[k] = int(params[k])
    uuid = c("lambda", "CreateEventSourceMapping", params)["UUID"]
    return uuid, {"Id": uuid}


def event_source_mapping_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("lambda", "DeleteEventSourceMapping", {"UUID": physical}))


def version_create(c: Caller, logical: str, p: Props) -> Made:
    params = {k: p[k] for k in ("FunctionName", "Description", "CodeSha256") if k in p}
    out = c("lambda", "PublishVersion", params)
    return out["FunctionArn"], {"Version": out["Version"], "FunctionArn": out["FunctionArn"]}


def version_delete(c: Caller, physical: str, p: Props) -> None:
    # The version's ARN names its function and its qualifier.
    name, _, qualifier = physical.rpartition(":")
    _ignore_missing(lambda: c("lambda", "DeleteFunction", {"FunctionName": name, "Qualifier": qualifier}))


def alias_create(c: Caller, logical: str, p: Props) -> Made:
    params = {k: p[k] for k in ("FunctionName", "Name", "FunctionVersion", "Description", "RoutingConfig") if k in p}
    arn = c("lambda", "CreateAlias", params)["AliasArn"]
    return arn, {"AliasArn": arn}


def alias_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("lambda", "DeleteAlias", {"FunctionName": p["FunctionName"], "Name": p["Name"]}))


# ------------------------------------------------------------------ SNS, SQS, EventBridge
def subscription_create(c: Caller, logical: str, p: Props) -> Made:
    attributes = {k: _json_text(p[k]) for k in ("FilterPolicy", "RedrivePolicy", "DeliveryPolicy") if k in p}
    for k in ("RawMessageDelivery", "FilterPolicyScope", "SubscriptionRoleArn"):
        if k in p:
            attributes[k] = str(p[k]).lower() if isinstance(p[k], bool) else str(p[k])
    params: Props = {"TopicArn": p["TopicArn"], "Protocol": p["Protocol"], "Endpoint": p["Endpoint"],
                     "ReturnSubscriptionArn": True}
    if attributes:
        params["Attributes"] = attributes
    arn = c("sns", "Subscribe", params)["SubscriptionArn"]
    return arn, {"Arn": arn}


def subscription_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("sns", "Unsubscribe", {"SubscriptionArn": physical}))


def queue_policy_create(c: Caller, logical: str, p: Props) -> Made:
    for url in p["Queues"]:
        c("sqs", "SetQueueAttributes", {"QueueUrl": url, "Attributes": {"Policy": _json_text(p["PolicyDocument"])}})
    return c.name(logical, 64), {}


def queue_policy_delete(c: Caller, physical: str, p: Props) -> None:
    for url in p.get("Queues") or []:
        _ignore_missing(lambda u=url: c("sqs", "SetQueueAttributes", {"QueueUrl": u, "Attributes": {"Policy": ""}}))


def rule_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("Name") or c.name(logical, 64)
    params: Props = {"Name": name, "State": p.get("State", "ENABLED")}
    for k in ("ScheduleExpression", "Description", "RoleArn", "EventBusName"):
        if k in p:
            params[k] = p[k]
    if "EventPattern" in p:
        params["EventPattern"] = _json_text(p["EventPattern"])
    arn = c("events", "PutRule", params)["RuleArn"]
    targets = [_target(t) for t in p.get("Targets") or []]
    if targets:
        c("events", "PutTargets", {"Rule": name, **({"EventBusName": p["EventBusName"]} if "EventBusName" in p
                                                    else {}), "Targets": targets})
    physical = name if "EventBusName" not in p or p["EventBusName"] == "default" else f"{p['EventBusName']}|{name}"
    return physical, {"Arn": arn}


def _target(t: dict[str, Any]) -> dict[str, Any]:
    out = dict(t)
    if isinstance(out.get("Input"), dict):
        out["Input"] = json.dumps(out["Input"])
    return out


def rule_delete(c: Caller, physical: str, p: Props) -> None:
    bus, _, name = physical.rpartition("|")
    where = {"EventBusName": bus} if bus else {}
    ids = [t["Id"] for t in p.get("Targets") or []]
    if ids:
        _ignore_missing(lambda: c("events", "RemoveTargets", {"Rule": name, **where, "Ids": ids}))
    _ignore_missing(lambda: c("events", "DeleteRule", {"Name": name, **where}))


# ------------------------------------------------------------------ more of the services onceflow serves
def topic_policy_create(c: Caller, logical: str, p: Props) -> Made:
    for arn in p["Topics"]:
        c("sns", "SetTopicAttributes", {"TopicArn": arn, "AttributeName": "Policy",
                                        "AttributeValue": _json_text(p["PolicyDocument"])})
    return c.name(logical, 64), {}


def topic_policy_delete(c: Caller, physical: str, p: Props) -> None:
    pass  # the topics keep their default policy back on AWS; onceflow does not act on topic policies


def bucket_policy_create(c: Caller, logical: str, p: Props) -> Made:
    c("s3", "PutBucketPolicy", {"Bucket": p["Bucket"], "Policy": _json_text(p["PolicyDocument"])})
    return p["Bucket"], {}


def bucket_policy_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("s3", "DeleteBucketPolicy", {"Bucket": physical}))


def activity_create(c: Caller, logical: str, p: Props) -> Made:
    params: Props = {"name": p["Name"]}
    if p.get("Tags"):
        params["tags"] = [{"key": t["Key"], "value": t["Value"]} for t in p["Tags"]]
    arn = c("stepfunctions", "CreateActivity", params)["activityArn"]
    return arn, {"Name": p["Name"]}


def activity_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("stepfunctions", "DeleteActivity", {"activityArn": physical}))


def event_bus_create(c: Caller, logical: str, p: Props) -> Made:
    params = {k: p[k] for k in ("Name", "EventSourceName", "Description", "DeadLetterConfig") if k in p}
    if p.get("Tags"):
        params["Tags"] = p["Tags"]
    arn = c("events", "CreateEventBus", params)["EventBusArn"]
    return p["Name"], {"Arn": arn, "Name": p["Name"]}


def event_bus_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("events", "DeleteEventBus", {"Name": physical}))


def schedule_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("Name") or c.name(logical, 64)
    params = {k: p[k] for k in ("GroupName", "ScheduleExpression", "StartDate", "EndDate", "Description",
                                "ScheduleExpressionTimezone", "State", "KmsKeyArn", "Target", "FlexibleTimeWindow",
                                "ActionAfterCompletion") if k in p}
    arn = c("scheduler", "CreateSchedule", dict(params, Name=name))["ScheduleArn"]
    return name, {"Arn": arn}


def schedule_delete(c: Caller, physical: str, p: Props) -> None:
    params: Props = {"Name": physical}
    if "GroupName" in p:
        params["GroupName"] = p["GroupName"]
    _ignore_missing(lambda: c("scheduler", "DeleteSchedule", params))

