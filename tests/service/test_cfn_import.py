"""IMPORT change sets: existing resources (a table and a queue made with their own APIs) adopted
into a new stack, then a log group into that stack; the stack reads their attributes, updates them
afterwards, and keeps them (DeletionPolicy Retain) when deleted. Bad imports get AWS's errors and
change nothing."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _settle(cfn: Any, name: str) -> str:
    for _ in range(600):
        status = str(cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"])
        if not status.endswith("_IN_PROGRESS") or status == "REVIEW_IN_PROGRESS":
            return status
        time.sleep(0.05)
    raise AssertionError(f"{name} still {status}")


def _table(name: str) -> dict[str, Any]:
    return {"Type": "AWS::DynamoDB::Table", "DeletionPolicy": "Retain", "Properties": {
        "TableName": name, "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}}


def _import(cfn: Any, stack: str, template: dict[str, Any], wanted: list[dict[str, Any]], cs: str = "adopt",
            kind: str = "IMPORT") -> Any:
    return cfn.create_change_set(StackName=stack, ChangeSetName=cs, ChangeSetType=kind,
                                 TemplateBody=json.dumps(template), ResourcesToImport=wanted)


def _error(call: Any, *args: Any) -> str:
    with pytest.raises(ClientError) as err:
        call(*args)
    assert err.value.response["Error"]["Code"] == "ValidationError"
    return str(err.value.response["Error"]["Message"])


def test_existing_resources_are_imported_into_a_stack(aws: Any) -> None:
    cfn, ddb, sqs, logs, tag = aws("cloudformation"), aws("dynamodb"), aws("sqs"), aws("logs"), uuid.uuid4().hex[:8]
    table, queue, group, stack = f"orders-{tag}", f"jobs-{tag}", f"/adopted/{tag}", f"adopt-{tag}"
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    ddb.put_item(TableName=table, Item={"pk": {"S": "kept"}})
    url = sqs.create_queue(QueueName=queue)["QueueUrl"]
    logs.create_log_group(logGroupName=group)
    template: dict[str, Any] = {
        "Resources": {"Orders": _table(table), "Jobs": {"Type": "AWS::SQS::Queue", "DeletionPolicy": "Retain",
                                                        "Properties": {"QueueName": queue}}}}
    arns = {"TableArn": {"Value": {"Fn::GetAtt": ["Orders", "Arn"]}},
            "QueueArn": {"Value": {"Fn::GetAtt": ["Jobs", "Arn"]}}}
    wanted = [{"ResourceType": "AWS::DynamoDB::Table", "LogicalResourceId": "Orders",
               "ResourceIdentifier": {"TableName": table}},
              {"ResourceType": "AWS::SQS::Queue", "LogicalResourceId": "Jobs", "ResourceIdentifier": {"QueueUrl": url}}]

    # Bad imports: refused, and no stack is left behind.
    no_policy = json.loads(json.dumps(template))
    del no_policy["Resources"]["Orders"]["DeletionPolicy"]
    assert _error(_import, cfn, stack, no_policy, wanted) == \
        "The following resources to import [Orders] must have DeletionPolicy attribute specified in the template."
    missing = [dict(wanted[0], ResourceIdentifier={"TableName": f"nope-{tag}"}), wanted[1]]
    assert _error(_import, cfn, stack, template, missing) == \
        f"Resource of type 'AWS::DynamoDB::Table' with identifier 'nope-{tag}' was not found."
    assert _error(_import, cfn, stack, dict(template, Outputs=arns), wanted) == \
        "As part of the import operation, you cannot modify or add [Outputs]"
    assert "QueueUrl" in _error(_import, cfn, stack, template, [wanted[0], dict(
        wanted[1], ResourceIdentifier={"QueueName": queue})])
    assert not [s for s in cfn.list_stacks()["StackSummaries"] if s["StackName"] == stack]

    out = _import(cfn, stack, template, wanted)
    cs = cfn.describe_change_set(ChangeSetName=out["Id"])
    assert cs["Status"] == "CREATE_COMPLETE" and cs["ExecutionStatus"] == "AVAILABLE"
    assert [(c["ResourceChange"]["Action"], c["ResourceChange"]["LogicalResourceId"],
             c["ResourceChange"]["PhysicalResourceId"]) for c in cs["Changes"]] == [
        ("Import", "Orders", table), ("Import", "Jobs", url)]
    assert cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"] == "REVIEW_IN_PROGRESS"
    cfn.execute_change_set(ChangeSetName=out["Id"])
    assert _settle(cfn, stack) == "IMPORT_COMPLETE"
    described = cfn.describe_stacks(StackName=stack)["Stacks"][0]
    resources = {r["LogicalResourceId"]: (r["PhysicalResourceId"], r["ResourceStatus"])
                 for r in cfn.describe_stack_resources(StackName=stack)["StackResources"]}
    assert resources == {"Orders": (table, "IMPORT_COMPLETE"), "Jobs": (url, "IMPORT_COMPLETE")}
    events = [(e["LogicalResourceId"], e["ResourceStatus"]) for e in
              reversed(cfn.describe_stack_events(StackName=stack)["StackEvents"])]
    assert events[-5:] == [("Orders", "IMPORT_IN_PROGRESS"), ("Orders", "IMPORT_COMPLETE"),
                           ("Jobs", "IMPORT_IN_PROGRESS"), ("Jobs", "IMPORT_COMPLETE"), (stack, "IMPORT_COMPLETE")]

    # A resource already in a stack is not imported again; an import may not change anything else.
    other = f"other-{tag}"
    assert _error(_import, cfn, other, {"Resources": {"Orders": _table(table)}}, wanted[:1]) == \
        f"Resource of type 'AWS::DynamoDB::Table' with identifier '{table}' already exists in stack {stack}."
    grown = json.loads(json.dumps(template))
    grown["Resources"]["Logs"] = {"Type": "AWS::Logs::LogGroup", "DeletionPolicy": "Retain",
                                  "Properties": {"LogGroupName": group}}
    changed = json.loads(json.dumps(grown))
    changed["Resources"]["Jobs"]["Properties"]["VisibilityTimeout"] = 45
    assert _error(_import, cfn, stack, changed, [{"ResourceType": "AWS::Logs::LogGroup", "LogicalResourceId": "Logs",
                                                  "ResourceIdentifier": {"LogGroupName": group}}]).startswith(
        "You have modified resources [Jobs] in your template that are not being imported.")

    # Into the existing stack: the log group joins it.
    out = _import(cfn, stack, grown, [{"ResourceType": "AWS::Logs::LogGroup", "LogicalResourceId": "Logs",
                                       "ResourceIdentifier": {"LogGroupName": group}}], cs="more")
    cfn.execute_change_set(ChangeSetName=out["Id"])
    assert _settle(cfn, stack) == "IMPORT_COMPLETE"
    assert cfn.describe_stack_resource(StackName=stack, LogicalResourceId="Logs")["StackResourceDetail"][
        "PhysicalResourceId"] == group

    # An imported resource is the stack's: an update changes it, and reads its attributes.
    changed["Resources"]["Logs"] = grown["Resources"]["Logs"]
    cfn.update_stack(StackName=stack, TemplateBody=json.dumps(dict(changed, Outputs=arns)))
    assert _settle(cfn, stack) == "UPDATE_COMPLETE"
    outputs = {o["OutputKey"]: o["OutputValue"] for o in cfn.describe_stacks(StackName=stack)["Stacks"][0]["Outputs"]}
    assert outputs == {"TableArn": ddb.describe_table(TableName=table)["Table"]["TableArn"],
                       "QueueArn": sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])[
                           "Attributes"]["QueueArn"]}
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "45"}

    cfn.delete_stack(StackName=stack)
    assert _settle(cfn, described["StackId"]) == "DELETE_COMPLETE"
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "kept"}})["Item"] == {"pk": {"S": "kept"}}
    assert url in sqs.list_queues(QueueNamePrefix=queue)["QueueUrls"]
