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
    ("PutDataProtectionPolicy", {"logGroupIdentifier": f"{GROUP}:g"}, f"{GROUP}:g:log-stream:"),
    ("CreateExportTask", {"logGroupName": "g"}, f"{GROUP}:g:log-stream:"),
    ("PutDeliverySource", {"name": "src"}, f"arn:aws:logs:{REGION}:{ACCT}:delivery-source:src"),
    ("PutDeliveryDestinationPolicy", {"deliveryDestinationName": "d"},
     f"arn:aws:logs:{REGION}:{ACCT}:delivery-destination:d"),
    ("DeleteDelivery", {"id": "abc"}, f"arn:aws:logs:{REGION}:{ACCT}:delivery:abc"),
    ("PutDestination", {"destinationName": "x"}, f"arn:aws:logs:{REGION}:{ACCT}:destination:x"),
])
def test_resource_arns(operation: str, params: dict[str, str], expected: str) -> None:
    db = Database(":memory:")
    resolve = resolve_resources(LogsService(db))
    ctx = RequestContext("logs", operation, ACCT, REGION, Principal.root(ACCT))
    assert resolve(ctx, params) == [expected]
    db.close()


def test_create_delivery_names_its_source_destination_and_delivery() -> None:
    db = Database(":memory:")
    resolve = resolve_resources(LogsService(db))
    ctx = RequestContext("logs", "CreateDelivery", ACCT, REGION, Principal.root(ACCT))
    destination = f"arn:aws:logs:{REGION}:{ACCT}:delivery-destination:d"
    assert resolve(ctx, {"deliverySourceName": "s", "deliveryDestinationArn": destination}) == [
        f"arn:aws:logs:{REGION}:{ACCT}:delivery-source:s", destination, f"arn:aws:logs:{REGION}:{ACCT}:delivery:*"]
    db.close()
