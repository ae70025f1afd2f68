"""The ARNs IAM evaluates Logs calls against (AWS's AccessDenied messages name these)."""

from __future__ import annotations

import pytest

from onceflow.context import Principal, RequestContext
from onceflow.logs.api import resolve_resources
from onceflow.logs.service import LogsService
from onceflow.store.db import Database

ACCT, REGION = "123456789012", "eu-west-1"
GROUP = f"arn:aws:logs:{REGION}:{ACCT}:log-group"


@pytest.mark.parametrize(("operation", "params", "expected"), [
    ("CreateLogGroup", {"logGroupName": "/aws/lambda/fn"}, f"{GROUP}:/aws/lambda/fn:log-stream:"),
    ("DescribeLogStreams", {"logGroupIdentifier": f"{GROUP}:g"}, f"{GROUP}:g:log-stream:"),
    ("FilterLogEvents", {"logGroupName": "g"}, f"{GROUP}:g:log-stream:"),
    ("PutLogEvents", {"logGroupName": "g", "logStreamName": "s"}, f"{GROUP}:g:log-stream:s"),
    ("GetLogEvents", {"logGroupIdentifier": "g", "logStreamName": "s"}, f"{GROUP}:g:log-stream:s"),
    ("CreateLogStream", {"logGroupName": "g", "logStreamName": "s"}, f"{GROUP}:g:log-stream:s"),
    ("DescribeLogGroups", {}, f"{GROUP}::log-stream:"),
    ("TagResource", {"resourceArn": f"{GROUP}:g"}, f"{GROUP}:g"),
])
def test_resource_arns(operation: str, params: dict[str, str], expected: str) -> None:
    db = Database(":memory:")
    resolve = resolve_resources(LogsService(db))
    ctx = RequestContext("logs", operation, ACCT, REGION, Principal.root(ACCT))
    assert resolve(ctx, params) == [expected]
    db.close()
