"""Activities through boto3: the activity API, workers polling GetActivityTask, the Send* calls with
activity tokens, HeartbeatSeconds/TimeoutSeconds, and the activity events in the history."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
# A poll may wait a minute: the client must wait longer than that.
POLL_CONFIG = botocore.config.Config(read_timeout=90, retries={"max_attempts": 1})


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"sfn-activities-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions", config=POLL_CONFIG)


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return exc.value.response["Error"]["Code"], exc.value.response["Error"]["Message"]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def wait_done(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def types(sfn: Any, arn: str) -> list[str]:
    return [e["type"] for e in sfn.get_execution_history(executionArn=arn)["events"]]


def event(sfn: Any, arn: str, type_: str) -> dict[str, Any]:
    return next(e for e in sfn.get_execution_history(executionArn=arn)["events"] if e["type"] == type_)


def start(sfn: Any, role: str, activity: str, task_input: dict[str, Any], **task: Any) -> str:
    """An execution of one activity Task 'Work' (End=None: it goes on to a Pass 'Never')."""
    state = {"Type": "Task", "Resource": activity, "End": True, **task}
    states: dict[str, Any] = {"Work": state}
    if state["End"] is None:
        del state["End"]
        state["Next"] = "Never"
        states["Never"] = {"Type": "Pass", "End": True}
    sm = sfn.create_state_machine(name=unique("act"), roleArn=role,
                                  definition=json.dumps({"StartAt": "Work", "States": states}))
    return sfn.start_execution(stateMachineArn=sm["stateMachineArn"], input=json.dumps(task_input))["executionArn"]


def test_activity_api(sfn: Any) -> None:
    name = unique("approve")
    created = sfn.create_activity(name=name, tags=[{"key": "team", "value": "ops"}])
    arn = created["activityArn"]
    assert arn == f"arn:aws:states:us-east-1:000000000000:activity:{name}"
    assert sfn.create_activity(name=name)["activityArn"] == arn  # idempotent
    d = sfn.describe_activity(activityArn=arn)
    assert d["name"] == name and d["activityArn"] == arn
    assert arn in [a["activityArn"] for a in sfn.list_activities()["activities"]]
    assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "team", "value": "ops"}]
    sfn.delete_activity(activityArn=arn)
    with pytest.raises(ClientError) as exc:
        sfn.describe_activity(activityArn=arn)
    assert error_of(exc) == ("ActivityDoesNotExist", f"Activity Does Not Exist: '{arn}'")
    with pytest.raises(ClientError) as exc:
        sfn.get_activity_task(activityArn=arn)
    assert error_of(exc) == ("ActivityDoesNotExist", f"Activity Does Not Exist: '{arn}'")
    with pytest.raises(ClientError) as exc:
        sfn.create_activity(name="bad name")
    assert error_of(exc) == ("InvalidName", "Invalid Name: 'bad name'")
    assert arn not in [a["activityArn"] for a in sfn.list_activities()["activities"]]


def test_a_waiting_worker_gets_the_task_and_answers_it(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("work"))["activityArn"]
    got: dict[str, Any] = {}
    poller = threading.Thread(target=lambda: got.update(sfn.get_activity_task(activityArn=activity,
                                                                              workerName="worker-7")))
    poller.start()  # polling before any task exists: answered once one is scheduled
    arn = start(sfn, role, activity, {"order": 42}, TimeoutSeconds=60, HeartbeatSeconds=30)
    poller.join(timeout=70)
    assert not poller.is_alive()
    assert json.loads(got["input"]) == {"order": 42}
    sfn.send_task_heartbeat(taskToken=got["taskToken"])
    with pytest.raises(ClientError) as exc:  # a live token's output that is not JSON: refused, the task still open
        sfn.send_task_success(taskToken=got["taskToken"], output="output")
    assert error_of(exc)[0] == "InvalidOutput"
    sfn.send_task_success(taskToken=got["taskToken"], output=json.dumps({"approved": True}))
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"]) == {"approved": True}
    assert types(sfn, arn) == ["ExecutionStarted", "TaskStateEntered", "ActivityScheduled", "ActivityStarted",
                               "ActivitySucceeded", "TaskStateExited", "ExecutionSucceeded"]
    scheduled = event(sfn, arn, "ActivityScheduled")["activityScheduledEventDetails"]
    assert scheduled == {"resource": activity, "input": '{"order":42}', "inputDetails": {"truncated": False},
                         "timeoutInSeconds": 60, "heartbeatInSeconds": 30}
    assert event(sfn, arn, "ActivityStarted")["activityStartedEventDetails"] == {"workerName": "worker-7"}
    with pytest.raises(ClientError) as exc:  # the token was used
        sfn.send_task_success(taskToken=got["taskToken"], output="{}")
    assert error_of(exc) == ("TaskTimedOut", "Task Timed Out: 'Provided task does not exist anymore'")


def test_failure_goes_to_catch(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("fails"))["activityArn"]
    definition = {"StartAt": "Work", "States": {
        "Work": {"Type": "Task", "Resource": activity, "Catch": [{"ErrorEquals": ["Rejected"], "Next": "Handled"}],
                 "End": True},
        "Handled": {"Type": "Pass", "End": True}}}
    sm = sfn.create_state_machine(name=unique("act"), roleArn=role, definition=json.dumps(definition))
    arn = sfn.start_execution(stateMachineArn=sm["stateMachineArn"], input="{}")["executionArn"]
    task = sfn.get_activity_task(activityArn=activity)
    sfn.send_task_failure(taskToken=task["taskToken"], error="Rejected", cause="no budget")
    d = wait_done(sfn, arn)
    assert d["status"] == "SUCCEEDED"
    assert json.loads(d["output"]) == {"Error": "Rejected", "Cause": "no budget"}
    assert event(sfn, arn, "ActivityFailed")["activityFailedEventDetails"] == {"error": "Rejected",
                                                                               "cause": "no budget"}


def test_heartbeat_timeout_after_the_start(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("slow"))["activityArn"]
    arn = start(sfn, role, activity, {}, HeartbeatSeconds=1)
    task = sfn.get_activity_task(activityArn=activity, workerName="w")
    d = wait_done(sfn, arn)  # no heartbeat comes
    assert (d["status"], d["error"]) == ("FAILED", "States.HeartbeatTimeout")
    assert event(sfn, arn, "ActivityTimedOut")["activityTimedOutEventDetails"] == {
        "error": "States.HeartbeatTimeout"}
    with pytest.raises(ClientError) as exc:
        sfn.send_task_success(taskToken=task["taskToken"], output="{}")
    assert error_of(exc)[0] == "TaskTimedOut"


def test_timeout_while_no_worker_polls(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("idle"))["activityArn"]
    arn = start(sfn, role, activity, {}, TimeoutSeconds=1)
    d = wait_done(sfn, arn)
    assert (d["status"], d["error"]) == ("FAILED", "States.Timeout")
    assert types(sfn, arn)[2:4] == ["ActivityScheduled", "ActivityTimedOut"]


def test_tasks_of_stopped_executions_are_not_handed_out(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("stop"))["activityArn"]
    first = start(sfn, role, activity, {"n": 1})
    second = start(sfn, role, activity, {"n": 2})
    sfn.stop_execution(executionArn=first)
    task = sfn.get_activity_task(activityArn=activity)
    assert json.loads(task["input"]) == {"n": 2}
    sfn.send_task_success(taskToken=task["taskToken"], output='"done"')
    assert wait_done(sfn, second)["status"] == "SUCCEEDED"


def test_bad_tokens(sfn: Any) -> None:
    with pytest.raises(ClientError) as exc:
        sfn.send_task_success(taskToken="not-a-token", output="{}")
    assert error_of(exc) == ("InvalidToken", "Invalid Token: 'Invalid token'")
    with pytest.raises(ClientError) as exc:
        sfn.send_task_heartbeat(taskToken="not-a-token")
    assert error_of(exc) == ("InvalidToken", "Invalid Token: 'Invalid token'")
    with pytest.raises(ClientError) as exc:
        sfn.send_task_failure(taskToken="bad_token", error="test error")
    assert error_of(exc) == ("InvalidToken", "Invalid Token: 'Invalid token'")


def test_a_bad_token_is_refused_before_its_output_is_read(sfn: Any) -> None:
    # [AWS] moto's aws_verified test_send_task_failure_invalid_token: output="output" (not JSON)
    # with taskToken="bad_token" is InvalidToken, not InvalidOutput
    with pytest.raises(ClientError) as exc:
        sfn.send_task_success(taskToken="bad_token", output="output")
    assert error_of(exc) == ("InvalidToken", "Invalid Token: 'Invalid token'")


def test_a_queued_task_and_a_handed_out_one_survive_a_restart(server_factory: Callable[..., Any],
                                                              tmp_path: Any) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    sfn = server.client("stepfunctions", config=POLL_CONFIG)
    iam = server.client("iam")
    role = iam.create_role(RoleName="act-restart", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    activity = sfn.create_activity(name="restart")["activityArn"]
    taken = start(sfn, role, activity, {"n": 1})
    held = sfn.get_activity_task(activityArn=activity, workerName="before")
    queued = start(sfn, role, activity, {"n": 2})
    deadline = time.time() + 30
    while "ActivityScheduled" not in types(sfn, queued):
        assert time.time() < deadline
        time.sleep(0.05)
    server.stop()
    server = server_factory(data)
    sfn = server.client("stepfunctions", config=POLL_CONFIG)
    task = sfn.get_activity_task(activityArn=activity, workerName="after")
    assert json.loads(task["input"]) == {"n": 2}
    sfn.send_task_success(taskToken=task["taskToken"], output='"second"')
    sfn.send_task_success(taskToken=held["taskToken"], output='"first"')
    assert json.loads(wait_done(sfn, queued)["output"]) == "second"
    assert json.loads(wait_done(sfn, taken)["output"]) == "first"
    assert event(sfn, queued, "ActivityStarted")["activityStartedEventDetails"] == {"workerName": "after"}


def test_waiting_polls_hold_no_thread_others_need_and_end_at_shutdown(server_factory: Callable[..., Any],
                                                                       tmp_path: Any) -> None:
    server = server_factory(tmp_path / "polls")
    many = botocore.config.Config(read_timeout=90, retries={"max_attempts": 1}, max_pool_connections=100)
    sfn = server.client("stepfunctions", config=many)
    activity = sfn.create_activity(name="crowd")["activityArn"]
    answers: list[Any] = []

    def poll() -> None:
        try:
            answers.append(sfn.get_activity_task(activityArn=activity))
        except Exception as e:  # the connection may close under a poll as the server stops
            answers.append(e)

    polls = [threading.Thread(target=poll) for _ in range(80)]  # more than the server's 64 call threads
    for t in polls:
        t.start()
    time.sleep(1)
    assert sfn.list_activities()["activities"][0]["activityArn"] == activity
    assert all(t.is_alive() for t in polls)  # the quick call did not wait for a poll to end
    server.stop()
    for t in polls:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in polls)
    assert len(answers) == 80
    assert not any(isinstance(a, dict) and "taskToken" in a for a in answers)


def test_a_deleted_activity_fails_the_execution_as_aws_records(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("gone"))["activityArn"]
    sfn.delete_activity(activityArn=activity)
    sfn.delete_activity(activityArn=activity)  # deleting twice is fine
    arn = start(sfn, role, activity, {}, Catch=[{"ErrorEquals": ["States.ALL"], "Next": "Never"}], End=None)
    d = wait_done(sfn, arn)
    assert (d["status"], d["error"]) == ("FAILED", "States.Runtime")
    assert d["cause"] == (f"An error occurred while executing the state 'Work' (entered at the event id #2). "
                          f"The activity {activity} does not exist.")
    assert types(sfn, arn) == ["ExecutionStarted", "TaskStateEntered", "ExecutionFailed"]


def test_an_uncaught_failure_ends_the_execution_as_aws_records(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("uncaught"))["activityArn"]
    arn = start(sfn, role, activity, {"Value1": "Hello"})
    task = sfn.get_activity_task(activityArn=activity)
    sfn.send_task_failure(taskToken=task["taskToken"], error="Programmatic Error", cause='{"Value1":"Hello"}')
    d = wait_done(sfn, arn)
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "Programmatic Error", '{"Value1":"Hello"}')
    events = sfn.get_execution_history(executionArn=arn)["events"]
    assert [(e["type"], e["id"], e["previousEventId"]) for e in events] == [
        ("ExecutionStarted", 1, 0), ("TaskStateEntered", 2, 0), ("ActivityScheduled", 3, 2),
        ("ActivityStarted", 4, 3), ("ActivityFailed", 5, 4), ("ExecutionFailed", 6, 5)]
    assert events[2]["activityScheduledEventDetails"] == {"resource": activity, "input": '{"Value1":"Hello"}',
                                                          "inputDetails": {"truncated": False}}
    assert events[3]["activityStartedEventDetails"] == {}


def test_a_redriven_activity_task_is_scheduled_again(sfn: Any, role: str) -> None:
    activity = sfn.create_activity(name=unique("redrive"))["activityArn"]
    arn = start(sfn, role, activity, {"n": 1}, TimeoutSeconds=1)
    assert wait_done(sfn, arn)["status"] == "FAILED"
    sfn.redrive_execution(executionArn=arn)
    task = sfn.get_activity_task(activityArn=activity, workerName="second")
    assert json.loads(task["input"]) == {"n": 1}
    sfn.send_task_success(taskToken=task["taskToken"], output='{"done": true}')
    d = wait_done(sfn, arn)
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", {"done": True})
    assert types(sfn, arn).count("ActivityScheduled") == 2


def test_encryption_configuration_rules(sfn: Any, role: str) -> None:
    name = unique("enc")
    aws_owned = {"type": "AWS_OWNED_KEY"}
    arn = sfn.create_activity(name=name, encryptionConfiguration=aws_owned)["activityArn"]
    assert sfn.create_activity(name=name, encryptionConfiguration=aws_owned)["activityArn"] == arn  # idempotent
    with pytest.raises(ClientError) as exc:  # the configuration of an activity may not change
        sfn.create_activity(name=name, encryptionConfiguration={"type": "CUSTOMER_MANAGED_KMS_KEY", "kmsKeyId": "k"})
    assert error_of(exc) == ("ActivityAlreadyExists",
                             "Activity already exists. EncryptionConfiguration may not be updated.")
    assert sfn.describe_activity(activityArn=arn)["encryptionConfiguration"] == aws_owned
    bad = [{"type": "CUSTOMER_MANAGED_KMS_KEY"}]  # (botocore itself refuses a reuse period outside 60-900)
    definition = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    for config in bad:
        other = unique("enc")
        for call in (lambda c=config, n=other: sfn.create_activity(name=n, encryptionConfiguration=c),
                     lambda c=config, n=other: sfn.create_state_machine(name=n, definition=definition, roleArn=role,
                                                                        encryptionConfiguration=c)):
            with pytest.raises(ClientError) as exc:
                call()
            assert exc.value.response["Error"]["Code"] == "InvalidEncryptionConfiguration"
        assert not [a for a in sfn.list_activities()["activities"] if a["name"] == other]  # nothing created
