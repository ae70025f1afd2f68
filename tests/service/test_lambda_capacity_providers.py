"""Capacity providers (Lambda Managed Instances) and the functions and scaling configs that use them,
through boto3 against a real server: AWS's shapes and states, and refusals that change nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError
from lambda_setup import ECHO, lambda_role, zip_of

VPC = {"SubnetIds": ["subnet-0123456789abcdef0"], "SecurityGroupIds": ["sg-0123456789abcdef0"]}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "cp-role")


def provider(aws: Callable[..., Any], role: str, **extra: Any) -> dict[str, Any]:
    out = aws("lambda").create_capacity_provider(
        CapacityProviderName=unique("cp"), VpcConfig=VPC,
        PermissionsConfig={"CapacityProviderOperatorRoleArn": role}, **extra,
    )  # fmt: skip
    return dict(out["CapacityProvider"])


def managed_function(aws: Callable[..., Any], role: str, provider_arn: str, **extra: Any) -> dict[str, Any]:
    return dict(aws("lambda").create_function(
        FunctionName=unique("mi"), Runtime="python3.13", Role=role, Handler="app.handler",
        Code={"ZipFile": zip_of(ECHO)},
        CapacityProviderConfig={"LambdaManagedInstancesCapacityProviderConfig": {"CapacityProviderArn": provider_arn}},
        **extra,
    ))  # fmt: skip


def test_create_answers_pending_then_reads_are_active(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    scaling = {"ScalingMode": "Auto", "MaxVCpuCount": 32}
    created = provider(aws, role, CapacityProviderScalingConfig=scaling,
                       InstanceRequirements={"Architectures": ["arm64"]}, Tags={"team": "a"})  # fmt: skip
    arn = created["CapacityProviderArn"]
    name = arn.rsplit(":", 1)[-1]
    assert arn == f"arn:aws:lambda:us-east-1:{role.split(':')[4]}:capacity-provider:{name}"
    assert created["State"] == "Pending"
    assert created["VpcConfig"] == VPC
    assert created["PermissionsConfig"] == {"CapacityProviderOperatorRoleArn": role}
    assert created["CapacityProviderScalingConfig"] == scaling
    assert created["InstanceRequirements"] == {"Architectures": ["arm64"]}
    got = lam.get_capacity_provider(CapacityProviderName=name)["CapacityProvider"]
    assert got["State"] == "Active"
    assert lam.get_capacity_provider(CapacityProviderName=arn)["CapacityProvider"]["CapacityProviderArn"] == arn
    listed = lam.list_capacity_providers()["CapacityProviders"]
    assert arn in [p["CapacityProviderArn"] for p in listed]
    assert lam.list_capacity_providers(State="Pending")["CapacityProviders"] == []
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "a"}
    lam.tag_resource(Resource=arn, Tags={"env": "dev"})
    lam.untag_resource(Resource=arn, TagKeys=["team"])
    assert lam.list_tags(Resource=arn)["Tags"] == {"env": "dev"}


def test_update_changes_the_scaling_config(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    arn = provider(aws, role)["CapacityProviderArn"]
    manual = {"ScalingMode": "Manual", "ScalingPolicies": [
        {"PredefinedMetricType": "LambdaCapacityProviderAverageCPUUtilization", "TargetValue": 60.0}]}  # fmt: skip
    updated = lam.update_capacity_provider(CapacityProviderName=arn, CapacityProviderScalingConfig=manual)
    assert updated["CapacityProvider"]["CapacityProviderScalingConfig"] == manual
    assert lam.get_capacity_provider(CapacityProviderName=arn)["CapacityProvider"][
        "CapacityProviderScalingConfig"] == manual  # fmt: skip


def test_refusals_change_nothing(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = unique("cp")
    policies = [{"PredefinedMetricType": "LambdaCapacityProviderAverageCPUUtilization", "TargetValue": 50.0}]
    with pytest.raises(ClientError) as err:
        lam.create_capacity_provider(CapacityProviderName=name, VpcConfig=VPC,
                                     PermissionsConfig={"CapacityProviderOperatorRoleArn": role},
                                     CapacityProviderScalingConfig={"ScalingMode": "Auto",
                                                                    "ScalingPolicies": policies})  # fmt: skip
    assert refused(err) == ("InvalidParameterValueException",
                            "A scaling policy can't be specified when the scalingMode is set to Auto", 400)  # fmt: skip
    missing_role = f"arn:aws:iam::{role.split(':')[4]}:role/no-such-operator-role"
    with pytest.raises(ClientError) as err:
        lam.create_capacity_provider(CapacityProviderName=name, VpcConfig=VPC,
                                     PermissionsConfig={"CapacityProviderOperatorRoleArn": missing_role})  # fmt: skip
    assert refused(err)[0] == "InvalidParameterValueException"
    with pytest.raises(ClientError) as err:
        lam.get_capacity_provider(CapacityProviderName=name)
    assert refused(err)[0] == "ResourceNotFoundException"
    assert refused(err)[2] == 404
    existing = provider(aws, role)["CapacityProviderArn"]
    with pytest.raises(ClientError) as err:
        lam.create_capacity_provider(CapacityProviderName=existing.rsplit(":", 1)[-1], VpcConfig=VPC,
                                     PermissionsConfig={"CapacityProviderOperatorRoleArn": role})  # fmt: skip
    assert refused(err)[0] == "ResourceConflictException"
    with pytest.raises(ClientError) as err:
        lam.update_capacity_provider(CapacityProviderName=existing, CapacityProviderScalingConfig={
            "ScalingMode": "Auto", "ScalingPolicies": policies})  # fmt: skip
    assert refused(err)[0] == "InvalidParameterValueException"
    assert "CapacityProviderScalingConfig" not in lam.get_capacity_provider(CapacityProviderName=existing)[
        "CapacityProvider"]  # fmt: skip
    raw = aws("lambda", config=botocore.config.Config(parameter_validation=False))
    with pytest.raises(ClientError) as err:  # the model's constraints (MaxVCpuCount >= 2), checked by the server
        raw.update_capacity_provider(CapacityProviderName=existing, CapacityProviderScalingConfig={"MaxVCpuCount": 1})
    assert refused(err)[0] == "ValidationException"


def test_a_function_on_a_provider(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    arn = provider(aws, role)["CapacityProviderArn"]
    created = managed_function(aws, role, arn)
    name = created["FunctionName"]
    assert created["CapacityProviderConfig"] == {"LambdaManagedInstancesCapacityProviderConfig": {
        "CapacityProviderArn": arn, "PerExecutionEnvironmentMaxConcurrency": 16,
        "ExecutionEnvironmentMemoryGiBPerVCpu": 2.0}}  # fmt: skip
    assert created["MemorySize"] == 2048
    assert created["LoggingConfig"]["LogFormat"] == "JSON"
    assert "SnapStart" not in created
    # $LATEST is not on the provider's list; a published version is
    assert lam.list_function_versions_by_capacity_provider(CapacityProviderName=arn)["FunctionVersions"] == []
    version = lam.publish_version(FunctionName=name)["Version"]
    listed = lam.list_function_versions_by_capacity_provider(CapacityProviderName=arn)
    assert listed["CapacityProviderArn"] == arn
    assert listed["FunctionVersions"] == [
        {"FunctionArn": f"arn:aws:lambda:us-east-1:{role.split(':')[4]}:function:{name}:{version}", "State": "Active"}]
    # onceflow runs it in its own workers
    out = lam.invoke(FunctionName=name, Payload=json.dumps({"k": 1}))
    assert json.loads(out["Payload"].read()) == {"k": 1}
    # a provider in use cannot be deleted
    with pytest.raises(ClientError) as err:
        lam.delete_capacity_provider(CapacityProviderName=arn)
    assert refused(err)[0] == "ResourceConflictException"
    assert lam.get_capacity_provider(CapacityProviderName=arn)["CapacityProvider"]["State"] == "Active"
    lam.delete_function(FunctionName=name)
    deleted = lam.delete_capacity_provider(CapacityProviderName=arn)
    assert deleted["CapacityProvider"]["State"] == "Deleting"
    with pytest.raises(ClientError) as err:
        lam.get_capacity_provider(CapacityProviderName=arn)
    assert refused(err)[0] == "ResourceNotFoundException"


def test_function_refusals(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    arn = provider(aws, role)["CapacityProviderArn"]
    with pytest.raises(ClientError) as err:
        managed_function(aws, role, arn, MemorySize=1024)
    assert refused(err) == ("ValidationException",
                            "Lambda Managed Instance functions must have memory size greater than or equal to 2048",
                            400)  # fmt: skip
    with pytest.raises(ClientError) as err:
        managed_function(aws, role, arn.rsplit(":", 1)[0] + ":no-such-provider")
    assert refused(err)[0] == "InvalidParameterValueException"
    plain = lam.create_function(FunctionName=unique("plain"), Runtime="python3.12", Role=role, Handler="app.handler",
                                Code={"ZipFile": zip_of(ECHO)})["FunctionName"]  # fmt: skip
    with pytest.raises(ClientError) as err:
        lam.update_function_configuration(FunctionName=plain, CapacityProviderConfig={
            "LambdaManagedInstancesCapacityProviderConfig": {"CapacityProviderArn": arn}})  # fmt: skip
    assert refused(err) == ("InvalidParameterValueException",
                            "CapacityProviderConfig isn't supported for Lambda Default functions.", 400)  # fmt: skip
    assert "CapacityProviderConfig" not in lam.get_function_configuration(FunctionName=plain)
    managed = managed_function(aws, role, arn)["FunctionName"]
    with pytest.raises(ClientError) as err:
        lam.update_function_configuration(FunctionName=managed, MemorySize=512)
    assert refused(err)[0] == "ValidationException"
    assert lam.get_function_configuration(FunctionName=managed)["MemorySize"] == 2048
    changed = lam.update_function_configuration(FunctionName=managed, CapacityProviderConfig={
        "LambdaManagedInstancesCapacityProviderConfig": {"CapacityProviderArn": arn,
                                                         "PerExecutionEnvironmentMaxConcurrency": 4}})  # fmt: skip
    assert changed["CapacityProviderConfig"]["LambdaManagedInstancesCapacityProviderConfig"][
        "PerExecutionEnvironmentMaxConcurrency"] == 4  # fmt: skip


def test_function_scaling_config(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    arn = provider(aws, role)["CapacityProviderArn"]
    name = managed_function(aws, role, arn)["FunctionName"]
    version = lam.publish_version(FunctionName=name)["Version"]
    assert lam.get_function_scaling_config(FunctionName=name, Qualifier=version)["FunctionArn"].endswith(
        f":{name}:{version}")  # fmt: skip
    wanted = {"MinExecutionEnvironments": 2, "MaxExecutionEnvironments": 10}
    put = lam.put_function_scaling_config(FunctionName=name, Qualifier=version, FunctionScalingConfig=wanted)
    assert put["FunctionState"] == "Active"
    got = lam.get_function_scaling_config(FunctionName=name, Qualifier=version)
    assert got["RequestedFunctionScalingConfig"] == wanted
    assert got["AppliedFunctionScalingConfig"] == wanted
    with pytest.raises(ClientError) as err:
        lam.put_function_scaling_config(FunctionName=name, Qualifier=version, FunctionScalingConfig={
            "MinExecutionEnvironments": 5, "MaxExecutionEnvironments": 1})  # fmt: skip
    assert refused(err)[0] == "InvalidParameterValueException"
    assert lam.get_function_scaling_config(FunctionName=name, Qualifier=version)["RequestedFunctionScalingConfig"] \
        == wanted
    with pytest.raises(ClientError) as err:
        lam.get_function_scaling_config(FunctionName=name, Qualifier="99")
    assert refused(err)[0] == "ResourceNotFoundException"
    raw = aws("lambda", config=botocore.config.Config(parameter_validation=False))
    with pytest.raises(ClientError) as err:  # the model's pattern: a number or $LATEST.PUBLISHED
        raw.get_function_scaling_config(FunctionName=name, Qualifier="$LATEST")
    assert refused(err)[0] == "ValidationException"
    plain = lam.create_function(FunctionName=unique("plain"), Runtime="python3.12", Role=role, Handler="app.handler",
                                Code={"ZipFile": zip_of(ECHO)}, Publish=True)  # fmt: skip
    with pytest.raises(ClientError) as err:
        lam.put_function_scaling_config(FunctionName=plain["FunctionName"], Qualifier=plain["Version"],
                                        FunctionScalingConfig=wanted)  # fmt: skip
    assert refused(err)[0] == "InvalidParameterValueException"


def test_latest_published(aws: Callable[..., Any], role: str) -> None:
    """PublishTo=LATEST_PUBLISHED (re)publishes the one $LATEST.PUBLISHED version, which an
    unqualified invocation runs (AWS docs: '$LATEST.PUBLISHED version in Lambda Managed Instances')."""
    lam = aws("lambda")
    account = role.split(":")[4]
    arn = provider(aws, role)["CapacityProviderArn"]
    name = managed_function(aws, role, arn)["FunctionName"]
    fn_arn = f"arn:aws:lambda:us-east-1:{account}:function:{name}"
    with pytest.raises(ClientError) as err:
        lam.get_function(FunctionName=name, Qualifier="$LATEST.PUBLISHED")
    assert refused(err)[0] == "ResourceNotFoundException"
    published = lam.publish_version(FunctionName=name, PublishTo="LATEST_PUBLISHED")
    assert (published["Version"], published["FunctionArn"]) == ("$LATEST.PUBLISHED", f"{fn_arn}:$LATEST.PUBLISHED")
    got = lam.get_function_configuration(FunctionName=f"{name}:$LATEST.PUBLISHED")
    assert (got["Version"], got["FunctionArn"]) == ("$LATEST.PUBLISHED", f"{fn_arn}:$LATEST.PUBLISHED")
    assert lam.get_function(FunctionName=name)["Configuration"]["Version"] == "$LATEST"  # reads stay on $LATEST
    out = lam.invoke(FunctionName=name, Payload=b"{}")
    out["Payload"].read()
    assert out["ExecutedVersion"] == "$LATEST.PUBLISHED"
    out = lam.invoke(FunctionName=name, Qualifier="$LATEST", Payload=b"{}")
    out["Payload"].read()
    assert out["ExecutedVersion"] == "$LATEST"
    # republished after a change: same version name, the new configuration
    lam.update_function_configuration(FunctionName=name, Description="second")
    again = lam.publish_version(FunctionName=name, PublishTo="LATEST_PUBLISHED")
    assert (again["Version"], again["Description"]) == ("$LATEST.PUBLISHED", "second")
    assert lam.list_function_versions_by_capacity_provider(CapacityProviderName=arn)["FunctionVersions"] == [
        {"FunctionArn": f"{fn_arn}:$LATEST.PUBLISHED", "State": "Active"}]
    wanted = {"MinExecutionEnvironments": 1, "MaxExecutionEnvironments": 4}
    lam.put_function_scaling_config(FunctionName=name, Qualifier="$LATEST.PUBLISHED", FunctionScalingConfig=wanted)
    assert lam.get_function_scaling_config(FunctionName=name, Qualifier="$LATEST.PUBLISHED")[
        "RequestedFunctionScalingConfig"] == wanted  # fmt: skip
    at_create = managed_function(aws, role, arn, Publish=True, PublishTo="LATEST_PUBLISHED")
    assert at_create["Version"] == "$LATEST.PUBLISHED"
    assert lam.get_function(FunctionName=at_create["FunctionName"], Qualifier="$LATEST.PUBLISHED")[
        "Configuration"]["Version"] == "$LATEST.PUBLISHED"  # fmt: skip
    # a default function has no $LATEST.PUBLISHED
    plain = lam.create_function(FunctionName=unique("plain"), Runtime="python3.12", Role=role, Handler="app.handler",
                                Code={"ZipFile": zip_of(ECHO)})["FunctionName"]  # fmt: skip
    with pytest.raises(ClientError) as err:
        lam.publish_version(FunctionName=plain, PublishTo="LATEST_PUBLISHED")
    assert refused(err)[0] == "InvalidParameterValueException"
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName=plain)["Versions"]] == ["$LATEST"]
