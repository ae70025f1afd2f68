"""Schedules: EventBridge schedule rules and EventBridge Scheduler, fired on the server's scaled
clock from durable rows (so they go on after kill -9), and Scheduler's API and its bad input."""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from serverproc import ServerProcess

ACCOUNT = "000000000000"
SCALE = 120.0  # one nominal minute is half a second


def trust(service: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]})


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


def log_arn(group: str) -> str:
    return f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}"


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def messages(logs: Any, group: str, count: int, timeout: float = 30) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = [e["message"] for e in logs.filter_log_events(logGroupName=group)["events"]]
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def error(call: Callable[[], Any]) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as info:
        call()
    e = info.value.response
    return e["Error"]["Code"], e["Error"]["Message"], e["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="module")
def scaled() -> Any:
    """One in-memory server at SCALE for the tests that need no restart (names are unique per test)."""
    server = ServerProcess(None, time_scale=SCALE).start()
    yield server
    server.kill()


# ------------------------------------------------------------------------------ schedule rules
def test_a_schedule_rule_fires_on_the_scaled_clock_and_survives_kill_9(
        server_factory: Callable[..., ServerProcess], tmp_path: Any) -> None:
    server = server_factory(tmp_path / "data", time_scale=SCALE)
    events, logs = client(server.url, "events"), client(server.url, "logs")
    group = "/events/schedule"
    logs.create_log_group(logGroupName=group)
    events.put_rule(Name="tick", ScheduleExpression="rate(1 minute)")
    events.put_targets(Rule="tick", Targets=[{"Id": "log", "Arn": log_arn(group)}])
    first = [json.loads(m) for m in messages(logs, group, 3)]
    assert len(first) >= 3
    assert {(e["source"], e["detail-type"]) for e in first} == {("aws.events", "Scheduled Event")}
    assert first[0]["resources"] == [f"arn:aws:events:us-east-1:{ACCOUNT}:rule/tick"]
    times = sorted(datetime.strptime(e["time"], "%Y-%m-%dT%H:%M:%SZ") for e in first)
    assert {b - a for a, b in itertools.pairwise(times)} == {timedelta(minutes=1)}  # nominal minutes
    server.kill()
    server = server_factory(tmp_path / "data", time_scale=SCALE)
    logs = client(server.url, "logs")
    later = messages(logs, group, len(first) + 2)
    assert len(later) >= len(first) + 2  # the rule's next firing was in its row: it goes on


def test_a_disabled_schedule_rule_does_not_fire(scaled: ServerProcess) -> None:
    events, logs = client(scaled.url, "events"), client(scaled.url, "logs")
    quiet, loud = uid("quiet"), uid("loud")
    for name in (quiet, loud):
        logs.create_log_group(logGroupName=f"/{name}")
        state = "DISABLED" if name == quiet else "ENABLED"
        events.put_rule(Name=name, ScheduleExpression="rate(1 minute)", State=state)
        events.put_targets(Rule=name, Targets=[{"Id": "l", "Arn": log_arn(f"/{name}")}])
    assert len(messages(logs, f"/{loud}", 3)) >= 3  # three firings of the enabled one, meanwhile none of the other
    assert logs.filter_log_events(logGroupName=f"/{quiet}")["events"] == []
    events.remove_targets(Rule=loud, Ids=["l"])


def set_time_scale(url: str, scale: float) -> None:
    import urllib.request

    request = urllib.request.Request(f"{url}/_onceflow/time-scale", method="POST",
                                     data=json.dumps({"timeScale": scale}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert json.loads(answer.read())["timeScale"] == scale


def test_a_new_time_scale_shortens_the_wait_already_started(scaled: ServerProcess) -> None:
    events, logs = client(scaled.url, "events"), client(scaled.url, "logs")
    name = uid("hourly")
    logs.create_log_group(logGroupName=f"/{name}")
    set_time_scale(scaled.url, 1.0)
    try:
        events.put_rule(Name=name, ScheduleExpression="rate(1 hour)")  # an hour away at scale 1
        events.put_targets(Rule=name, Targets=[{"Id": "l", "Arn": log_arn(f"/{name}")}])
        set_time_scale(scaled.url, 36000.0)  # the rest of that hour is now a tenth of a second
        assert len(messages(logs, f"/{name}", 1, timeout=10)) >= 1
    finally:
        events.remove_targets(Rule=name, Ids=["l"])
        set_time_scale(scaled.url, SCALE)


# ------------------------------------------------------------------------------ EventBridge Scheduler
def test_scheduler_runs_recurring_one_time_and_universal_targets(scaled: ServerProcess) -> None:
    sch, sfn, iam, ddb = (client(scaled.url, s) for s in ("scheduler", "stepfunctions", "iam", "dynamodb"))
    sfn_role = iam.create_role(RoleName="sfn", AssumeRolePolicyDocument=trust("states.amazonaws.com"))["Role"]["Arn"]
    machine = sfn.create_state_machine(name="m", roleArn=sfn_role, definition=json.dumps(
        {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))["stateMachineArn"]
    ddb.create_table(TableName="hits", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    role = iam.create_role(RoleName="sched", AssumeRolePolicyDocument=trust("scheduler.amazonaws.com"))["Role"]["Arn"]
    iam.put_role_policy(RoleName="sched", PolicyName="p", PolicyDocument=json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": ["states:StartExecution", "dynamodb:PutItem"],
                                       "Resource": "*"}]}))
    sch.create_schedule(Name="every-minute", ScheduleExpression="rate(1 minute)", FlexibleTimeWindow={"Mode": "OFF"},
                        Target={"Arn": machine, "RoleArn": role, "Input": '{"at": "<aws.scheduler.scheduled-time>", '
                                                                          '"by": "<aws.scheduler.schedule-arn>"}'})
    soon = (datetime.now(UTC) + timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S")
    sch.create_schedule(Name="once", ScheduleExpression=f"at({soon})", FlexibleTimeWindow={"Mode": "OFF"},
                        ActionAfterCompletion="DELETE", Target={
                            "Arn": "arn:aws:scheduler:::aws-sdk:dynamodb:putItem", "RoleArn": role,
                            "Input": json.dumps({"TableName": "hits", "Item": {"id": {"S": "once"}}})})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        runs = sfn.list_executions(stateMachineArn=machine)["executions"]
        item = ddb.get_item(TableName="hits", Key={"id": {"S": "once"}}).get("Item")
        if len(runs) >= 2 and item:
            break
        time.sleep(0.1)
    sch.delete_schedule(Name="every-minute")
    assert len(runs) >= 2 and item == {"id": {"S": "once"}}
    inputs = [json.loads(sfn.describe_execution(executionArn=r["executionArn"])["input"]) for r in runs]
    assert {i["by"] for i in inputs} == {f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule/default/every-minute"}
    assert len({i["at"] for i in inputs}) == len(inputs)
    # The one-time schedule fired once and deleted itself, as ActionAfterCompletion DELETE says.
    assert error(lambda: sch.get_schedule(Name="once"))[:2] == ("ResourceNotFoundException",
                                                              "Schedule once does not exist.")


def test_a_schedule_whose_role_is_not_trusted_starts_nothing(scaled: ServerProcess) -> None:
    sch, sfn, iam = (client(scaled.url, s) for s in ("scheduler", "stepfunctions", "iam"))
    sfn_role = iam.create_role(RoleName="sfn2", AssumeRolePolicyDocument=trust("states.amazonaws.com"))["Role"]["Arn"]
    pass_def = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    good_m = sfn.create_state_machine(name="good", roleArn=sfn_role, definition=pass_def)["stateMachineArn"]
    bad_m = sfn.create_state_machine(name="bad", roleArn=sfn_role, definition=pass_def)["stateMachineArn"]
    allow = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "states:StartExecution", "Resource": "*"}]})
    good = iam.create_role(RoleName="good", AssumeRolePolicyDocument=trust("scheduler.amazonaws.com"))["Role"]["Arn"]
    bad = iam.create_role(RoleName="bad", AssumeRolePolicyDocument=trust("events.amazonaws.com"))["Role"]["Arn"]
    for role in ("good", "bad"):
        iam.put_role_policy(RoleName=role, PolicyName="p", PolicyDocument=allow)
    sch.create_schedule(Name="bad", ScheduleExpression="rate(1 minute)", FlexibleTimeWindow={"Mode": "OFF"},
                        Target={"Arn": bad_m, "RoleArn": bad})
    sch.create_schedule(Name="good", ScheduleExpression="rate(1 minute)", FlexibleTimeWindow={"Mode": "OFF"},
                        Target={"Arn": good_m, "RoleArn": good})
    deadline = time.monotonic() + 30
    while len(sfn.list_executions(stateMachineArn=good_m)["executions"]) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(sfn.list_executions(stateMachineArn=good_m)["executions"]) >= 3
    assert sfn.list_executions(stateMachineArn=bad_m)["executions"] == []
    sch.delete_schedule(Name="good")
    sch.delete_schedule(Name="bad")


def test_scheduler_api_and_bad_input(aws: Callable[..., Any]) -> None:
    sch = aws("scheduler")
    group, name = uid("grp"), uid("s")
    arn = sch.create_schedule_group(Name=group, Tags=[{"Key": "k", "Value": "v"}])["ScheduleGroupArn"]
    assert arn == f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule-group/{group}"
    assert sch.get_schedule_group(Name=group)["State"] == "ACTIVE"
    assert sch.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    target = {"Arn": "arn:aws:lambda:us-east-1:000000000000:function:f", "RoleArn": "arn:aws:iam::000000000000:role/r"}
    out = sch.create_schedule(Name=name, GroupName=group, ScheduleExpression="cron(0 9 ? * MON-FRI *)",
                              ScheduleExpressionTimezone="Europe/Paris", Target=target, Description="weekdays",
                              FlexibleTimeWindow={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15})
    assert out["ScheduleArn"] == f"arn:aws:scheduler:us-east-1:{ACCOUNT}:schedule/{group}/{name}"
    got = sch.get_schedule(Name=name, GroupName=group)
    assert {k: got[k] for k in ("Name", "GroupName", "ScheduleExpression", "ScheduleExpressionTimezone", "State",
                                "Description", "Target", "FlexibleTimeWindow")} == {
        "Name": name, "GroupName": group, "ScheduleExpression": "cron(0 9 ? * MON-FRI *)",
        "ScheduleExpressionTimezone": "Europe/Paris", "State": "ENABLED", "Description": "weekdays",
        "Target": target, "FlexibleTimeWindow": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 15}}
    sch.update_schedule(Name=name, GroupName=group, ScheduleExpression="rate(5 minutes)", Target=target,
                        FlexibleTimeWindow={"Mode": "OFF"}, State="DISABLED")
    assert sch.get_schedule(Name=name, GroupName=group)["State"] == "DISABLED"
    listed = sch.list_schedules(GroupName=group)["Schedules"]
    assert [(s["Name"], s["State"], s["Target"]) for s in listed] == [(name, "DISABLED", {"Arn": target["Arn"]})]

    def create(**kw: Any) -> Callable[[], Any]:
        args = {"Name": uid("bad"), "ScheduleExpression": "rate(1 minute)", "Target": target,
                "FlexibleTimeWindow": {"Mode": "OFF"}, **kw}
        return lambda: sch.create_schedule(**args)
    assert error(create(Name=name, GroupName=group)) == ("ConflictException", f"Schedule {name} already exists.", 409)
    assert error(create(ScheduleExpression="rate(1 minutes)"))[::2] == ("ValidationException", 400)
    assert error(create(ScheduleExpression="at(2030-02-30T00:00:00)"))[::2] == ("ValidationException", 400)
    assert error(create(ScheduleExpressionTimezone="Mars/Olympus"))[::2] == ("ValidationException", 400)
    assert error(create(FlexibleTimeWindow={"Mode": "FLEXIBLE"}))[::2] == ("ValidationException", 400)
    assert error(create(GroupName=uid("nogroup")))[::2] == ("ResourceNotFoundException", 404)
    assert error(lambda: sch.get_schedule(Name=uid("none")))[::2] == ("ResourceNotFoundException", 404)
    assert error(lambda: sch.create_schedule_group(Name=group))[::2] == ("ConflictException", 409)
    assert [s["Name"] for s in sch.list_schedules(GroupName=group)["Schedules"]] == [name]  # nothing was added
    sch.delete_schedule_group(Name=group)
    assert error(lambda: sch.get_schedule(Name=name, GroupName=group))[::2] == ("ResourceNotFoundException", 404)


# ------------------------------------------------------------------------------ durability of PutEvents
def test_an_accepted_event_is_delivered_after_kill_9(server_factory: Callable[..., ServerProcess],
                                                     tmp_path: Any) -> None:
    """StartExecution fails (an injected 500) while the event is put, so its delivery waits in the
    outbox for a retry; the server is killed; after the restart the fault is lifted and the retry,
    from the stored row, starts the execution - once."""
    from faults_client import faults, set_rules

    server = server_factory(tmp_path / "data", time_scale=10.0)
    events, sfn, iam = (client(server.url, s) for s in ("events", "stepfunctions", "iam"))
    sfn_role = iam.create_role(RoleName="sfn", AssumeRolePolicyDocument=trust("states.amazonaws.com"))["Role"]["Arn"]
    machine = sfn.create_state_machine(name="m", roleArn=sfn_role, definition=json.dumps(
        {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))["stateMachineArn"]
    role = iam.create_role(RoleName="ev", AssumeRolePolicyDocument=trust("events.amazonaws.com"))["Role"]["Arn"]
    iam.put_role_policy(RoleName="ev", PolicyName="p", PolicyDocument=json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "states:StartExecution", "Resource": machine}]}))
    set_rules(server.url, [{"service": "stepfunctions", "operation": "StartExecution",
                            "error": {"code": "ServiceUnavailable", "statusCode": 503}}])
    events.put_rule(Name="start", EventPattern=json.dumps({"source": ["com.shop"]}))
    events.put_targets(Rule="start", Targets=[{"Id": "m", "Arn": machine, "RoleArn": role, "InputPath": "$.detail"}])
    events.put_events(Entries=[{"Source": "com.shop", "DetailType": "Order", "Detail": '{"order": 1}'}])
    deadline = time.monotonic() + 10
    while faults(server.url)[1]["rules"][0]["fired"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # the first attempt and a retry failed: the delivery is waiting in its row
    assert faults(server.url)[1]["rules"][0]["fired"] >= 2
    server.kill()
    server = server_factory(tmp_path / "data", time_scale=10.0)
    assert faults(server.url, "DELETE")[0] == 200
    sfn = client(server.url, "stepfunctions")
    deadline = time.monotonic() + 30
    while not (runs := sfn.list_executions(stateMachineArn=machine)["executions"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(runs) == 1
    assert json.loads(sfn.describe_execution(executionArn=runs[0]["executionArn"])["input"]) == {"order": 1}
