"""What CreateFunction/UpdateFunctionConfiguration refuse as AWS does, changing nothing."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import ECHO, lambda_role, zip_of


def make_zip() -> bytes:
    return zip_of(ECHO)


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "validation-role")


def create(aws: Callable[..., Any], role: str, name: str, **extra: Any) -> dict[str, Any]:
    return aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                         Code={"ZipFile": make_zip()}, **extra)  # fmt: skip


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def absent(aws: Callable[..., Any], name: str) -> bool:
    try:
        aws("lambda").get_function(FunctionName=name)
    except ClientError as exc:
        return exc.response["Error"]["Code"] == "ResourceNotFoundException"
    return False


def test_a_name_over_64_characters(aws: Callable[..., Any], role: str) -> None:
    name = "n" * 65
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name)
    assert refused(excinfo) == (
        "InvalidParameterValueException",
        f"1 validation error detected: Value '{name}' at 'functionName' failed to satisfy constraint: "
        "Member must have length less than or equal to 64",
        400,
    )
    assert absent(aws, name)
    assert create(aws, role, "n" * 63 + uuid.uuid4().hex[:1])["FunctionName"]  # 64 is fine


def test_an_environment_over_4_kb(aws: Callable[..., Any], role: str) -> None:
    name = f"env-{uuid.uuid4().hex[:8]}"
    variables = {"BIG": "x" * 4090}
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name, Environment={"Variables": variables})
    code, message, status = refused(excinfo)
    assert (code, status) == ("InvalidParameterValueException", 400)
    assert message == (
        "Lambda was unable to configure your environment variables because the environment variables you have "
        f"provided exceeded the 4KB limit. String measured: {json.dumps(variables, separators=(',', ':'))}"
    )
    assert absent(aws, name)
    create(aws, role, name, Environment={"Variables": {"SMALL": "x" * 4000}})
    with pytest.raises(ClientError) as excinfo:
        aws("lambda").update_function_configuration(FunctionName=name, Environment={"Variables": variables})
    assert refused(excinfo)[0] == "InvalidParameterValueException"
    kept = aws("lambda").get_function_configuration(FunctionName=name)["Environment"]["Variables"]
    assert kept == {"SMALL": "x" * 4000}


def test_ephemeral_storage_and_variable_names(aws: Callable[..., Any], role: str) -> None:
    name = f"limits-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name, EphemeralStorage={"Size": 10241})
    assert refused(excinfo) == (
        "ValidationException",
        "1 validation error detected: Value '10241' at 'ephemeralStorage.size' failed to satisfy constraint: "
        "Member must have value less than or equal to 10240",
        400,
    )
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name, Environment={"Variables": {"GOOD": "1", "1BAD": "2"}})
    assert refused(excinfo) == (
        "ValidationException",
        "1 validation error detected: Value at 'environment.variables' failed to satisfy constraint: Map keys must "
        "satisfy constraint: [Member must satisfy regular expression pattern: [a-zA-Z]([a-zA-Z0-9_])+]",
        400,
    )
    assert absent(aws, name)
    create(aws, role, name, EphemeralStorage={"Size": 10240}, Environment={"Variables": {"A_1": "x"}})
    with pytest.raises(ClientError) as excinfo:
        aws("lambda").update_function_configuration(FunctionName=name, Environment={"Variables": {"_X": "y"}})
    assert refused(excinfo)[0] == "ValidationException"
    assert aws("lambda").get_function_configuration(FunctionName=name)["Environment"]["Variables"] == {"A_1": "x"}


def test_a_vpc_onceflow_cannot_attach(aws: Callable[..., Any], role: str) -> None:
    name = f"vpc-{uuid.uuid4().hex[:8]}"
    vpc = {"SubnetIds": ["subnet-0abc"], "SecurityGroupIds": ["sg-0abc"]}
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name, VpcConfig=vpc)
    assert refused(excinfo) == (
        "InvalidParameterValueException",
        "The provided execution role does not have permissions to call CreateNetworkInterface on EC2", 400)
    assert absent(aws, name)
    # A role that may manage network interfaces gets as far as EC2, which has no such subnet.
    iam = aws("iam")
    role_name = role.rsplit("/", 1)[1]
    iam.put_role_policy(RoleName=role_name, PolicyName="eni", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "ec2:CreateNetworkInterface", "Resource": "*"}]}))  # fmt: skip
    try:
        with pytest.raises(ClientError) as excinfo:
            create(aws, role, name, VpcConfig=vpc)
        assert refused(excinfo)[1] == (
            "Error occurred while DescribeSubnets. EC2 Error Code: InvalidSubnetID.NotFound. "
            "EC2 Error Message: The subnet ID 'subnet-0abc' does not exist")
    finally:
        iam.delete_role_policy(RoleName=role_name, PolicyName="eni")
    assert absent(aws, name)
    # An empty VPC configuration is accepted and shown, as AWS shows it.
    shown = create(aws, role, name, VpcConfig={"SubnetIds": [], "SecurityGroupIds": []})["VpcConfig"]
    assert shown == {"SubnetIds": [], "SecurityGroupIds": [], "VpcId": "", "Ipv6AllowedForDualStack": False}


def test_logging_config_is_kept(aws: Callable[..., Any], role: str) -> None:
    name = f"logcfg-{uuid.uuid4().hex[:8]}"
    created = create(aws, role, name)
    assert created["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{name}"}
    lam = aws("lambda")
    updated = lam.update_function_configuration(FunctionName=name, LoggingConfig={"LogFormat": "JSON"})
    assert updated["LoggingConfig"] == {
        "LogFormat": "JSON", "ApplicationLogLevel": "INFO", "SystemLogLevel": "INFO", "LogGroup": f"/aws/lambda/{name}"}
    lam.update_function_configuration(FunctionName=name, LoggingConfig={"ApplicationLogLevel": "DEBUG",
                                                                        "LogGroup": "/custom/group"})  # fmt: skip
    assert lam.get_function_configuration(FunctionName=name)["LoggingConfig"] == {
        "LogFormat": "JSON", "ApplicationLogLevel": "DEBUG", "SystemLogLevel": "INFO", "LogGroup": "/custom/group"}


def test_a_runtime_past_its_block_dates(aws: Callable[..., Any], role: str) -> None:
    """python3.7's create and update blocks both lie before this project's first day (runtime_lifecycle.py)."""
    message = ("The runtime parameter of python3.7 is no longer supported for creating or updating AWS Lambda "
               "functions. We recommend you use the new runtime (python3.13) while creating or updating functions.")
    name = f"old-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        aws("lambda").create_function(FunctionName=name, Runtime="python3.7", Role=role, Handler="app.handler",
                                      Code={"ZipFile": make_zip()})  # fmt: skip
    assert refused(excinfo) == ("InvalidParameterValueException", message, 400)
    assert absent(aws, name)
    create(aws, role, name)
    lam = aws("lambda")
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Runtime="python3.7")
    assert refused(excinfo) == ("InvalidParameterValueException", message, 400)
    assert lam.get_function_configuration(FunctionName=name)["Runtime"] == "python3.12"


TEXT_LEVELS = ('LogLevel is not supported when LogFormat is set to "Text". Remove LogLevel from your request or '
               'change the LogFormat to "JSON" and try again.')  # fmt: skip


@pytest.mark.parametrize("logging", [{"LogFormat": "Text", "ApplicationLogLevel": "DEBUG"}, {"SystemLogLevel": "WARN"}])
def test_log_levels_under_the_text_format_are_refused(
    aws: Callable[..., Any], role: str, logging: dict[str, str]
) -> None:
    name = f"textlv-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        create(aws, role, name, LoggingConfig=logging)
    assert refused(excinfo) == ("InvalidParameterValueException", TEXT_LEVELS, 400)
    assert absent(aws, name)
    create(aws, role, name)
    lam = aws("lambda")
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, LoggingConfig=logging, Timeout=9)
    assert refused(excinfo) == ("InvalidParameterValueException", TEXT_LEVELS, 400)
    shown = lam.get_function_configuration(FunctionName=name)
    assert shown["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{name}"} and shown["Timeout"] == 3


def test_a_move_to_text_drops_the_levels(aws: Callable[..., Any], role: str) -> None:
    name = f"tojson-{uuid.uuid4().hex[:8]}"
    created = create(aws, role, name, LoggingConfig={"LogFormat": "JSON", "ApplicationLogLevel": "DEBUG"})
    assert created["LoggingConfig"]["ApplicationLogLevel"] == "DEBUG"
    lam = aws("lambda")
    updated = lam.update_function_configuration(FunctionName=name, LoggingConfig={"LogFormat": "Text"})
    assert updated["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{name}"}
    back = lam.update_function_configuration(FunctionName=name, LoggingConfig={"LogFormat": "JSON"})
    assert back["LoggingConfig"]["ApplicationLogLevel"] == "INFO"  # UNCONFIRMED (config.merge_logging)
