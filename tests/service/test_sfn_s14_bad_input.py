"""Issue 17's bad-input line through boto3: each refused call answers AWS's code and message and
changes nothing (the state is read back after it). Messages are AWS's as recorded in LocalStack's
AWS-validated snapshots (tests/aws/services/stepfunctions/v2) unless a test says otherwise."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError
from sfn_setup import finished, states_role

POLL_CONFIG = botocore.config.Config(read_timeout=90, retries={"max_attempts": 1})
PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "s14-bad")


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=POLL_CONFIG)


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def machine_with_versions(sfn: Any, role: str, count: int) -> tuple[str, list[str]]:
    sm = sfn.create_state_machine(name=unique("bad"), definition=PASS, roleArn=role)["stateMachineArn"]
    versions = []
    for n in range(count):
        sfn.update_state_machine(stateMachineArn=sm, definition=json.dumps(
            {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": n, "End": True}}}))
        versions.append(sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"])
    return sm, versions


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    d = finished(sfn, arn)
    assert d["status"] != "RUNNING"
    return d


# ---------------------------------------------------------------------- aliases
def test_more_than_two_versions_in_a_routing(sfn: Any, role: str) -> None:
    sm, (v1, v2, v3) = machine_with_versions(sfn, role, 3)
    routing = [{"stateMachineVersionArn": v1, "weight": 50}, {"stateMachineVersionArn": v2, "weight": 30},
               {"stateMachineVersionArn": v3, "weight": 20}]
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="three", routingConfiguration=routing)
    shown = ", ".join(f"RoutingConfigurationListItem(stateMachineVersionArn={r['stateMachineVersionArn']}, "
                      f"weight={r['weight']})" for r in routing)
    assert error_of(exc) == ("ValidationException", f"1 validation error detected: Value '[{shown}]' at "
                             "'routingConfiguration' failed to satisfy constraint: Member must have length less "
                             "than or equal to 2")
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []
    alias = sfn.create_state_machine_alias(name="two", routingConfiguration=[
        {"stateMachineVersionArn": v1, "weight": 100}])["stateMachineAliasArn"]
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=alias, routingConfiguration=routing)
    assert error_of(exc)[0] == "ValidationException" and "Member must have length less than or equal to 2" in \
        error_of(exc)[1]
    assert sfn.describe_state_machine_alias(stateMachineAliasArn=alias)["routingConfiguration"] == [
        {"stateMachineVersionArn": v1, "weight": 100}]


@pytest.mark.parametrize("weights", [(70, 29), (70, 31), (0, 0)])
def test_weights_that_do_not_sum_to_100(sfn: Any, role: str, weights: tuple[int, int]) -> None:
    sm, (v1, v2) = machine_with_versions(sfn, role, 2)
    routing = [{"stateMachineVersionArn": v1, "weight": weights[0]},
               {"stateMachineVersionArn": v2, "weight": weights[1]}]
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="sum", routingConfiguration=routing)
    assert error_of(exc) == ("ValidationException", "Sum of routing configuration weights must equal 100. "
                             f"Received: [{weights[0]}, {weights[1]}]")
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []
    alias = sfn.create_state_machine_alias(name="ok", routingConfiguration=[
        {"stateMachineVersionArn": v1, "weight": 100}])["stateMachineAliasArn"]
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=alias, routingConfiguration=routing)
    assert error_of(exc) == ("ValidationException", "Sum of routing configuration weights must equal 100. "
                             f"Received: [{weights[0]}, {weights[1]}]")
    assert sfn.describe_state_machine_alias(stateMachineAliasArn=alias)["routingConfiguration"] == [
        {"stateMachineVersionArn": v1, "weight": 100}]


def test_a_weight_over_100(sfn: Any, role: str) -> None:
    sm, (v1,) = machine_with_versions(sfn, role, 1)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="big", routingConfiguration=[
            {"stateMachineVersionArn": v1, "weight": 101}])
    assert error_of(exc) == ("ValidationException", "1 validation error detected: Value '101' at "
                             "'routingConfiguration.1.member.weight' failed to satisfy constraint: Member must "
                             "have value less than or equal to 100")
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []


def test_an_alias_name_of_digits(sfn: Any, role: str) -> None:
    sm, (v1,) = machine_with_versions(sfn, role, 1)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="123", routingConfiguration=[
            {"stateMachineVersionArn": v1, "weight": 100}])
    assert error_of(exc) == ("ValidationException", "1 validation error detected: Value '123' at 'name' failed "
                             "to satisfy constraint: Member must satisfy regular expression pattern: "
                             "^(?=.*[a-zA-Z_\\-\\.])[a-zA-Z0-9_\\-\\.]+$")
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []


def test_update_alias_to_a_version_of_another_machine(sfn: Any, role: str) -> None:
    _sm, (v1,) = machine_with_versions(sfn, role, 1)
    _other, (w1,) = machine_with_versions(sfn, role, 1)
    alias = sfn.create_state_machine_alias(name="mine", routingConfiguration=[
        {"stateMachineVersionArn": v1, "weight": 100}])["stateMachineAliasArn"]
    before = sfn.describe_state_machine_alias(stateMachineAliasArn=alias)
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=alias, routingConfiguration=[
            {"stateMachineVersionArn": w1, "weight": 100}])
    code, message = error_of(exc)
    # UNCONFIRMED wording (no AWS recording found); the code is AWS's for a routing it refuses
    assert code == "ValidationException"
    assert w1 in message and "[{" not in message  # names the ARNs as AWS lists them, not a Python repr
    after = sfn.describe_state_machine_alias(stateMachineAliasArn=alias)
    assert after == before | {"ResponseMetadata": after["ResponseMetadata"]}
    ran = sfn.start_execution(stateMachineArn=alias)["executionArn"]
    assert wait_done(sfn, ran)["stateMachineVersionArn"] == v1


# ---------------------------------------------------------------------- versions
def test_publish_on_a_deleted_machine(sfn: Any, role: str) -> None:
    sm, _ = machine_with_versions(sfn, role, 1)
    sfn.delete_state_machine(stateMachineArn=sm)
    for call in (lambda: sfn.publish_state_machine_version(stateMachineArn=sm),
                 lambda: sfn.publish_state_machine_version(stateMachineArn=sm, description="again")):
        with pytest.raises(ClientError) as exc:
            call()
        assert error_of(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{sm}'")
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine(stateMachineArn=sm, definition=PASS, publish=True)
    assert error_of(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{sm}'")
    with pytest.raises(ClientError) as exc:
        sfn.describe_state_machine(stateMachineArn=f"{sm}:1")
    assert error_of(exc)[0] == "StateMachineDoesNotExist"


# ---------------------------------------------------------------------- activity tokens
def test_activity_tokens_already_used_or_invalid(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("used"))["activityArn"]
    sm = sfn.create_state_machine(name=unique("used"), roleArn=role, definition=json.dumps(
        {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}}))
    ran = sfn.start_execution(stateMachineArn=sm["stateMachineArn"], input='{"n": 1}')["executionArn"]
    task = sfn.get_activity_task(activityArn=activity, workerName="w")
    token = task["taskToken"]
    sfn.send_task_heartbeat(taskToken=token)
    sfn.send_task_success(taskToken=token, output='{"done": 1}')
    done = wait_done(sfn, ran)
    assert done["status"] == "SUCCEEDED" and json.loads(done["output"]) == {"done": 1}
    history = sfn.get_execution_history(executionArn=ran)["events"]
    gone = ("TaskTimedOut", "Task Timed Out: 'Provided task does not exist anymore'")
    for call in (lambda: sfn.send_task_success(taskToken=token, output='{"again": 1}'),
                 lambda: sfn.send_task_failure(taskToken=token, error="E", cause="c"),
                 lambda: sfn.send_task_heartbeat(taskToken=token)):
        with pytest.raises(ClientError) as exc:
            call()
        assert error_of(exc) == gone
    with pytest.raises(ClientError) as exc:  # [AWS] moto's aws_verified recording
        sfn.send_task_failure(taskToken="bad_token", error="E")
    assert error_of(exc) == ("InvalidToken", "Invalid Token: 'Invalid token'")
    assert sfn.get_execution_history(executionArn=ran)["events"] == history
    assert json.loads(sfn.describe_execution(executionArn=ran)["output"]) == {"done": 1}


# ---------------------------------------------------------------------- aws-sdk service names
def sdk_task(resource: str) -> str:
    return json.dumps({"StartAt": "T", "States": {"T": {"Type": "Task", "Resource": resource, "End": True}}})


@pytest.mark.parametrize("service", ["s3", "sfn", "eventbridge", "cloudwatchlogs", "elasticloadbalancingv2",
                                     "acmpca", "costexplorer", "sesv2", "ec2"])
def test_aws_sdk_service_names_aws_uses_are_accepted(sfn: Any, role: str, service: str) -> None:
    # the Java SDK v2 client names the Step Functions guide uses (serviceId, lower case, no spaces)
    sm = sfn.create_state_machine(name=unique("sdk"), roleArn=role,
                                  definition=sdk_task(f"arn:aws:states:::aws-sdk:{service}:listThings"))
    assert sm["stateMachineArn"]


@pytest.mark.parametrize("service", ["nosuchservice", "DynamoDB", "acm-pca"])
def test_an_unknown_aws_sdk_service_is_refused_at_create(sfn: Any, role: str, service: str) -> None:
    name = unique("sdk")
    resource = f"arn:aws:states:::aws-sdk:{service}:listThings"
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine(name=name, roleArn=role, definition=sdk_task(resource))
    assert error_of(exc) == ("InvalidDefinition", "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: "
                             f"The resource provided {resource} is not recognized. The value is not a valid resource "
                             "ARN, or the resource is not available in this region. at /States/T/Resource'")
    assert all(m["name"] != name for m in sfn.list_state_machines()["stateMachines"])
    checked = sfn.validate_state_machine_definition(definition=sdk_task(resource))
    assert checked["result"] == "FAIL"
    assert [d["location"] for d in checked["diagnostics"]] == ["/States/T/Resource"]


# ---------------------------------------------------------------------- TestState and the waiting patterns
@pytest.fixture(scope="module")
def sfn_direct(aws: Callable[..., Any]) -> Any:
    # TestState's model sends it to the `sync-` host prefix; the local endpoint has none
    return aws("stepfunctions", config=botocore.config.Config(inject_host_prefix=False))


WAITING = {
    "arn:aws:states:::sqs:sendMessage.waitForTaskToken": {"QueueUrl": "q", "MessageBody": {"t.$": "$$.Task.Token"}},
    "arn:aws:states:::glue:startJobRun.sync": {"JobName": "nightly"},
    "arn:aws:states:::states:startExecution.sync:2": {"StateMachineArn": "arn:aws:states:us-east-1:000000000000:"
                                                                         "stateMachine:child"},
}


@pytest.mark.parametrize("resource", list(WAITING))
def test_test_state_refuses_an_unmocked_waiting_pattern(sfn_direct: Any, role: str, resource: str) -> None:
    state = {"Type": "Task", "Resource": resource, "Parameters": WAITING[resource], "End": True}
    with pytest.raises(ClientError) as exc:
        sfn_direct.test_state(definition=json.dumps(state), roleArn=role, input="{}")
    # the code AWS answers the documented list's Map/Parallel with; the wording is UNCONFIRMED
    assert error_of(exc) == ("InvalidDefinition", "TestState API does not support the '.sync' or "
                             "'.waitForTaskToken' service integration patterns unless a mock is specified")
    mocked = sfn_direct.test_state(definition=json.dumps(state), roleArn=role, input="{}",
                                   mock={"result": json.dumps({"done": True}), "fieldValidationMode": "NONE"})
    assert mocked["status"] == "SUCCEEDED" and json.loads(mocked["output"]) == {"done": True}


def test_the_token_of_a_stopped_execution_is_gone(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("stopped"))["activityArn"]
    sm = sfn.create_state_machine(name=unique("stopped"), roleArn=role, definition=json.dumps(
        {"StartAt": "Work", "States": {"Work": {"Type": "Task", "Resource": activity, "End": True}}}))
    ran = sfn.start_execution(stateMachineArn=sm["stateMachineArn"], input="{}")["executionArn"]
    token = sfn.get_activity_task(activityArn=activity, workerName="w")["taskToken"]
    sfn.stop_execution(executionArn=ran, error="Stopped", cause="by the test")
    assert wait_done(sfn, ran)["status"] == "ABORTED"
    history = sfn.get_execution_history(executionArn=ran)["events"]
    for call in (lambda: sfn.send_task_success(taskToken=token, output="{}"),
                 lambda: sfn.send_task_heartbeat(taskToken=token)):
        with pytest.raises(ClientError) as exc:
            call()
        assert error_of(exc) == ("TaskTimedOut", "Task Timed Out: 'Provided task does not exist anymore'")
    assert sfn.get_execution_history(executionArn=ran)["events"] == history
