"""A stream mapping's position is kept in its row: a server killed with -9 and started again on the
same data resumes after the last batch it finished, and an SQS mapping polls again on its own."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_lambda_esm import _events, _function, _queue, _until, _zip

from serverproc import client_factory

POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["sqs:*", "dynamodb:*", "logs:*"], "Resource": "*"}]}
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def _ids(aws: Callable[..., Any], function: str) -> list[str]:
    return [r["dynamodb"]["Keys"]["id"]["S"] for e in _events(aws, function) for r in e["Records"]]


def test_mappings_resume_after_kill_9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = server_factory(data)
    aws = client_factory(first.url)
    iam = aws("iam")
    role = iam.create_role(RoleName="esm-restart", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName="esm-restart", PolicyName="p", PolicyDocument=json.dumps(POLICY))
    function = _function(aws, role)
    stream = aws("dynamodb").create_table(
        TableName="esm-restart", BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )["TableDescription"]["LatestStreamArn"]
    lam = aws("lambda")
    key = lam.create_event_source_mapping(EventSourceArn=stream, FunctionName=function,
                                          StartingPosition="TRIM_HORIZON")["UUID"]
    url, arn = _queue(aws)
    lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function)
    aws("dynamodb").put_item(TableName="esm-restart", Item={"id": {"S": "one"}})
    _until(lambda: _ids(aws, function) == ["one"], "the first record")
    _until(lambda: lam.get_event_source_mapping(UUID=key)["LastProcessingResult"] == "OK", "the checkpoint")
    first.kill()

    second = server_factory(data)
    aws = client_factory(second.url)
    aws("dynamodb").put_item(TableName="esm-restart", Item={"id": {"S": "two"}})
    _until(lambda: "two" in _ids(aws, function), "the record written after the restart")
    assert _ids(aws, function) == ["one", "two"]  # "one" was not delivered again
    aws("sqs").send_message(QueueUrl=url, MessageBody="after restart")
    _until(lambda: any(r.get("body") == "after restart" for e in _events(aws, function) for r in e["Records"]),
           "the queue polled again")


WINDOW_S = 20


@pytest.mark.slow  # waits for a tumbling window to end (20 s at most)
def test_a_tumbling_window_keeps_its_state_across_kill_9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    """The state a function returned in a window is kept with the checkpoint: the window's final
    invocation, made by the restarted server, carries it (Lambda keeps it, not the function)."""
    data = tmp_path / "data"
    first = server_factory(data)
    aws = client_factory(first.url)
    iam = aws("iam")
    role = iam.create_role(RoleName="esm-window", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName="esm-window", PolicyName="p", PolicyDocument=json.dumps(POLICY))
    function = _function(aws, role)
    stream = aws("dynamodb").create_table(
        TableName="esm-window", BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )["TableDescription"]["LatestStreamArn"]
    lam = aws("lambda")
    key = lam.create_event_source_mapping(EventSourceArn=stream, FunctionName=function, StartingPosition="LATEST",
                                          TumblingWindowInSeconds=WINDOW_S)["UUID"]
    _until(lambda: lam.get_event_source_mapping(UUID=key)["State"] == "Enabled", "the mapping enabled")
    while time.time() % WINDOW_S > 3:  # early in a window, so the kill comes well before its end
        time.sleep(0.2)
    for item in ("a", "b"):
        aws("dynamodb").put_item(TableName="esm-window", Item={"id": {"S": item}})
    _until(lambda: sum(len(e["Records"]) for e in _events(aws, function)) == 2, "both records delivered")
    _until(lambda: lam.get_event_source_mapping(UUID=key)["LastProcessingResult"] == "OK", "the checkpoint")
    first.kill()

    second = server_factory(data)
    aws = client_factory(second.url)
    finals = _until(lambda: [e for e in _events(aws, function) if e.get("isFinalInvokeForWindow")],
                    "the window's final invocation", timeout=WINDOW_S + 30)
    assert [(e["Records"], e["state"]) for e in finals] == [([], {"n": 2})]


def test_a_reset_stops_the_pollers_with_the_mappings(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    server = server_factory(tmp_path / "reset")
    aws = client_factory(server.url)

    def role() -> str:
        iam = aws("iam")
        arn = iam.create_role(RoleName="esm-reset", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
        iam.put_role_policy(RoleName="esm-reset", PolicyName="p", PolicyDocument=json.dumps(POLICY))
        return str(arn)

    function = _function(aws, role())
    _, arn = _queue(aws)
    aws("lambda").create_event_source_mapping(EventSourceArn=arn, FunctionName=function)
    urllib.request.urlopen(urllib.request.Request(f"{server.url}/_onceflow/reset", method="POST"), timeout=30)
    assert aws("lambda").list_event_source_mappings()["EventSourceMappings"] == []

    # the same names again, unmapped: nothing may consume this queue now
    aws("lambda").create_function(FunctionName=function, Runtime="python3.12", Role=role(), Handler="app.handler",
                                  Code={"ZipFile": _zip()})
    sqs = aws("sqs")
    again = sqs.create_queue(QueueName=arn.rsplit(":", 1)[1])["QueueUrl"]
    sqs.send_message(QueueUrl=again, MessageBody="unmapped")
    other_url, other_arn = _queue(aws)
    aws("lambda").create_event_source_mapping(EventSourceArn=other_arn, FunctionName=function)
    sqs.send_message(QueueUrl=other_url, MessageBody="mapped")
    _until(lambda: [r["body"] for e in _events(aws, function) for r in e["Records"]] == ["mapped"],
           "the new mapping's delivery")
    counts = sqs.get_queue_attributes(QueueUrl=again, AttributeNames=["All"])["Attributes"]
    assert (counts["ApproximateNumberOfMessages"], counts["ApproximateNumberOfMessagesNotVisible"]) == ("1", "0")
