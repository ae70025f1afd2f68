"""Step Functions answers that moto's own suite (run against onceflow, issue 17) expects otherwise, held
to what AWS recorded (LocalStack's snapshots of AWS) or documents."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sfn_setup import TRUST, finished, states_role

PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfn-moto")


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def test_a_version_is_described_with_the_machines_default_configurations(sfn: Any, role: str) -> None:
    # AWS (test_sfn_api_versioning.snapshot.json, test_create_publish_describe_with_version_description):
    # the version's loggingConfiguration carries includeExecutionData as the machine's does (moto: level only)
    name = f"moto-v-{uuid.uuid4().hex[:8]}"
    made = sfn.create_state_machine(name=name, definition=PASS, roleArn=role, publish=True,
                                    versionDescription="HelloWorld!")
    version = sfn.describe_state_machine(stateMachineArn=made["stateMachineVersionArn"])
    version.pop("ResponseMetadata")
    # (the versioning recording is from 2023-08, before encryption configurations: AWS's 2024-11
    # recording in test_sfn_api_variable_references describes the default encryptionConfiguration too)
    assert sorted(version) == ["creationDate", "definition", "description", "encryptionConfiguration",
                               "loggingConfiguration", "name", "roleArn", "stateMachineArn", "status",
                               "tracingConfiguration", "type"]
    assert version["stateMachineArn"] == made["stateMachineArn"] + ":1"
    assert version["loggingConfiguration"] == {"includeExecutionData": False, "level": "OFF"}
    assert version["tracingConfiguration"] == {"enabled": False}
    assert (version["name"], version["status"], version["type"], version["description"]) == (
        name, "ACTIVE", "STANDARD", "HelloWorld!")
    machine = sfn.describe_state_machine(stateMachineArn=made["stateMachineArn"])
    assert machine["loggingConfiguration"] == version["loggingConfiguration"]
    assert "description" not in machine


def test_an_alias_over_three_versions_is_refused_in_aws_words(sfn: Any, role: str) -> None:
    # AWS (test_sfn_api_aliasing.snapshot.json, too_many_routing): the list printed as Java prints its items
    sm = sfn.create_state_machine(name=f"moto-a-{uuid.uuid4().hex[:8]}", definition=PASS, roleArn=role)[
        "stateMachineArn"]
    versions = []
    for n in range(3):
        sfn.update_state_machine(stateMachineArn=sm, definition=PASS.replace('"P"', f'"P{n}"'))
        versions.append(sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"])
    routing = [{"stateMachineVersionArn": v, "weight": w} for v, w in zip(versions, (50, 30, 20), strict=True)]
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="three", routingConfiguration=routing)
    shown = ", ".join(f"RoutingConfigurationListItem(stateMachineVersionArn={v}, weight={w})"
                      for v, w in zip(versions, (50, 30, 20), strict=True))
    assert exc.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": f"1 validation error detected: Value '[{shown}]' at 'routingConfiguration' failed to satisfy "
                   "constraint: Member must have length less than or equal to 2"}
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []
    one = [{"stateMachineVersionArn": versions[0], "weight": 100}]
    alias = sfn.create_state_machine_alias(name="one", routingConfiguration=one)["stateMachineAliasArn"]
    with pytest.raises(ClientError) as exc:  # UpdateStateMachineAlias shares the member and its words
        sfn.update_state_machine_alias(stateMachineAliasArn=alias, routingConfiguration=routing)
    assert exc.value.response["Error"]["Message"].startswith(
        "1 validation error detected: Value '[RoutingConfigurationListItem(")
    assert sfn.describe_state_machine_alias(stateMachineAliasArn=alias)["routingConfiguration"] == one


def test_a_stack_whose_state_machine_names_an_invalid_resource_rolls_back_without_outputs(
        aws: Callable[..., Any], sfn: Any, role: str) -> None:
    # moto's CloudFormation tests give a Task the resource "arn:aws:lambda:us-east-1:111122223333;:function:..."
    # and read the stack's Outputs at once: Step Functions refuses that definition, so the stack rolls
    # back and has no Outputs (boto3's resource then yields None, the suite's TypeError)
    cf = aws("cloudformation")
    name = f"moto-cf-{uuid.uuid4().hex[:8]}"
    definition = json.dumps({"StartAt": "H", "States": {"H": {
        "Type": "Task", "Resource": "arn:aws:lambda:us-east-1:111122223333;:function:HelloFunction", "End": True}}})
    template = {"Resources": {"M": {"Type": "AWS::StepFunctions::StateMachine", "Properties": {
        "StateMachineName": name, "DefinitionString": definition, "RoleArn": role}}},
        "Outputs": {"Arn": {"Value": {"Ref": "M"}}}}
    cf.create_stack(StackName=name, TemplateBody=json.dumps(template))
    deadline = time.time() + 60
    while (stack := cf.describe_stacks(StackName=name)["Stacks"][0])["StackStatus"].endswith("IN_PROGRESS"):
        assert time.time() < deadline
        time.sleep(0.1)
    assert stack["StackStatus"] == "ROLLBACK_COMPLETE"
    assert "Outputs" not in stack
    failed = [e for e in cf.describe_stack_events(StackName=name)["StackEvents"]
              if e["LogicalResourceId"] == "M" and e["ResourceStatus"] == "CREATE_FAILED"]
    assert len(failed) == 1 and "Invalid State Machine Definition" in failed[0]["ResourceStatusReason"]
    assert not [m for m in sfn.list_state_machines()["stateMachines"] if m["name"] == name]


@pytest.mark.parametrize(("region", "partition"), [("cn-northwest-1", "aws-cn"), ("us-gov-west-1", "aws-us-gov"),
                                                   ("us-isob-east-1", "aws-iso-b")])
def test_arns_name_the_region_partition(aws: Callable[..., Any], region: str, partition: str) -> None:
    iam, sfn = aws("iam", region=region), aws("stepfunctions", region=region)
    role = iam.create_role(RoleName=f"part-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    assert role.startswith(f"arn:{partition}:iam::")
    machine = sfn.create_state_machine(name=f"m-{uuid.uuid4().hex[:8]}", definition=PASS, roleArn=role,
                                       publish=True)
    assert machine["stateMachineArn"].startswith(f"arn:{partition}:states:{region}:")
    assert machine["stateMachineVersionArn"].startswith(f"arn:{partition}:states:{region}:")
    execution = sfn.start_execution(stateMachineArn=machine["stateMachineArn"])["executionArn"]
    assert execution.startswith(f"arn:{partition}:states:{region}:")
    assert finished(sfn, execution)["status"] == "SUCCEEDED"
    activity = sfn.create_activity(name=f"a-{uuid.uuid4().hex[:8]}")["activityArn"]
    assert activity.startswith(f"arn:{partition}:states:{region}:")
