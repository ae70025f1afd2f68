"""EventBridge's API through boto3 and the AWS CLI: buses, rules, targets, PutEvents' entry errors,
TestEventPattern, permissions, tags, and AWS's errors for bad input (which change nothing)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

EVENT = {"id": "e1", "account": "000000000000", "source": "com.shop", "time": "2026-01-01T00:00:00Z",
         "region": "us-east-1", "resources": [], "detail-type": "Order Placed",
         "detail": {"total": 120, "currency": "EUR", "customer": {"tier": "gold"}, "ip": "10.1.2.3"}}


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def error(call: Callable[[], Any]) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as info:
        call()
    e = info.value.response
    return e["Error"]["Code"], e["Error"]["Message"], e["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture(scope="module")
def events(aws: Callable[..., Any]) -> Any:
    return aws("events")


# ------------------------------------------------------------------------------ buses
def test_custom_bus_lifecycle(events: Any) -> None:
    name = uid("bus")
    arn = events.create_event_bus(Name=name, Description="orders")["EventBusArn"]
    assert arn == f"arn:aws:events:us-east-1:000000000000:event-bus/{name}"
    d = events.describe_event_bus(Name=name)
    assert (d["Name"], d["Arn"], d["Description"]) == (name, arn, "orders")
    assert d["CreationTime"] and d["LastModifiedTime"]
    assert events.describe_event_bus(Name=arn)["Name"] == name  # a name or an ARN
    names = [b["Name"] for b in events.list_event_buses(NamePrefix=name)["EventBuses"]]
    assert names == [name]
    assert "default" in [b["Name"] for b in events.list_event_buses()["EventBuses"]]
    assert error(lambda: events.create_event_bus(Name=name)) == (
        "ResourceAlreadyExistsException", f"Event bus {name} already exists.", 400)
    events.delete_event_bus(Name=name)
    assert error(lambda: events.describe_event_bus(Name=name)) == (
        "ResourceNotFoundException", f"Event bus {name} does not exist.", 400)


def test_the_default_bus_always_exists_and_cannot_be_deleted(events: Any) -> None:
    d = events.describe_event_bus()
    assert (d["Name"], d["Arn"]) == ("default", "arn:aws:events:us-east-1:000000000000:event-bus/default")
    assert error(lambda: events.delete_event_bus(Name="default")) == (
        "ValidationException", "Cannot delete event bus default.", 400)
    assert error(lambda: events.create_event_bus(Name="default")) == (
        "ResourceAlreadyExistsException", "Event bus default already exists.", 400)
    assert error(lambda: events.create_event_bus(Name="a/b")) == (
        "ValidationException", "Event bus name must not contain '/'.", 400)
    assert error(lambda: events.create_event_bus(Name="aws.partner/x/y", EventSourceName="aws.partner/x/y")) == (
        "ResourceNotFoundException", "Event source aws.partner/x/y does not exist.", 400)


def test_bus_permissions(events: Any) -> None:
    name = uid("bus")
    events.create_event_bus(Name=name)
    events.put_permission(EventBusName=name, Action="events:PutEvents", Principal="111122223333", StatementId="acct")
    policy = json.loads(events.describe_event_bus(Name=name)["Policy"])
    assert policy["Statement"] == [{
        "Sid": "acct", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
        "Action": "events:PutEvents", "Resource": f"arn:aws:events:us-east-1:000000000000:event-bus/{name}"}]
    assert error(lambda: events.remove_permission(EventBusName=name, StatementId="nope")) == (
        "ResourceNotFoundException", "Statement with the provided id does not exist.", 400)
    events.remove_permission(EventBusName=name, StatementId="acct")
    assert "Policy" not in events.describe_event_bus(Name=name)
    assert error(lambda: events.remove_permission(EventBusName=name, StatementId="acct")) == (
        "ResourceNotFoundException", "EventBus does not have a policy.", 400)
    assert error(lambda: events.put_permission(EventBusName=name, Policy="{not json"))[:2] == (
        "ValidationException", "This policy contains invalid Json")
    assert error(lambda: events.put_permission(EventBusName=name, Action="events:PutRule", Principal="*",
                                               StatementId="x"))[1] == \
        "Provided value in parameter 'action' is not supported."


# ------------------------------------------------------------------------------ rules
def test_rule_lifecycle(events: Any) -> None:
    name = uid("rule")
    pattern = json.dumps({"source": ["com.shop"]})
    arn = events.put_rule(Name=name, EventPattern=pattern, Description="d")["RuleArn"]
    assert arn == f"arn:aws:events:us-east-1:000000000000:rule/{name}"
    d = events.describe_rule(Name=name)
    assert {k: d[k] for k in ("Name", "Arn", "EventPattern", "State", "Description", "EventBusName", "CreatedBy")} == {
        "Name": name, "Arn": arn, "EventPattern": pattern, "State": "ENABLED", "Description": "d",
        "EventBusName": "default", "CreatedBy": "000000000000"}
    events.disable_rule(Name=name)
    assert events.describe_rule(Name=name)["State"] == "DISABLED"
    events.enable_rule(Name=name)
    assert events.describe_rule(Name=name)["State"] == "ENABLED"
    assert [r["Name"] for r in events.list_rules(NamePrefix=name)["Rules"]] == [name]
    events.delete_rule(Name=name)
    assert error(lambda: events.describe_rule(Name=name)) == (
        "ResourceNotFoundException", f"Rule {name} does not exist on EventBus default.", 400)
    events.delete_rule(Name=name)  # deleting what is not there succeeds, as on AWS


def test_rules_on_a_custom_bus_have_the_bus_in_their_arn(events: Any) -> None:
    bus, name = uid("bus"), uid("rule")
    events.create_event_bus(Name=bus)
    arn = events.put_rule(Name=name, EventBusName=bus, EventPattern='{"source": ["a"]}')["RuleArn"]
    assert arn == f"arn:aws:events:us-east-1:000000000000:rule/{bus}/{name}"
    assert events.describe_rule(Name=name, EventBusName=bus)["EventBusName"] == bus
    assert error(lambda: events.describe_rule(Name=name))[0] == "ResourceNotFoundException"
    assert error(lambda: events.put_rule(Name=name, EventBusName=uid("nobus"), EventPattern='{"a": [1]}'))[0] == \
        "ResourceNotFoundException"
    assert error(lambda: events.put_rule(Name=uid("r"), EventBusName=bus, ScheduleExpression="rate(5 minutes)")) == (
        "ValidationException", "ScheduleExpression is supported only on the default event bus.", 400)


@pytest.mark.parametrize(("pattern", "reason"), [
    # AWS appends where its reader stood (LocalStack's recorded test_events_patterns: "string_nolist_EXC"
    # at column 13, "arrays_empty_EXC" past the array, "content_numeric_syntax_EXC" at the bad member).
    ('{"source": "com.shop"}', '"source" must be an object or an array\n at [Source: (String)"{"source": "com.shop"}"; '
     "line: 1, column: 13]"),
    ('{"source": []}', 'Empty arrays are not allowed\n at [Source: (String)"{"source": []}"; line: 1, column: 14]'),
    ('{"detail": {"n": [{"numeric": [">", "x"]}]}}', 'Value of > must be numeric\n at [Source: (String)'
     '"{"detail": {"n": [{"numeric": [">", "x"]}]}}"; line: 1, column: 38]'),
    ('{"detail": {"n": [{"regex": "a+"}]}}', 'Unrecognized match type regex\n at [Source: (String)'
     '"{"detail": {"n": [{"regex": "a+"}]}}"; line: 1, column: 30]'),
    ('["com.shop"]', 'Filter is not an object\n at [Source: (String)"["com.shop"]"; line: 1, column: 2]'),
])
def test_bad_patterns_are_refused_and_nothing_is_created(events: Any, pattern: str, reason: str) -> None:
    name = uid("bad")
    code, message, status = error(lambda: events.put_rule(Name=name, EventPattern=pattern))
    assert (code, message, status) == ("InvalidEventPatternException",
                                       f"Event pattern is not valid. Reason: {reason}", 400)
    assert events.list_rules(NamePrefix=name)["Rules"] == []


def test_a_pattern_that_is_not_json(events: Any) -> None:
    """AWS's answer, recorded (LocalStack's test_events_patterns snapshot): Jackson's words and location."""
    name = uid("bad")
    text = '{"not": closed mark"'
    expected = ("InvalidEventPatternException", "Event pattern is not valid. Reason: Unrecognized token 'closed': "
                "was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at "
                f'[Source: (String)"{text}"; line: 1, column: 15]', 400)
    assert error(lambda: events.put_rule(Name=name, EventPattern=text)) == expected
    assert error(lambda: events.test_event_pattern(EventPattern=text, Event="{}")) == expected
    assert events.list_rules(NamePrefix=name)["Rules"] == []


@pytest.mark.parametrize("expression", ["rate(5 minute)", "rate(1 minutes)", "cron(0 12 * * * *)", "every hour",
                                        "cron(0 12 * * ?)"])
def test_bad_schedule_expressions(events: Any, expression: str) -> None:
    assert error(lambda: events.put_rule(Name=uid("sched"), ScheduleExpression=expression)) == (
        "ValidationException", "Parameter ScheduleExpression is not valid.", 400)


def test_a_rule_needs_a_pattern_or_a_schedule(events: Any) -> None:
    assert error(lambda: events.put_rule(Name=uid("none"))) == (
        "ValidationException", "Parameter(s) EventPattern or ScheduleExpression must be specified.", 400)


def test_schedule_rules_keep_their_expression(events: Any) -> None:
    name = uid("sched")
    events.put_rule(Name=name, ScheduleExpression="cron(0 10 * * ? *)", State="DISABLED")
    d = events.describe_rule(Name=name)
    assert (d["ScheduleExpression"], d["State"]) == ("cron(0 10 * * ? *)", "DISABLED")


# ------------------------------------------------------------------------------ targets
def test_targets(events: Any) -> None:
    name = uid("rule")
    events.put_rule(Name=name, EventPattern='{"source": ["com.shop"]}')
    fn = "arn:aws:lambda:us-east-1:000000000000:function:f"
    group = "arn:aws:logs:us-east-1:000000000000:log-group:/x"
    out = events.put_targets(Rule=name, Targets=[
        {"Id": "a", "Arn": fn, "Input": '{"x": 1}'},
        {"Id": "b", "Arn": group, "InputPath": "$.detail"},
    ])
    assert (out["FailedEntryCount"], out["FailedEntries"]) == (0, [])
    targets = events.list_targets_by_rule(Rule=name)["Targets"]
    assert [(t["Id"], t["Arn"]) for t in targets] == [("a", fn), ("b", group)]
    assert targets[0]["Input"] == '{"x": 1}' and targets[1]["InputPath"] == "$.detail"
    assert name in events.list_rule_names_by_target(TargetArn=fn)["RuleNames"]
    assert error(lambda: events.delete_rule(Name=name)) == (
        "ValidationException", "Rule can't be deleted since it has targets.", 400)
    events.put_targets(Rule=name, Targets=[{"Id": "a", "Arn": fn, "Input": '{"x": 2}'}])  # replaces by id
    assert [t.get("Input") for t in events.list_targets_by_rule(Rule=name)["Targets"]] == ['{"x": 2}', None]
    events.remove_targets(Rule=name, Ids=["a", "b"])
    assert events.list_targets_by_rule(Rule=name)["Targets"] == []
    events.delete_rule(Name=name)


def test_target_errors_change_nothing(events: Any) -> None:
    name = uid("rule")
    events.put_rule(Name=name, EventPattern='{"source": ["com.shop"]}')
    fn = "arn:aws:lambda:us-east-1:000000000000:function:f"
    sm = "arn:aws:states:us-east-1:000000000000:stateMachine:m"
    cases = [
        ([{"Id": "x", "Arn": "not-an-arn"}],
         ("ValidationException", "Parameter not-an-arn is not valid. Reason: Provided Arn is not in correct format.")),
        ([{"Id": "x", "Arn": sm}], ("ValidationException", "Parameter(s) RoleArn must be specified for target: x.")),
        ([{"Id": "x", "Arn": "arn:aws:sqs:us-east-1:000000000000:q.fifo"}],
         ("ValidationException", "Parameter(s) SqsParameters must be specified for target: x.")),
        ([{"Id": str(i), "Arn": fn} for i in range(6)],
         ("LimitExceededException", "The requested resource exceeds the maximum number allowed.")),
        ([{"Id": "x", "Arn": fn, "Input": "{", "InputPath": "$"}], None),
        ([{"Id": "x", "Arn": fn, "Input": "not json"}], None),
        ([{"Id": "x", "Arn": fn, "InputPath": "detail"}], None),
        ([{"Id": "x", "Arn": fn, "InputTransformer": {"InputPathsMap": {"aws.events.rule-arn": "$.id"},
                                                     "InputTemplate": "<aws.events.rule-arn>"}}], None),
    ]
    for targets, expected in cases:
        code, message, status = error(lambda t=targets: events.put_targets(Rule=name, Targets=t))
        assert status == 400 and code == (expected[0] if expected else "ValidationException")
        if expected:
            assert message == expected[1]
    assert events.list_targets_by_rule(Rule=name)["Targets"] == []
    assert error(lambda: events.put_targets(Rule=uid("missing"), Targets=[{"Id": "a", "Arn": fn}]))[0] == \
        "ResourceNotFoundException"


# ------------------------------------------------------------------------------ PutEvents
def test_put_events_reports_each_entry(events: Any) -> None:
    out = events.put_events(Entries=[
        {"Source": "com.shop", "DetailType": "Order Placed", "Detail": '{"id": 1}'},
        {"Source": "com.shop", "DetailType": "Order Placed"},
        {"DetailType": "Order Placed", "Detail": "{}"},
        {"Source": "com.shop", "DetailType": "Order Placed", "Detail": "[1, 2]"},
        {"Source": "com.shop", "DetailType": "Order Placed", "Detail": "{", "EventBusName": "default"},
        {"Source": "com.shop", "DetailType": "x", "Detail": "{}", "EventBusName": uid("nobus")},
    ])
    entries = out["Entries"]
    assert out["FailedEntryCount"] == 5 and len(entries) == 6
    assert set(entries[0]) == {"EventId"}
    assert entries[1] == {"ErrorCode": "InvalidArgument",
                          "ErrorMessage": "Parameter Detail is not valid. Reason: Detail is a required argument."}
    assert entries[2] == {"ErrorCode": "InvalidArgument",
                          "ErrorMessage": "Parameter Source is not valid. Reason: Source is a required argument."}
    assert entries[3] == entries[4] == {"ErrorCode": "MalformedDetail", "ErrorMessage": "Detail is malformed."}
    assert entries[5]["ErrorCode"] == "ResourceNotFoundException"


def test_put_events_over_256_kb_is_refused(events: Any) -> None:
    big = json.dumps({"blob": "x" * (256 * 1024)})
    assert error(lambda: events.put_events(Entries=[{"Source": "s", "DetailType": "t", "Detail": big}])) == (
        "ValidationException", "Total size of the entries in the request is over the limit.", 400)


def test_put_events_entry_count_is_checked_by_the_model(events: Any) -> None:
    entries = [{"Source": "s", "DetailType": "t", "Detail": "{}"}] * 11
    assert error(lambda: events.put_events(Entries=entries))[0] == "ValidationException"


# ------------------------------------------------------------------------------ TestEventPattern
@pytest.mark.parametrize(("pattern", "result"), [
    ({"source": ["com.shop"]}, True),
    ({"source": ["com.other"]}, False),
    ({"detail": {"total": [{"numeric": [">", 100, "<=", 200]}]}}, True),
    ({"detail": {"total": [{"numeric": ["<", 100]}]}}, False),
    ({"detail": {"currency": [{"anything-but": ["USD", "GBP"]}]}}, True),
    ({"detail": {"customer": {"tier": [{"equals-ignore-case": "GOLD"}]}}}, True),
    ({"detail-type": [{"prefix": "Order"}], "detail": {"missing": [{"exists": False}]}}, True),
    ({"detail": {"ip": [{"cidr": "10.1.0.0/16"}]}}, True),
    ({"detail-type": [{"wildcard": "Order *ed"}]}, True),
    ({"$or": [{"source": ["nope"]}, {"detail": {"currency": ["EUR"]}}]}, True),
    ({"detail-type": [{"suffix": {"equals-ignore-case": "PLACED"}}]}, True),
])
def test_test_event_pattern(events: Any, pattern: dict[str, Any], result: bool) -> None:
    assert events.test_event_pattern(EventPattern=json.dumps(pattern), Event=json.dumps(EVENT))["Result"] is result


def test_test_event_pattern_bad_input(events: Any) -> None:
    assert error(lambda: events.test_event_pattern(EventPattern='{"a": 1}', Event=json.dumps(EVENT)))[:2] == (
        "InvalidEventPatternException", 'Event pattern is not valid. Reason: "a" must be an object or an array'
        '\n at [Source: (String)"{"a": 1}"; line: 1, column: 8]')
    incomplete = {k: v for k, v in EVENT.items() if k != "detail-type"}
    assert error(lambda: events.test_event_pattern(EventPattern='{"a": [1]}', Event=json.dumps(incomplete)))[:2] == (
        "ValidationException", "Parameter Event is not valid.")
    assert error(lambda: events.test_event_pattern(EventPattern='{"a": [1]}', Event="{"))[0] == "ValidationException"


# ------------------------------------------------------------------------------ tags
def test_tags_on_rules_and_buses(events: Any) -> None:
    name, bus = uid("rule"), uid("bus")
    arn = events.put_rule(Name=name, EventPattern='{"a": [1]}', Tags=[{"Key": "team", "Value": "ops"}])["RuleArn"]
    bus_arn = events.create_event_bus(Name=bus, Tags=[{"Key": "k", "Value": "v"}])["EventBusArn"]
    assert events.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "team", "Value": "ops"}]
    events.tag_resource(ResourceARN=arn, Tags=[{"Key": "env", "Value": "dev"}])
    events.untag_resource(ResourceARN=arn, TagKeys=["team"])
    assert events.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]
    assert events.list_tags_for_resource(ResourceARN=bus_arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    missing = "arn:aws:events:us-east-1:000000000000:rule/" + uid("none")
    assert error(lambda: events.list_tags_for_resource(ResourceARN=missing))[0] == "ResourceNotFoundException"


# ------------------------------------------------------------------------------ the CLI
def test_the_cli(aws_cli: Callable[..., Any]) -> None:
    name = uid("cli")
    put = aws_cli("events", "put-rule", "--name", name, "--event-pattern", '{"source": ["com.shop"]}')
    assert put.returncode == 0, put.stderr
    assert json.loads(put.stdout)["RuleArn"].endswith(f":rule/{name}")
    test = aws_cli("events", "test-event-pattern", "--event-pattern", '{"source": ["com.shop"]}',
                   "--event", json.dumps(EVENT))
    assert test.returncode == 0 and json.loads(test.stdout) == {"Result": True}
    bad = aws_cli("events", "put-rule", "--name", name, "--event-pattern", '{"source": "x"}')
    assert bad.returncode != 0
    assert "InvalidEventPatternException" in bad.stderr and '"source" must be an object or an array' in bad.stderr
