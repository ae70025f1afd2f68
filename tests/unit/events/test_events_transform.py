"""What a target receives: Input, InputPath and InputTransformer, with the quoting rules AWS documents."""

from __future__ import annotations

import json

import pytest

from onceflow.events.transform import PathError, parse_path, read_path, target_input

EVENT = {
    "version": "0", "id": "7bf73129-1428-4cd3-a780-95db273d1602",
    "detail-type": "EC2 Instance State-change Notification",
    "source": "aws.ec2", "account": "123456789012", "time": "2015-11-11T21:29:54Z", "region": "us-east-1",
    "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],
    "detail": {"instance-id": "i-0123456789", "state": "RUNNING", "count": 3, "tags": {"a": "b"}, "quote": 'say "hi"'},
}
CONTEXT = {"aws.events.rule-arn": "arn:aws:events:us-east-1:123456789012:rule/r",
           "aws.events.rule-name": "r", "aws.events.event.ingestion-time": "2015-11-11T21:29:55.000Z"}


def transformed(paths: dict[str, str], template: str) -> str:
    return target_input({"InputTransformer": {"InputPathsMap": paths, "InputTemplate": template}}, EVENT, CONTEXT)


PATHS = {"instance": "$.detail.instance-id", "state": "$.detail.state"}


def test_the_whole_event_by_default_and_fixed_input() -> None:
    assert json.loads(target_input({}, EVENT, CONTEXT)) == EVENT
    assert target_input({"Input": '{"fixed": true}'}, EVENT, CONTEXT) == '{"fixed": true}'


def test_input_path() -> None:
    assert json.loads(target_input({"InputPath": "$.detail"}, EVENT, CONTEXT)) == EVENT["detail"]
    assert target_input({"InputPath": "$.detail.state"}, EVENT, CONTEXT) == '"RUNNING"'
    assert target_input({"InputPath": "$.resources[0]"}, EVENT, CONTEXT) == json.dumps(EVENT["resources"][0])


def test_documented_examples() -> None:
    # "Input template" examples of AWS's input transformation page.
    assert transformed(PATHS, '"instance <instance> is in <state>"') == '"instance i-0123456789 is in RUNNING"'
    assert transformed(PATHS, '{"instance" : <instance>, "state": <state>}') == \
        '{"instance" : "i-0123456789", "state": "RUNNING"}'
    assert transformed(PATHS, '{"instance" : "<instance>", "state": "<state>"}') == \
        '{"instance" : "i-0123456789", "state": "RUNNING"}'
    assert transformed(PATHS, '{"instance" : <instance>, "state": [ 9, <state>, true ]}') == \
        '{"instance" : "i-0123456789", "state": [ 9, "RUNNING", true ]}'
    assert transformed(PATHS, "instance <instance> is in <state>") == "instance i-0123456789 is in RUNNING"


def test_values_that_are_not_strings() -> None:
    paths = {"n": "$.detail.count", "tags": "$.detail.tags"}
    assert transformed(paths, '{"n": <n>, "tags": <tags>}') == '{"n": 3, "tags": {"a":"b"}}'
    assert transformed(paths, '"count is <n>"') == '"count is 3"'
    assert transformed(paths, '{"inside": "<tags>"}') == '{"inside": "{\\"a\\":\\"b\\"}"}'


def test_strings_inside_json_strings_are_escaped() -> None:
    assert transformed({"q": "$.detail.quote"}, '{"said": "<q>"}') == '{"said": "say \\"hi\\""}'
    assert json.loads(transformed({"q": "$.detail.quote"}, '{"said": "<q>"}')) == {"said": 'say "hi"'}
    assert transformed({"q": "$.detail.quote"}, '{"said": <q>}') == '{"said": "say \\"hi\\""}'


def test_predefined_variables() -> None:
    out = json.loads(transformed({}, '{"arn": "<aws.events.rule-arn>", "name": <aws.events.rule-name>, '
                                     '"at": "<aws.events.event.ingestion-time>", "e": <aws.events.event>, '
                                     '"full": <aws.events.event.json>}'))
    assert out["arn"] == CONTEXT["aws.events.rule-arn"] and out["name"] == "r"
    assert out["at"] == "2015-11-11T21:29:55.000Z"
    assert out["full"] == EVENT
    assert out["e"] == {k: v for k, v in EVENT.items() if k != "detail"}


def test_unknown_placeholders_and_missing_paths() -> None:
    assert transformed(PATHS, '"<nope> <instance>"') == '"<nope> i-0123456789"'
    assert transformed({"m": "$.detail.missing"}, '{"m": <m>, "s": "<m>"}') == '{"m": null, "s": ""}'
    assert transformed({"a": "$.a"}, "a < b and <a>") == "a < b and "


def test_paths() -> None:
    assert parse_path("$") == []
    assert parse_path("$.detail.instance-id") == ["detail", "instance-id"]
    assert parse_path("$.a[2]['b c'].*") == ["a", 2, "b c", None]
    assert read_path(EVENT, "$.detail.*") == list(EVENT["detail"].values())
    assert read_path({"a/b": 1}, "$.a/b") == 1
    for bad in ("detail", "$..x", "$.a[", "$[x]"):
        with pytest.raises(PathError):
            parse_path(bad)
