"""The console's event source mappings: on the functions page and on each function's page, with
their source linked and their last processing result."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from console_seed import Page

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
READS = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["sqs:*", "dynamodb:*", "logs:*"], "Resource": "*"}]}
APP = "def handler(event, context):\n    return {'batchItemFailures': []}\n"


def test_mappings_are_shown_with_their_source_and_last_result(page: Callable[[str], Page],
                                                              aws: Callable[..., Any]) -> None:
    tag = uuid.uuid4().hex[:8]
    iam, lam, sqs = aws("iam"), aws("lambda"), aws("sqs")
    role = iam.create_role(RoleName=f"esm-page-{tag}", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=f"esm-page-{tag}", PolicyName="reads", PolicyDocument=json.dumps(READS))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    function = f"esm-page-{tag}"
    lam.create_function(FunctionName=function, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": buf.getvalue()})
    url = sqs.create_queue(QueueName=f"esm-page-{tag}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    from_queue = lam.create_event_source_mapping(EventSourceArn=queue_arn, FunctionName=function)["UUID"]
    ddb = aws("dynamodb")
    stream = ddb.create_table(TableName=f"esm-page-{tag}", BillingMode="PAY_PER_REQUEST",
                              AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                              KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                              StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
                              )["TableDescription"]["LatestStreamArn"]
    mapping = lam.create_event_source_mapping(EventSourceArn=stream, FunctionName=function,
                                              StartingPosition="TRIM_HORIZON", BatchSize=5)["UUID"]
    ddb.put_item(TableName=f"esm-page-{tag}", Item={"id": {"S": "one"}})
    deadline = time.monotonic() + 60
    while (last := lam.get_event_source_mapping(UUID=mapping).get("LastProcessingResult")) != "OK":
        assert time.monotonic() < deadline, f"the mapping never processed the record: {last}"
        time.sleep(0.2)

    shown = page(f"/lambda/{function}")
    assert shown.status == 200
    section = shown.text.split("Event source mappings", 1)[1].split("</section>", 1)[0]
    assert from_queue in section and f'href="/sqs/esm-page-{tag}"' in section
    assert mapping in section and f'href="/dynamodb/esm-page-{tag}"' in section
    assert '<td class="last-result">OK</td>' in section and "Enabled" in section
    listing = page("/lambda")
    assert listing.status == 200
    everything = listing.text.split("Event source mappings", 1)[1]
    assert mapping in everything and f'href="/lambda/{function}"' in everything
