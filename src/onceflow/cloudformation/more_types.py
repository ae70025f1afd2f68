"""Resource types beyond a stack's core (resources.py) and its wiring (wiring.py): IAM users, their
access keys and instance profiles; Lambda layer versions and event invoke configs; Step Functions
versions and aliases; Logs metric and subscription filters; EventBridge archives. Same contract:
create -> (physical id, attributes), delete(physical id, properties); Ref and Fn::GetAtt as AWS
documents them."""

from __future__ import annotations

import uuid
from typing import Any

from onceflow.cloudformation.resources import Caller, Made, Props, _ignore_missing, _json_text, _tags


# ------------------------------------------------------------------ IAM
def user_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("UserName") or c.name(logical, 64)
    params: Props = {"UserName": name, "Path": p.get("Path", "/")}
    if p.get("PermissionsBoundary"):
        params["PermissionsBoundary"] = p["PermissionsBoundary"]
    if p.get("Tags"):
        params["Tags"] = _tags(p)
    user = c("iam", "CreateUser", params)["User"]
    for policy in p.get("Policies") or []:
        c("iam", "PutUserPolicy", {"UserName": name, "PolicyName": policy["PolicyName"],
                                   "PolicyDocument": _json_text(policy["PolicyDocument"])})
    for arn in p.get("ManagedPolicyArns") or []:
        c("iam", "AttachUserPolicy", {"UserName": name, "PolicyArn": arn})
    for group in p.get("Groups") or []:
        c("iam", "AddUserToGroup", {"UserName": name, "GroupName": group})
    return name, {"Arn": user["Arn"]}


def user_delete(c: Caller, physical: str, p: Props) -> None:
    for policy in p.get("Policies") or []:
        _ignore_missing(lambda n=policy["PolicyName"]: c("iam", "DeleteUserPolicy",
                                                          {"UserName": physical, "PolicyName": n}))
    for arn in p.get("ManagedPolicyArns") or []:
        _ignore_missing(lambda a=arn: c("iam", "DetachUserPolicy", {"UserName": physical, "PolicyArn": a}))
    for group in p.get("Groups") or []:
        _ignore_missing(lambda g=group: c("iam", "RemoveUserFromGroup", {"UserName": physical, "GroupName": g}))
    _ignore_missing(lambda: c("iam", "DeleteUser", {"UserName": physical}))


def access_key_create(c: Caller, logical: str, p: Props) -> Made:
    key = c("iam", "CreateAccessKey", {"UserName": p["UserName"]})["AccessKey"]
    if p.get("Status", "Active") != "Active":
        c("iam", "UpdateAccessKey", {"UserName": p["UserName"], "AccessKeyId": key["AccessKeyId"],
                                     "Status": p["Status"]})
    return key["AccessKeyId"], {"SecretAccessKey": key["SecretAccessKey"]}


def access_key_update(c: Caller, logical: str, physical: str, old: Props, new: Props,
                      attrs: dict[str, Any]) -> Made:
    """Status changes in place (UserName and Serial replace the key, as AWS documents)."""
    if old.get("Status", "Active") != new.get("Status", "Active"):
        c("iam", "UpdateAccessKey", {"UserName": new["UserName"], "AccessKeyId": physical,
                                     "Status": new.get("Status", "Active")})
    return physical, attrs


def access_key_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("iam", "DeleteAccessKey", {"UserName": p["UserName"], "AccessKeyId": physical}))


def instance_profile_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("InstanceProfileName") or c.name(logical, 128)
    profile = c("iam", "CreateInstanceProfile", {"InstanceProfileName": name, "Path": p.get("Path", "/")})
    for role in p.get("Roles") or []:
        c("iam", "AddRoleToInstanceProfile", {"InstanceProfileName": name, "RoleName": role})
    return name, {"Arn": profile["InstanceProfile"]["Arn"]}


def instance_profile_delete(c: Caller, physical: str, p: Props) -> None:
    for role in p.get("Roles") or []:
        _ignore_missing(lambda r=role: c("iam", "RemoveRoleFromInstanceProfile",
                                         {"InstanceProfileName": physical, "RoleName": r}))
    _ignore_missing(lambda: c("iam", "DeleteInstanceProfile", {"InstanceProfileName": physical}))


# ------------------------------------------------------------------ Lambda
def layer_version_create(c: Caller, logical: str, p: Props) -> Made:
    params: Props = {"LayerName": p.get("LayerName") or c.name(logical, 140), "Content": dict(p["Content"])}
    for k in ("Description", "CompatibleRuntimes", "CompatibleArchitectures", "LicenseInfo"):
        if k in p:
            params[k] = p[k]
    arn = c("lambda", "PublishLayerVersion", params)["LayerVersionArn"]
    return arn, {"LayerVersionArn": arn}


def layer_version_delete(c: Caller, physical: str, p: Props) -> None:
    name, _, number = physical.rpartition(":")
    _ignore_missing(lambda: c("lambda", "DeleteLayerVersion", {"LayerName": name, "VersionNumber": int(number)}))


def _destinations(p: Props) -> Props:
    out: Props = {}
    for when in ("OnSuccess", "OnFailure"):
        target = (p.get("DestinationConfig") or {}).get(when)
        if target:
            out[when] = {"Destination": target["Destination"]}
    return out


def event_invoke_config_create(c: Caller, logical: str, p: Props) -> Made:
    params: Props = {"FunctionName": p["FunctionName"], "Qualifier": p["Qualifier"]}
    for k in ("MaximumEventAgeInSeconds", "MaximumRetryAttempts"):
        if k in p:
            params[k] = int(p[k])
    if p.get("DestinationConfig"):
        params["DestinationConfig"] = _destinations(p)
    c("lambda", "PutFunctionEventInvokeConfig", params)
    return str(uuid.uuid4()), {}


def event_invoke_config_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("lambda", "DeleteFunctionEventInvokeConfig",
                              {"FunctionName": p["FunctionName"], "Qualifier": p["Qualifier"]}))


# ------------------------------------------------------------------ Step Functions
def state_machine_version_create(c: Caller, logical: str, p: Props) -> Made:
    params: Props = {"stateMachineArn": p["StateMachineArn"]}
    if "Description" in p:
        params["description"] = p["Description"]
    if "StateMachineRevisionId" in p:
        params["revisionId"] = p["StateMachineRevisionId"]
    arn = c("stepfunctions", "PublishStateMachineVersion", params)["stateMachineVersionArn"]
    return arn, {"Arn": arn}


def state_machine_version_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("stepfunctions", "DeleteStateMachineVersion", {"stateMachineVersionArn": physical}))


def _routing(p: Props) -> list[Props]:
    if p.get("RoutingConfiguration"):
        return [{"stateMachineVersionArn": r["StateMachineVersionArn"], "weight": int(r["Weight"])}
                for r in p["RoutingConfiguration"]]
    preference = p.get("DeploymentPreference") or {}
    if preference.get("StateMachineVersionArn"):  # onceflow shifts at once: the version takes it all
        return [{"stateMachineVersionArn": preference["StateMachineVersionArn"], "weight": 100}]
    raise KeyError("RoutingConfiguration")


def state_machine_alias_create(c: Caller, logical: str, p: Props) -> Made:
    params: Props = {"name": p.get("Name") or c.name(logical, 80), "routingConfiguration": _routing(p)}
    if "Description" in p:
        params["description"] = p["Description"]
    arn = c("stepfunctions", "CreateStateMachineAlias", params)["stateMachineAliasArn"]
    return arn, {"Arn": arn}


def state_machine_alias_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("stepfunctions", "DeleteStateMachineAlias", {"stateMachineAliasArn": physical}))


# ------------------------------------------------------------------ Logs
def _transformation(t: Props) -> Props:
    out: Props = {"metricName": t["MetricName"], "metricNamespace": t["MetricNamespace"],
                  "metricValue": str(t["MetricValue"])}
    if "DefaultValue" in t:
        out["defaultValue"] = float(t["DefaultValue"])
    if "Unit" in t:
        out["unit"] = t["Unit"]
    if t.get("Dimensions"):
        out["dimensions"] = {d["Key"]: d["Value"] for d in t["Dimensions"]}
    return out


def metric_filter_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("FilterName") or c.name(logical, 512)
    c("logs", "PutMetricFilter", {"logGroupName": p["LogGroupName"], "filterName": name,
                                  "filterPattern": p["FilterPattern"],
                                  "metricTransformations": [_transformation(t) for t in p["MetricTransformations"]]})
    return name, {}


def metric_filter_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("logs", "DeleteMetricFilter", {"logGroupName": p["LogGroupName"],
                                                             "filterName": physical}))


def subscription_filter_create(c: Caller, logical: str, p: Props) -> Made:
    name = p.get("FilterName") or c.name(logical, 512)
    params: Props = {"logGroupName": p["LogGroupName"], "filterName": name, "filterPattern": p["FilterPattern"],
                     "destinationArn": p["DestinationArn"]}
    for key, wire in (("RoleArn", "roleArn"), ("Distribution", "distribution")):
        if key in p:
            params[wire] = p[key]
    c("logs", "PutSubscriptionFilter", params)
    return name, {}


def subscription_filter_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("logs", "DeleteSubscriptionFilter", {"logGroupName": p["LogGroupName"],
                                                                   "filterName": physical}))


# ------------------------------------------------------------------ EventBridge
def archive_create(c: Caller, logical: str, p: Props) -> Made:
    """AWS::Events::Archive: Ref is the archive's name, Fn::GetAtt Arn its ARN."""
    name = p.get("ArchiveName") or c.name(logical, 48)
    params: Props = {"ArchiveName": name, "EventSourceArn": p["SourceArn"]}
    params.update(_archive_settings(p))
    arn = c("events", "CreateArchive", params)["ArchiveArn"]
    return name, {"Arn": arn}


def archive_update(c: Caller, logical: str, physical: str, old: Props, new: Props, attrs: dict[str, Any]) -> Made:
    c("events", "UpdateArchive", {"ArchiveName": physical, **_archive_settings(new)})
    return physical, attrs


def _archive_settings(p: Props) -> Props:
    out: Props = {k: p[k] for k in ("Description",) if k in p}
    if "EventPattern" in p:
        out["EventPattern"] = _json_text(p["EventPattern"])
    if "RetentionDays" in p:
        out["RetentionDays"] = int(p["RetentionDays"])
    return out


def archive_delete(c: Caller, physical: str, p: Props) -> None:
    _ignore_missing(lambda: c("events", "DeleteArchive", {"ArchiveName": physical}))
