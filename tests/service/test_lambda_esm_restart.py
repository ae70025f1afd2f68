"""A stream mapping's position is kept in its row: a server killed with -9 and started again on the
same data resumes after the last batch it finished, and an SQS mapping polls again on its own."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from test_lambda_esm import _events, _function, _queue, _until

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
