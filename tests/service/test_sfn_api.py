"""Step Functions API through boto3 against a real server: rules, AWS's errors, paging, tags."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from onceflow import pages

ROLE = "arn:aws:iam::000000000000:role/sfn-api-tests"
PASS = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
WAIT_LONG = json.dumps({"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 3600, "End": True}}})


def name(prefix: str = "sm") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def wait_done(sfn: Any, arn: str, timeout: float = 30) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        d = sfn.describe_execution(executionArn=arn)
        if d["status"] != "RUNNING" or time.time() > deadline:
            return d
        time.sleep(0.05)


def history(sfn: Any, arn: str) -> list[dict[str, Any]]:
    return sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]


TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


@pytest.fixture(scope="module", autouse=True)
def role(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    try:
        iam.create_role(RoleName="sfn-api-tests", AssumeRolePolicyDocument=TRUST)
    except iam.exceptions.EntityAlreadyExistsException:
        pass


@pytest.fixture
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def test_create_describe_list_delete(sfn: Any) -> None:
    n = name()
    arn = sfn.create_state_machine(name=n, definition=PASS, roleArn=ROLE, tags=[{"key": "k", "value": "v"}])[
        "stateMachineArn"]
    assert arn == f"arn:aws:states:us-east-1:000000000000:stateMachine:{n}"
    d = sfn.describe_state_machine(stateMachineArn=arn)
    assert (d["name"], d["status"], d["type"], d["definition"], d["roleArn"]) == (n, "ACTIVE", "STANDARD", PASS, ROLE)
    assert d["loggingConfiguration"] == {"level": "OFF", "includeExecutionData": False}
    assert d["tracingConfiguration"] == {"enabled": False}
    # same name, same definition: the same machine; a different definition: StateMachineAlreadyExists
    assert sfn.create_state_machine(name=n, definition=PASS, roleArn=ROLE)["stateMachineArn"] == arn
    with pytest.raises(ClientError) as e:
        sfn.create_state_machine(name=n, definition=PASS + " ", roleArn=ROLE)
    assert error_of(e) == ("StateMachineAlreadyExists", f"State Machine Already Exists: '{arn}'")
    assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "k", "value": "v"}]
    # every page: the session's server holds other tests' machines too (a page is 100 of them)
    names = [m["name"] for page in sfn.get_paginator("list_state_machines").paginate() for m in page["stateMachines"]]
    assert n in names
    sfn.delete_state_machine(stateMachineArn=arn)
    with pytest.raises(ClientError) as e:
        sfn.describe_state_machine(stateMachineArn=arn)
    assert error_of(e) == ("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{arn}'")
    sfn.delete_state_machine(stateMachineArn=arn)  # AWS: deleting a missing machine is not an error


def test_invalid_definitions_are_rejected_with_aws_messages(sfn: Any) -> None:
    with pytest.raises(ClientError) as e:
        sfn.create_state_machine(name=name(), definition=json.dumps({"StartAt": "A"}), roleArn=ROLE)
    assert error_of(e) == ("InvalidDefinition",
                           "Invalid State Machine Definition: 'SCHEMA_VALIDATION_FAILED: These fields are required: "
                           "[States] at /'")
    bad = {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}}}
    with pytest.raises(ClientError) as e:
        sfn.create_state_machine(name=name(), definition=json.dumps(bad), roleArn=ROLE)
    code, message = error_of(e)
    assert code == "InvalidDefinition"
    assert "MISSING_TRANSITION_TARGET: Missing 'Next' target: B at /States/A/Next" in message
    r = sfn.validate_state_machine_definition(definition=json.dumps(bad))
    assert r["result"] == "FAIL"
    assert r["diagnostics"][0]["code"] == "MISSING_TRANSITION_TARGET"
    assert sfn.validate_state_machine_definition(definition=PASS)["result"] == "OK"


def test_role_must_trust_step_functions(sfn: Any, aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    lambda_trust = TRUST.replace("states.amazonaws.com", "lambda.amazonaws.com")
    other = iam.create_role(RoleName=name("lambda-only"), AssumeRolePolicyDocument=lambda_trust)["Role"]["Arn"]
    for role_arn in (other, "arn:aws:iam::000000000000:role/does-not-exist"):
        with pytest.raises(ClientError) as e:
            sfn.create_state_machine(name=name(), definition=PASS, roleArn=role_arn)
        assert error_of(e) == ("AccessDeniedException", "Neither the global service principal states.amazonaws.com, "
                               "nor the regional one is authorized to assume the provided role.")


def test_execution_timeout(sfn: Any) -> None:
    definition = {"TimeoutSeconds": 1, "StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 60, "End": True}}}
    arn = sfn.create_state_machine(name=name(), definition=json.dumps(definition), roleArn=ROLE)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    d = wait_done(sfn, ex)
    # AWS describes a timed-out execution without error or cause; States.Timeout is in its last event
    assert d["status"] == "TIMED_OUT" and "error" not in d and "cause" not in d
    events = history(sfn, ex)
    assert [e["type"] for e in events] == ["ExecutionStarted", "WaitStateEntered", "ExecutionTimedOut"]
    assert events[-1]["executionTimedOutEventDetails"] == {"error": "States.Timeout"}


def test_bad_arns_and_names(sfn: Any) -> None:
    with pytest.raises(ClientError) as e:
        sfn.describe_state_machine(stateMachineArn="not-an-arn")
    assert error_of(e) == ("InvalidArn", "Invalid Arn: 'Invalid ARN prefix: not-an-arn'")
    with pytest.raises(ClientError) as e:
        sfn.create_state_machine(name="bad name", definition=PASS, roleArn=ROLE)
    assert error_of(e) == ("InvalidName", "Invalid Name: 'bad name'")
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    with pytest.raises(ClientError) as e:
        sfn.start_execution(stateMachineArn=arn, name="a/b")
    assert error_of(e) == ("InvalidName", "Invalid Name: 'a/b'")
    missing = arn.replace(":stateMachine:", ":execution:") + ":nope"
    with pytest.raises(ClientError) as e:
        sfn.describe_execution(executionArn=missing)
    assert error_of(e) == ("ExecutionDoesNotExist", f"Execution Does Not Exist: '{missing}'")


def test_a_listing_refuses_a_token_it_did_not_issue(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    for _ in range(2):
        sfn.start_execution(stateMachineArn=arn)
    first = sfn.list_executions(stateMachineArn=arn, maxResults=1)
    rest = sfn.list_executions(stateMachineArn=arn, maxResults=1, nextToken=first["nextToken"])
    assert len(rest["executions"]) == 1 and rest["executions"][0] != first["executions"][0]
    # Not base64 JSON; another service's (a Logs listing's); an offset below zero.
    for foreign in ("garbage", pages.encode(["a-group"], "g"), pages.encode(-1, "o")):
        with pytest.raises(ClientError) as e:
            sfn.list_executions(stateMachineArn=arn, nextToken=foreign)
        assert error_of(e) == ("InvalidToken", f"Invalid Token: '{foreign}'")
        with pytest.raises(ClientError) as e:
            sfn.list_state_machines(nextToken=foreign)
        assert error_of(e) == ("InvalidToken", f"Invalid Token: '{foreign}'")


def test_execution_input_must_be_json(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    with pytest.raises(ClientError) as e:
        sfn.start_execution(stateMachineArn=arn, input="not json")
    assert error_of(e) == ("InvalidExecutionInput",
                           "Invalid State Machine Execution Input: 'Unrecognized token 'not': was expecting (JSON "
                           "String, Number, Array, Object or token 'null', 'true' or 'false')'")
    with pytest.raises(ClientError) as e:
        sfn.start_execution(stateMachineArn=arn, input="{'a': 1}")
    assert error_of(e)[1] == ("Invalid State Machine Execution Input: 'Unexpected character (''' (code 39)): was "
                              "expecting double-quote to start field name'")
    assert sfn.list_executions(stateMachineArn=arn)["executions"] == []  # nothing started


def test_start_execution_name_reuse(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=WAIT_LONG, roleArn=ROLE)["stateMachineArn"]
    first = sfn.start_execution(stateMachineArn=arn, name="order-1", input='{"a":1}')
    again = sfn.start_execution(stateMachineArn=arn, name="order-1", input='{"a":1}')
    assert again["executionArn"] == first["executionArn"]  # running, same input: the same execution
    with pytest.raises(ClientError) as e:
        sfn.start_execution(stateMachineArn=arn, name="order-1", input='{"a":2}')
    assert error_of(e) == ("ExecutionAlreadyExists", f"Execution Already Exists: '{first['executionArn']}'")
    stop = sfn.stop_execution(executionArn=first["executionArn"], error="E", cause="C")
    assert stop["stopDate"]
    d = sfn.describe_execution(executionArn=first["executionArn"])
    assert (d["status"], d["error"], d["cause"], d["redriveStatus"]) == ("ABORTED", "E", "C", "REDRIVABLE")
    events = history(sfn, first["executionArn"])
    assert [(e["type"], e["id"], e["previousEventId"]) for e in events] == [
        ("ExecutionStarted", 1, 0), ("WaitStateEntered", 2, 0), ("ExecutionAborted", 3, 2)]
    assert events[-1]["executionAbortedEventDetails"] == {"error": "E", "cause": "C"}
    with pytest.raises(ClientError) as e:  # finished: the name cannot be reused
        sfn.start_execution(stateMachineArn=arn, name="order-1", input='{"a":1}')
    assert error_of(e)[0] == "ExecutionAlreadyExists"


def test_describe_and_list_executions(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    arns = [sfn.start_execution(stateMachineArn=arn, input=json.dumps({"i": i}))["executionArn"] for i in range(3)]
    for a in arns:
        wait_done(sfn, a)
    d = sfn.describe_execution(executionArn=arns[0])
    assert d["status"] == "SUCCEEDED" and d["output"] == '{"i":0}' and d["input"] == '{"i": 0}'
    assert d["redriveStatus"] == "NOT_REDRIVABLE"
    assert d["redriveStatusReason"] == "Execution is SUCCEEDED and cannot be redriven"
    page = sfn.list_executions(stateMachineArn=arn, maxResults=2)
    assert len(page["executions"]) == 2 and "nextToken" in page
    rest = sfn.list_executions(stateMachineArn=arn, maxResults=2, nextToken=page["nextToken"])
    listed = [e["executionArn"] for e in page["executions"] + rest["executions"]]
    assert listed == list(reversed(arns))  # newest first
    assert sfn.list_executions(stateMachineArn=arn, statusFilter="FAILED")["executions"] == []
    m = sfn.describe_state_machine_for_execution(executionArn=arns[0])
    assert m["stateMachineArn"] == arn and m["definition"] == PASS


def test_history_paging_and_reverse_order(sfn: Any) -> None:
    states = {f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"} for i in range(5)}
    states["P5"] = {"Type": "Succeed"}
    arn = sfn.create_state_machine(name=name(), definition=json.dumps({"StartAt": "P0", "States": states}),
                                   roleArn=ROLE)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    wait_done(sfn, ex)
    full = history(sfn, ex)
    assert [e["id"] for e in full] == list(range(1, 15))
    assert all(e["previousEventId"] == (0 if e["id"] <= 2 else e["id"] - 1) for e in full)
    first = sfn.get_execution_history(executionArn=ex, maxResults=4)
    second = sfn.get_execution_history(executionArn=ex, maxResults=4, nextToken=first["nextToken"])
    assert [e["id"] for e in first["events"] + second["events"]] == list(range(1, 9))
    rev = sfn.get_execution_history(executionArn=ex, reverseOrder=True, maxResults=2)["events"]
    assert [e["id"] for e in rev] == [14, 13]
    bare = sfn.get_execution_history(executionArn=ex, includeExecutionData=False)["events"]
    assert bare[1]["stateEnteredEventDetails"] == {"name": "P0", "inputDetails": {"truncated": False}}


def test_update_state_machine(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    new = json.dumps({"StartAt": "S", "States": {"S": {"Type": "Succeed"}}})
    r = sfn.update_state_machine(stateMachineArn=arn, definition=new)
    assert r["updateDate"] and r["revisionId"]
    assert sfn.describe_state_machine(stateMachineArn=arn)["definition"] == new
    with pytest.raises(ClientError) as e:
        sfn.update_state_machine(stateMachineArn=arn, definition='{"StartAt": "X"}')
    assert error_of(e)[0] == "InvalidDefinition"
    assert sfn.describe_state_machine(stateMachineArn=arn)["definition"] == new  # unchanged


def test_tags(sfn: Any) -> None:
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    sfn.tag_resource(resourceArn=arn, tags=[{"key": "a", "value": "1"}, {"key": "b", "value": "2"}])
    sfn.untag_resource(resourceArn=arn, tagKeys=["a"])
    assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "b", "value": "2"}]
    gone = arn + "-gone"
    with pytest.raises(ClientError) as e:
        sfn.list_tags_for_resource(resourceArn=gone)
    assert error_of(e) == ("ResourceNotFound", f"Resource not found: '{gone}'")


def test_start_sync_execution_express(endpoint: str) -> None:
    # StartSyncExecution's endpoint has the host prefix "sync-"; on a loopback IP it must be off.
    sfn = boto3.client("stepfunctions", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test", config=botocore.config.Config(inject_host_prefix=False))
    arn = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE, type="EXPRESS")["stateMachineArn"]
    r = sfn.start_sync_execution(stateMachineArn=arn, input='{"x": 1}')
    assert r["status"] == "SUCCEEDED" and r["output"] == '{"x":1}'
    std = sfn.create_state_machine(name=name(), definition=PASS, roleArn=ROLE)["stateMachineArn"]
    with pytest.raises(ClientError) as e:
        sfn.start_sync_execution(stateMachineArn=std)
    assert error_of(e)[0] == "StateMachineTypeNotSupported"
    with pytest.raises(ClientError) as e:  # express executions are not listed
        sfn.list_executions(stateMachineArn=arn)
    assert error_of(e)[0] == "StateMachineTypeNotSupported"


def test_test_state(endpoint: str) -> None:
    # TestState's endpoint has the host prefix "sync-" too.
    sfn = boto3.client("stepfunctions", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test", config=botocore.config.Config(inject_host_prefix=False))

    def run(state: dict[str, Any]) -> dict[str, Any]:
        out = sfn.test_state(definition=json.dumps(state), input='{"a": 1}', roleArn=ROLE)
        out.pop("ResponseMetadata")
        return out

    r = run({"Type": "Pass", "Parameters": {"x.$": "$.a"}, "ResultPath": "$.r", "Next": "N"})
    assert (r["status"], r["output"], r["nextState"]) == ("SUCCEEDED", '{"a":1,"r":{"x":1}}', "N")
    r = run({"Type": "Choice", "Choices": [{"Variable": "$.a", "NumericEquals": 1, "Next": "One"}], "Default": "D"})
    assert (r["status"], r["nextState"]) == ("SUCCEEDED", "One")
    r = run({"Type": "Fail", "Error": "E", "Cause": "C"})
    assert (r["status"], r["error"], r["cause"]) == ("FAILED", "E", "C")
    r = run({"Type": "Pass", "OutputPath": "$.zz", "End": True})
    assert (r["status"], r["error"]) == ("FAILED", "States.Runtime")
    task = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "Parameters": {"FunctionName": "nope"},
            "End": True}
    r = run({**task, "Retry": [{"ErrorEquals": ["States.ALL"]}]})
    assert (r["status"], r["error"]) == ("RETRIABLE", "Lambda.AWSLambdaException")
    r = run({**task, "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "Handler"}]})
    assert (r["status"], r["nextState"], json.loads(r["output"])["Error"]) == (
        "CAUGHT_ERROR", "Handler", "Lambda.AWSLambdaException")


def test_redrive_runs_the_failed_state_again_and_only_it(sfn: Any, aws: Callable[..., Any]) -> None:
    iam, ddb = aws("iam"), aws("dynamodb")
    role_name = name("redrive")
    role = iam.create_role(RoleName=role_name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    table = name("redrive-table")
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    definition = {"StartAt": "Before", "States": {
        "Before": {"Type": "Pass", "Result": {"id": {"S": "k"}}, "ResultPath": "$.key", "Next": "Read"},
        "Read": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:dynamodb:getItem",
                 "Parameters": {"TableName": table, "Key.$": "$.key"}, "End": True}}}
    arn = sfn.create_state_machine(name=name(), definition=json.dumps(definition), roleArn=role)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn)["executionArn"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["error"]) == ("FAILED", "DynamoDb.DynamoDbException")  # not in DynamoDB's model
    with pytest.raises(ClientError) as e:
        sfn.redrive_execution(executionArn=arn.replace(":stateMachine:", ":execution:") + ":missing")
    assert error_of(e)[0] == "ExecutionDoesNotExist"
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem",
                                                      "Resource": "*"}]}
    iam.put_role_policy(RoleName=role_name, PolicyName="read", PolicyDocument=json.dumps(policy))
    assert sfn.redrive_execution(executionArn=ex)["redriveDate"]
    d = wait_done(sfn, ex)
    assert (d["status"], d["redriveCount"]) == ("SUCCEEDED", 1)
    types = [e["type"] for e in history(sfn, ex)]
    assert types == ["ExecutionStarted", "PassStateEntered", "PassStateExited", "TaskStateEntered", "TaskScheduled",
                     "TaskStarted", "TaskFailed", "ExecutionFailed", "ExecutionRedriven", "TaskStateEntered",
                     "TaskScheduled", "TaskStarted", "TaskSucceeded", "TaskStateExited", "ExecutionSucceeded"]
    with pytest.raises(ClientError) as e:
        sfn.redrive_execution(executionArn=ex)
    assert error_of(e)[0] == "ExecutionNotRedrivable"
    listed = sfn.list_executions(stateMachineArn=arn, redriveFilter="REDRIVEN")["executions"]
    assert [(x["executionArn"], x["redriveCount"]) for x in listed] == [(ex, 1)]
    assert sfn.list_executions(stateMachineArn=arn, redriveFilter="NOT_REDRIVEN")["executions"] == []


def test_state_output_over_256_kib_fails_the_execution(sfn: Any) -> None:
    definition = {"StartAt": "Big", "States": {"Big": {
        "Type": "Pass", "Parameters": {"a.$": "$.s", "b.$": "$.s"}, "End": True}}}
    arn = sfn.create_state_machine(name=name(), definition=json.dumps(definition), roleArn=ROLE)["stateMachineArn"]
    d = wait_done(sfn, sfn.start_execution(stateMachineArn=arn, input=json.dumps({"s": "x" * 200_000}))[
        "executionArn"])
    assert (d["status"], d["error"]) == ("FAILED", "States.DataLimitExceeded")
    assert d["cause"] == ("The state/task 'Big' returned a result with a size exceeding the maximum number of bytes "
                          "service limit.")
