"""The console's CloudFormation pages over HTTP: the stack list, and one stack with its resources
linked to their own pages, its outputs, parameters and events; user text escaped."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from console_seed import Page

TEMPLATE = {
    "Description": "<script>alert(1)</script> stack",
    "Parameters": {"Note": {"Type": "String", "Default": "<i>note</i>"}},
    "Resources": {
        "Jobs": {"Type": "AWS::SQS::Queue"},
        "News": {"Type": "AWS::SNS::Topic"},
        "Items": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "BillingMode": "PAY_PER_REQUEST", "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}},
        "Bus": {"Type": "AWS::Events::EventBus", "Properties": {"Name": {"Fn::Sub": "${AWS::StackName}-bus"}}},
        "Placed": {"Type": "AWS::Events::Rule", "Properties": {"EventBusName": {"Ref": "Bus"},
                                                               "EventPattern": {"source": ["shop"]}}},
    },
    "Outputs": {"Shown": {"Value": {"Fn::Join": ["", ["<b>", {"Ref": "Note"}, "</b>"]]}}},
}


def test_stack_pages(page: Callable[[str], Page], aws: Callable[..., Any]) -> None:
    cfn, name = aws("cloudformation"), f"console-{uuid.uuid4().hex[:8]}"
    cfn.create_stack(StackName=name, TemplateBody=json.dumps(TEMPLATE))
    cfn.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    made = {r["LogicalResourceId"]: r["PhysicalResourceId"]
            for r in cfn.describe_stack_resources(StackName=name)["StackResources"]}

    listing = page("/cloudformation")
    assert listing.status == 200
    assert f'href="/cloudformation/{name}"' in listing.text and "CREATE_COMPLETE" in listing.text
    assert "<script>alert(1)" not in listing.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in listing.text

    detail = page(f"/cloudformation/{name}")
    assert detail.status == 200
    assert f'href="/sqs/{made["Jobs"].rsplit("/", 1)[1]}"' in detail.text
    assert f'href="/dynamodb/{made["Items"]}"' in detail.text
    assert f'href="/sns/topic?arn={quote(made["News"], safe="")}"' in detail.text
    bus, rule = made["Placed"].split("|")  # a rule on a bus of its own: "bus|rule"
    assert f'href="/events/rules/{rule}?bus={bus}"' in detail.text
    assert page(f"/events/rules/{rule}?bus={bus}").status == 200
    assert "&lt;b&gt;&lt;i&gt;note&lt;/i&gt;&lt;/b&gt;" in detail.text and "<b><i>" not in detail.text
    assert detail.text.count("CREATE_COMPLETE") >= 6  # the stack and its five resources, in events too
    assert page(f"/cloudformation/none-{name}").status == 404
    cfn.delete_stack(StackName=name)
