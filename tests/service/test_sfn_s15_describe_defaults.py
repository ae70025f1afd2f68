"""DescribeStateMachine / DescribeStateMachineForExecution of a machine created with no
configurations, as AWS answers in LocalStack's AWS-validated snapshot
tests/aws/services/stepfunctions/v2/test_sfn_api_variable_references.snapshot.json (recorded
2024-11-20): encryptionConfiguration {"type": "AWS_OWNED_KEY"}, loggingConfiguration
{"includeExecutionData": false, "level": "OFF"}, tracingConfiguration {"enabled": false}."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished, states_role

PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
DEFAULTS = {"encryptionConfiguration": {"type": "AWS_OWNED_KEY"},
            "loggingConfiguration": {"includeExecutionData": False, "level": "OFF"},
            "tracingConfiguration": {"enabled": False}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "s15-describe")


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def _configs(shape: dict[str, Any]) -> dict[str, Any]:
    return {k: shape.get(k) for k in DEFAULTS}


def test_machine_without_configurations_is_described_with_aws_defaults(sfn: Any, role: str) -> None:
    arn = sfn.create_state_machine(name=f"s15-{uuid.uuid4().hex[:10]}", definition=PASS,
                                   roleArn=role)["stateMachineArn"]
    assert _configs(sfn.describe_state_machine(stateMachineArn=arn)) == DEFAULTS
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    assert finished(sfn, execution)["status"] == "SUCCEEDED"
    assert _configs(sfn.describe_state_machine_for_execution(executionArn=execution)) == DEFAULTS
    version = sfn.publish_state_machine_version(stateMachineArn=arn)["stateMachineVersionArn"]
    assert sfn.describe_state_machine(stateMachineArn=version)["encryptionConfiguration"] == \
        DEFAULTS["encryptionConfiguration"]


def test_a_given_encryption_configuration_is_kept(sfn: Any, role: str) -> None:
    given = {"type": "CUSTOMER_MANAGED_KMS_KEY", "kmsKeyId": "alias/s15", "kmsDataKeyReusePeriodSeconds": 300}
    arn = sfn.create_state_machine(name=f"s15-{uuid.uuid4().hex[:10]}", definition=PASS, roleArn=role,
                                   encryptionConfiguration=given)["stateMachineArn"]
    assert sfn.describe_state_machine(stateMachineArn=arn)["encryptionConfiguration"] == given


def test_variable_references_are_described_only_where_a_state_reads_one(sfn: Any, role: str) -> None:
    # test_sfn_api_variable_references (BASE_REFERENCE_IN_PARAMETERS, CHOICE_CONDITION_CONSTANT_JSONATA)
    reads = json.dumps({"StartAt": "State0", "States": {
        "State0": {"Type": "Pass", "Parameters": {"result": "$result"}, "Assign": {"result": "foobar"},
                   "Next": "State1"},
        "State1": {"Type": "Pass", "ResultPath": "$.result", "Parameters": {"result.$": "$result"}, "End": True}}})
    arn = sfn.create_state_machine(name=f"s15-{uuid.uuid4().hex[:10]}", definition=reads,
                                   roleArn=role)["stateMachineArn"]
    assert sfn.describe_state_machine(stateMachineArn=arn)["variableReferences"] == {"State1": ["result"]}
    execution = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    finished(sfn, execution)
    described = sfn.describe_state_machine_for_execution(executionArn=execution)
    assert described["variableReferences"] == {"State1": ["result"]}
    plain = sfn.create_state_machine(name=f"s15-{uuid.uuid4().hex[:10]}", definition=PASS,
                                     roleArn=role)["stateMachineArn"]
    assert "variableReferences" not in sfn.describe_state_machine(stateMachineArn=plain)
