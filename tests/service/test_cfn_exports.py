"""Exports and Fn::ImportValue across stacks, DeletionPolicy Retain, and change sets listed and deleted."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _name() -> str:
    return f"x{uuid.uuid4().hex[:8]}"


def test_an_export_is_imported_and_protected_while_in_use(aws: Any) -> None:
    cfn = aws("cloudformation")
    producer, consumer, export = _name(), _name(), f"exp-{uuid.uuid4().hex[:6]}"
    cfn.create_stack(StackName=producer, TemplateBody=json.dumps({
        "Resources": {"Q": {"Type": "AWS::SQS::Queue"}},
        "Outputs": {"Arn": {"Value": {"Fn::GetAtt": ["Q", "Arn"]}, "Export": {"Name": export}}}}))
    arn = cfn.describe_stacks(StackName=producer)["Stacks"][0]["Outputs"][0]["OutputValue"]
    exports = {e["Name"]: e for e in cfn.list_exports()["Exports"]}
    assert exports[export]["Value"] == arn

    cfn.create_stack(StackName=consumer, TemplateBody=json.dumps({
        "Resources": {"T": {"Type": "AWS::SNS::Topic", "Properties": {"DisplayName": {"Fn::ImportValue": export}}}},
        "Outputs": {"Got": {"Value": {"Fn::ImportValue": export}}}}))
    stack = cfn.describe_stacks(StackName=consumer)["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_COMPLETE" and stack["Outputs"][0]["OutputValue"] == arn
    assert cfn.list_imports(ExportName=export)["Imports"] == [consumer]

    # The same export name from another stack fails that stack.
    clash = _name()
    cfn.create_stack(StackName=clash, TemplateBody=json.dumps({
        "Resources": {"Q": {"Type": "AWS::SQS::Queue"}},
        "Outputs": {"Arn": {"Value": "x", "Export": {"Name": export}}}}))
    events = cfn.describe_stack_events(StackName=clash)["StackEvents"]
    reason = next(e["ResourceStatusReason"] for e in events if e["ResourceStatus"] == "ROLLBACK_IN_PROGRESS")
    assert reason == f"Export with name {export} is already exported by stack {producer}"

    cfn.delete_stack(StackName=producer)
    stack = cfn.describe_stacks(StackName=producer)["Stacks"][0]
    assert stack["StackStatus"] == "DELETE_FAILED"
    assert stack["StackStatusReason"] == f"Export {export} cannot be deleted as it is in use by {consumer}"
    cfn.delete_stack(StackName=consumer)
    cfn.delete_stack(StackName=producer)
    cfn.delete_stack(StackName=clash)
    with pytest.raises(ClientError):
        cfn.describe_stacks(StackName=producer)

    missing = _name()
    cfn.create_stack(StackName=missing, TemplateBody=json.dumps({"Resources": {"T": {
        "Type": "AWS::SNS::Topic", "Properties": {"DisplayName": {"Fn::ImportValue": "never-exported"}}}}}))
    events = cfn.describe_stack_events(StackName=missing)["StackEvents"]
    assert next(e["ResourceStatusReason"] for e in events if e["ResourceStatus"] == "CREATE_FAILED") == \
        "No export named never-exported found"
    cfn.delete_stack(StackName=missing)


def test_deletion_policy_retain_keeps_the_resource(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    stack_id = cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": {
        "Kept": {"Type": "AWS::SQS::Queue", "DeletionPolicy": "Retain"},
        "Gone": {"Type": "AWS::SQS::Queue"}}}))["StackId"]
    res = {r["LogicalResourceId"]: r["PhysicalResourceId"]
           for r in cfn.list_stack_resources(StackName=name)["StackResourceSummaries"]}
    cfn.delete_stack(StackName=name)
    aws("sqs").get_queue_attributes(QueueUrl=res["Kept"])
    with pytest.raises(ClientError):
        aws("sqs").get_queue_attributes(QueueUrl=res["Gone"])
    summary = next(s for s in cfn.list_stacks()["StackSummaries"] if s["StackId"] == stack_id)
    assert summary["StackStatus"] == "DELETE_COMPLETE" and "DeletionTime" in summary
    events = cfn.describe_stack_events(StackName=stack_id)["StackEvents"]
    assert any(e["LogicalResourceId"] == "Kept" and e["ResourceStatus"] == "DELETE_SKIPPED" for e in events)
    aws("sqs").delete_queue(QueueUrl=res["Kept"])


def test_change_sets_are_listed_described_and_deleted(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    body = json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}})
    made = cfn.create_change_set(StackName=name, ChangeSetName="first", TemplateBody=body, ChangeSetType="CREATE")
    stack = cfn.describe_stacks(StackName=name)["Stacks"][0]
    assert stack["StackStatus"] == "REVIEW_IN_PROGRESS" and stack["StackId"] == made["StackId"]
    cs = cfn.describe_change_set(ChangeSetName="first", StackName=name)
    assert cs["Changes"] == [{"Type": "Resource", "ResourceChange": {
        "Action": "Add", "LogicalResourceId": "Q", "ResourceType": "AWS::SQS::Queue", "Scope": [], "Details": []}}]
    summaries = cfn.list_change_sets(StackName=name)["Summaries"]
    assert [(s["ChangeSetName"], s["Status"], s["ExecutionStatus"]) for s in summaries] == [
        ("first", "CREATE_COMPLETE", "AVAILABLE")]
    cfn.delete_change_set(ChangeSetName=made["Id"])
    with pytest.raises(ClientError) as err:
        cfn.describe_change_set(ChangeSetName=made["Id"])
    assert err.value.response["Error"]["Code"] == "ChangeSetNotFound"
    assert err.value.response["Error"]["Message"] == f"ChangeSet [{made['Id']}] does not exist"
    cfn.delete_stack(StackName=name)


def test_resources_are_found_by_their_physical_id(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}))
    url = cfn.describe_stack_resource(StackName=name, LogicalResourceId="Q")["StackResourceDetail"][
        "PhysicalResourceId"]
    found = cfn.describe_stack_resources(PhysicalResourceId=url)["StackResources"]
    assert [(r["StackName"], r["LogicalResourceId"]) for r in found] == [(name, "Q")]
    with pytest.raises(ClientError) as err:
        cfn.describe_stack_resources()
    assert err.value.response["Error"]["Message"] == "Either StackName or PhysicalResourceId must be specified."
    with pytest.raises(ClientError) as err:
        cfn.describe_stack_resource(StackName=name, LogicalResourceId="Nope")
    assert err.value.response["Error"]["Message"] == f"Resource Nope does not exist for stack {name}"
    cfn.delete_stack(StackName=name)


def test_termination_protection_refuses_the_delete(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    cfn.create_stack(StackName=name, TemplateBody=json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}),
                     EnableTerminationProtection=True)
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["EnableTerminationProtection"] is True
    with pytest.raises(ClientError) as err:
        cfn.delete_stack(StackName=name)
    assert err.value.response["Error"]["Message"] == (f"Stack [{name}] cannot be deleted while "
                                                      "TerminationProtection is enabled")
    assert cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    cfn.update_termination_protection(StackName=name, EnableTerminationProtection=False)
    cfn.delete_stack(StackName=name)
    with pytest.raises(ClientError):
        cfn.describe_stacks(StackName=name)


def test_a_broken_condition_is_refused_before_anything_is_made(aws: Any) -> None:
    cfn = aws("cloudformation")
    name = _name()
    body = {"Conditions": {"A": {"Condition": "Missing"}},
            "Resources": {"Q": {"Type": "AWS::SQS::Queue", "Condition": "A"}}}
    with pytest.raises(ClientError) as err:
        cfn.create_stack(StackName=name, TemplateBody=json.dumps(body))
    assert err.value.response["Error"]["Message"] == ("Template format error: Unresolved condition dependencies "
                                                      "[Missing] in the Conditions block of the template")
    with pytest.raises(ClientError):
        cfn.describe_stacks(StackName=name)
