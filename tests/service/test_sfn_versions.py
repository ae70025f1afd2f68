"""State machine versions and aliases through boto3: publishing, routing, executions through them."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def definition(result: str) -> str:
    """A Pass that tells which version ran and what the context object says of the machine."""
    return json.dumps({"StartAt": "P", "States": {"P": {
        "Type": "Pass", "Parameters": {"v": result, "sm.$": "$$.StateMachine.Id", "name.$": "$$.StateMachine.Name"},
        "End": True}}})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"sfn-versions-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def machine(sfn: Any, role: str, **kw: Any) -> str:
    return sfn.create_state_machine(name=f"ver-{uuid.uuid4().hex[:10]}", definition=definition("one"), roleArn=role,
                                    **kw)["stateMachineArn"]


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 30
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def test_publish_numbers_versions_and_is_idempotent_per_revision(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    v1 = sfn.publish_state_machine_version(stateMachineArn=sm, description="first")
    assert v1["stateMachineVersionArn"] == f"{sm}:1"
    again = sfn.publish_state_machine_version(stateMachineArn=sm)
    assert again["stateMachineVersionArn"] == f"{sm}:1"  # same revision: the same version
    up = sfn.update_state_machine(stateMachineArn=sm, definition=definition("two"), publish=True,
                                  versionDescription="second")
    assert up["stateMachineVersionArn"] == f"{sm}:2"
    assert up["revisionId"] == sfn.describe_state_machine(stateMachineArn=sm)["revisionId"]
    listed = sfn.list_state_machine_versions(stateMachineArn=sm)["stateMachineVersions"]
    assert [v["stateMachineVersionArn"] for v in listed] == [f"{sm}:2", f"{sm}:1"]
    d1 = sfn.describe_state_machine(stateMachineArn=f"{sm}:1")
    assert d1["stateMachineArn"] == f"{sm}:1"
    assert d1["description"] == "first"
    assert json.loads(d1["definition"])["States"]["P"]["Parameters"]["v"] == "one"
    assert sfn.describe_state_machine(stateMachineArn=f"{sm}:2")["description"] == "second"
    sfn.delete_state_machine_version(stateMachineVersionArn=f"{sm}:2")
    sfn.update_state_machine(stateMachineArn=sm, definition=definition("three"))
    v3 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    assert v3 == f"{sm}:3"  # numbers are never reused


def test_a_bare_publish_update_publishes_the_current_revision(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    first = sfn.update_state_machine(stateMachineArn=sm, publish=True)
    assert first["stateMachineVersionArn"] == f"{sm}:1"
    assert "revisionId" not in first  # as AWS records: no revision before a real update
    again = sfn.update_state_machine(stateMachineArn=sm, publish=True)
    assert again["stateMachineVersionArn"] == f"{sm}:1"


def test_an_unchanged_update_with_a_new_description_publishes_a_new_version(sfn: Any, role: str) -> None:
    out = sfn.create_state_machine(name=f"ver-{uuid.uuid4().hex[:10]}", definition=definition("one"), roleArn=role,
                                   publish=True, versionDescription="first version")
    sm = out["stateMachineArn"]
    assert "description" not in sfn.describe_state_machine(stateMachineArn=sm)
    up = sfn.update_state_machine(stateMachineArn=sm, definition=definition("one"), publish=True,
                                  versionDescription="second version")
    assert up["stateMachineVersionArn"] == f"{sm}:2"
    assert sfn.describe_state_machine(stateMachineArn=f"{sm}:2")["description"] == "second version"


def test_create_with_publish_returns_version_one(sfn: Any, role: str) -> None:
    out = sfn.create_state_machine(name=f"ver-{uuid.uuid4().hex[:10]}", definition=definition("one"), roleArn=role,
                                   publish=True, versionDescription="born")
    assert out["stateMachineVersionArn"] == out["stateMachineArn"] + ":1"
    assert sfn.describe_state_machine(stateMachineArn=out["stateMachineVersionArn"])["description"] == "born"


def test_publish_bad_input(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    assert "revisionId" not in sfn.describe_state_machine(stateMachineArn=sm)  # none before an update [AWS]
    revision = sfn.update_state_machine(stateMachineArn=sm, definition=definition("one-b"))["revisionId"]
    same = sfn.update_state_machine(stateMachineArn=sm, definition=definition("one-b"))
    assert same["revisionId"] == revision  # the same values again are no new revision [AWS]
    with pytest.raises(ClientError) as exc:
        sfn.publish_state_machine_version(stateMachineArn=sm, revisionId="not-it")
    assert error_of(exc) == ("ConflictException", "Failed to publish the State Machine version for revision not-it. "
                                                  f"The current State Machine revision is {revision}.")
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine(stateMachineArn=sm, definition=definition("x"), versionDescription="d")
    assert error_of(exc)[0] == "ValidationException"
    assert sfn.list_state_machine_versions(stateMachineArn=sm)["stateMachineVersions"] == []
    assert json.loads(sfn.describe_state_machine(stateMachineArn=sm)["definition"])["States"]["P"][
        "Parameters"]["v"] == "one-b"  # the refused update changed nothing
    sfn.delete_state_machine(stateMachineArn=sm)
    with pytest.raises(ClientError) as exc:
        sfn.publish_state_machine_version(stateMachineArn=sm)
    assert error_of(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{sm}'")


def test_executions_through_a_version_run_its_copy(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    v1 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    sfn.update_state_machine(stateMachineArn=sm, definition=definition("two"))
    name = sm.rsplit(":", 1)[1]
    start = sfn.start_execution(stateMachineArn=v1, name="through-v1")
    assert start["executionArn"].endswith(f":execution:{name}:through-v1")
    d = wait_done(sfn, start["executionArn"])
    assert d["status"] == "SUCCEEDED"
    # The context object names the machine, not the version (AWS shows no version there).
    assert json.loads(d["output"]) == {"v": "one", "sm": sm, "name": name}
    assert d["stateMachineArn"] == sm
    assert d["stateMachineVersionArn"] == v1
    assert "stateMachineAliasArn" not in d
    latest = wait_done(sfn, sfn.start_execution(stateMachineArn=sm)["executionArn"])
    assert json.loads(latest["output"])["v"] == "two"
    assert "stateMachineVersionArn" not in latest
    started = sfn.get_execution_history(executionArn=start["executionArn"])["events"][0]
    assert started["executionStartedEventDetails"]["stateMachineVersionArn"] == v1
    listed = sfn.list_executions(stateMachineArn=v1)["executions"]
    assert [e["executionArn"] for e in listed] == [start["executionArn"]]
    assert listed[0]["stateMachineVersionArn"] == v1


def test_alias_routes_by_weight_and_executions_remember_it(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    v1 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    sfn.update_state_machine(stateMachineArn=sm, definition=definition("two"))
    v2 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    alias = sfn.create_state_machine_alias(name="PROD", description="live", routingConfiguration=[
        {"stateMachineVersionArn": v1, "weight": 100}, {"stateMachineVersionArn": v2, "weight": 0}])
    assert alias["stateMachineAliasArn"] == f"{sm}:PROD"
    d = sfn.describe_state_machine_alias(stateMachineAliasArn=f"{sm}:PROD")
    assert d["name"] == "PROD" and d["description"] == "live"
    assert d["routingConfiguration"] == [{"stateMachineVersionArn": v1, "weight": 100},
                                         {"stateMachineVersionArn": v2, "weight": 0}]
    run = wait_done(sfn, sfn.start_execution(stateMachineArn=f"{sm}:PROD")["executionArn"])
    assert json.loads(run["output"])["v"] == "one"
    assert run["stateMachineAliasArn"] == f"{sm}:PROD"
    assert run["stateMachineVersionArn"] == v1
    sfn.update_state_machine_alias(stateMachineAliasArn=f"{sm}:PROD",
                                   routingConfiguration=[{"stateMachineVersionArn": v2, "weight": 100}])
    run = wait_done(sfn, sfn.start_execution(stateMachineArn=f"{sm}:PROD")["executionArn"])
    assert json.loads(run["output"])["v"] == "two"
    assert run["stateMachineVersionArn"] == v2
    listed = sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"]
    assert [a["stateMachineAliasArn"] for a in listed] == [f"{sm}:PROD"]
    assert len(sfn.list_executions(stateMachineArn=f"{sm}:PROD")["executions"]) == 2
    with pytest.raises(ClientError) as exc:
        sfn.delete_state_machine_version(stateMachineVersionArn=v2)
    assert error_of(exc) == ("ConflictException", "Version to be deleted must not be referenced by an alias. "
                                                  "Current list of aliases referencing this version: [PROD]")
    sfn.delete_state_machine_alias(stateMachineAliasArn=f"{sm}:PROD")
    sfn.delete_state_machine_version(stateMachineVersionArn=v2)
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []
    with pytest.raises(ClientError) as exc:
        sfn.describe_state_machine_alias(stateMachineAliasArn=f"{sm}:PROD")
    assert error_of(exc) == ("ResourceNotFound", "Request references a resource that does not exist.")


def test_alias_bad_routing_changes_nothing(sfn: Any, role: str) -> None:
    sm = machine(sfn, role)
    v1 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    sfn.update_state_machine(stateMachineArn=sm, definition=definition("two"))
    v2 = sfn.publish_state_machine_version(stateMachineArn=sm)["stateMachineVersionArn"]
    cases = [
        ([{"stateMachineVersionArn": v1, "weight": 50}, {"stateMachineVersionArn": v2, "weight": 40}],
         "Sum of routing configuration weights must equal 100. Received: [50, 40]"),
        ([{"stateMachineVersionArn": v1, "weight": 50}, {"stateMachineVersionArn": v1, "weight": 50}],
         f"Routing configuration must contain distinct state machine version ARNs. Received: [{v1}, {v1}]"),
        ([{"stateMachineVersionArn": sm, "weight": 100}],
         f"Routing configuration must contain state machine version ARNs. Received: [{sm}]"),
    ]
    for routing, message in cases:
        with pytest.raises(ClientError) as exc:
            sfn.create_state_machine_alias(name="BAD", routingConfiguration=routing)
        assert error_of(exc) == ("ValidationException", message)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="BAD", routingConfiguration=[
            {"stateMachineVersionArn": v1, "weight": 1}, {"stateMachineVersionArn": v2, "weight": 1},
            {"stateMachineVersionArn": f"{sm}:9", "weight": 98}])
    assert error_of(exc)[0] == "ValidationException"  # at most two versions (the model's length)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="BAD", routingConfiguration=[{"stateMachineVersionArn": f"{sm}:9",
                                                                          "weight": 100}])
    assert error_of(exc) == ("ResourceNotFound", f"Resource not found: '{sm}:9'")
    assert sfn.list_state_machine_aliases(stateMachineArn=sm)["stateMachineAliases"] == []
    sfn.create_state_machine_alias(name="OK", routingConfiguration=[{"stateMachineVersionArn": v1, "weight": 100}])
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=f"{sm}:OK", routingConfiguration=[
            {"stateMachineVersionArn": v1, "weight": 10}, {"stateMachineVersionArn": v2, "weight": 10}])
    assert error_of(exc)[0] == "ValidationException"
    routing = sfn.describe_state_machine_alias(stateMachineAliasArn=f"{sm}:OK")["routingConfiguration"]
    assert routing == [{"stateMachineVersionArn": v1, "weight": 100}]
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=f"{sm}:OK")
    assert error_of(exc)[0] == "ValidationException"
    other = machine(sfn, role, publish=True)
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="MIXED", routingConfiguration=[
            {"stateMachineVersionArn": v1, "weight": 50}, {"stateMachineVersionArn": f"{other}:1", "weight": 50}])
    assert error_of(exc) == ("ValidationException",
                             "Both stateMachineVersionArn values must belong to the same state machine")
    sfn.delete_state_machine_alias(stateMachineAliasArn=f"{sm}:NOPE")  # no error, as AWS records
    with pytest.raises(ClientError) as exc:
        sfn.update_state_machine_alias(stateMachineAliasArn=f"{sm}:NOPE", description="d")
    assert error_of(exc) == ("ResourceNotFound", "Request references a resource that does not exist.")
    with pytest.raises(ClientError) as exc:
        sfn.create_state_machine_alias(name="OK", description="another",
                                       routingConfiguration=[{"stateMachineVersionArn": v1, "weight": 100}])
    assert error_of(exc) == ("ConflictException", "Failed to create alias because an alias with the same name and a "
                                                  "different routing configuration already exists.")
    missing = sm + "-gone"
    with pytest.raises(ClientError) as exc:
        sfn.list_state_machine_aliases(stateMachineArn=missing)
    assert error_of(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{missing}'")
    assert [a["stateMachineAliasArn"] for a in sfn.list_state_machine_aliases(stateMachineArn=sm)[
        "stateMachineAliases"]] == [f"{sm}:OK"]


def test_deleting_the_machine_takes_versions_and_aliases(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, publish=True)
    sfn.create_state_machine_alias(name="A", routingConfiguration=[{"stateMachineVersionArn": f"{sm}:1",
                                                                    "weight": 100}])
    sfn.delete_state_machine(stateMachineArn=sm)
    for arn in (f"{sm}:1", f"{sm}:A"):
        with pytest.raises(ClientError) as exc:
            sfn.start_execution(stateMachineArn=arn)
        assert error_of(exc) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{arn}'")


def test_iam_authorizes_versions_and_aliases_as_their_machine(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    sm = machine(sfn, role, publish=True)
    sfn.create_state_machine_alias(name="LIVE", routingConfiguration=[{"stateMachineVersionArn": f"{sm}:1",
                                                                       "weight": 100}])
    iam = aws("iam")
    name = f"sfn-starter-{uuid.uuid4().hex[:8]}"
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": "000000000000"}, "Action": "sts:AssumeRole"}]})
    starter = iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    allow = {"Effect": "Allow", "Action": "states:StartExecution", "Resource": sm}
    iam.put_role_policy(RoleName=name, PolicyName="start",
                        PolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [allow]}))
    creds = aws("sts").assume_role(RoleArn=starter, RoleSessionName="starter")["Credentials"]
    session = aws("stepfunctions", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                  session_token=creds["SessionToken"])
    for arn in (f"{sm}:1", f"{sm}:LIVE"):
        started = session.start_execution(stateMachineArn=arn)["executionArn"]
        assert wait_done(sfn, started)["status"] == "SUCCEEDED"
    with pytest.raises(ClientError) as exc:  # the policy names no other action
        session.describe_state_machine(stateMachineArn=f"{sm}:1")
    assert error_of(exc)[0] == "AccessDeniedException"
