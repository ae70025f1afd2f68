"""Stack operations run in the background, as on AWS: with `--stack-answer-within 0` CreateStack
answers at once, DescribeStacks shows CREATE_IN_PROGRESS while a resource is being made (fault
injection slows that resource's create call), a delete then is refused with AWS's message, and a
waiter sees the end. A stop (kill -9) in the middle of a create or an update: the next start rolls it back,
deleting what it had made (ROLLBACK_COMPLETE, the stop named in the events)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

INTERRUPTED = "onceflow stopped while this stack operation ran"
RULES = {"rules": [
    # The topic of stack "slow" takes 4 s to make: long enough to be seen in progress.
    {"service": "sns", "operation": "CreateTopic", "latency_ms": 4000, "times": 1},
    # The second queue of stack "cut" never comes: the server is killed while it is being made.
    {"service": "sqs", "operation": "CreateQueue", "latency_ms": 600000, "skip": 1, "times": 1},
]}


def _resources(cfn: Any, name: str) -> dict[str, dict[str, Any]]:
    return {r["LogicalResourceId"]: r for r in cfn.describe_stack_resources(StackName=name)["StackResources"]}


def test_operations_run_in_the_background_and_a_cut_create_is_rolled_back_at_start(
        server_factory: Any, tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES))
    data = tmp_path / "data"
    server = server_factory(data, extra_args=("--stack-answer-within", "0", "--faults", str(rules)))
    cfn = server.client("cloudformation")

    stack_id = cfn.create_stack(StackName="slow", TemplateBody=json.dumps(
        {"Resources": {"T": {"Type": "AWS::SNS::Topic"}}}))["StackId"]
    assert cfn.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"] == "CREATE_IN_PROGRESS"
    assert _resources(cfn, "slow")["T"]["ResourceStatus"] == "CREATE_IN_PROGRESS"
    with pytest.raises(ClientError) as err:
        cfn.delete_stack(StackName="slow")
    assert err.value.response["Error"]["Message"] == \
        f"Stack [{stack_id}] cannot be deleted while in status CREATE_IN_PROGRESS"
    cfn.get_waiter("stack_create_complete").wait(StackName="slow", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    assert _resources(cfn, "slow")["T"]["ResourceStatus"] == "CREATE_COMPLETE"

    cfn.create_stack(StackName="cut", TemplateBody=json.dumps({"Resources": {
        "First": {"Type": "AWS::SQS::Queue"}, "Second": {"Type": "AWS::SQS::Queue", "DependsOn": "First"}}}))
    for _ in range(600):  # until the first queue is made and the second is being made
        made = _resources(cfn, "cut")
        if made.get("Second", {}).get("ResourceStatus") == "CREATE_IN_PROGRESS":
            break
        time.sleep(0.05)
    assert made["First"]["ResourceStatus"] == "CREATE_COMPLETE", made
    first_url = made["First"]["PhysicalResourceId"]
    assert first_url in server.client("sqs").list_queues()["QueueUrls"]
    server.kill()

    server = server_factory(data)
    cfn = server.client("cloudformation")
    stack = cfn.describe_stacks(StackName="cut")["Stacks"][0]
    assert stack["StackStatus"] == "ROLLBACK_COMPLETE"
    events = [(e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason"))
              for e in reversed(cfn.describe_stack_events(StackName="cut")["StackEvents"])]
    assert ("cut", "ROLLBACK_IN_PROGRESS", INTERRUPTED) in events
    assert events[-1] == ("cut", "ROLLBACK_COMPLETE", None)
    assert ("First", "DELETE_COMPLETE", None) in events
    assert first_url not in server.client("sqs").list_queues().get("QueueUrls", [])
    cfn.delete_stack(StackName="cut")
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack["StackId"], WaiterConfig={"Delay": 1})
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"


def test_a_cut_change_set_update_is_rolled_back_at_start(server_factory: Any, tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"  # the update's new queue never comes: the server is killed meanwhile
    rules.write_text(json.dumps({"rules": [{"service": "sqs", "operation": "CreateQueue", "latency_ms": 600000,
                                            "skip": 1, "times": 1}]}))
    data = tmp_path / "data"
    server = server_factory(data, extra_args=("--stack-answer-within", "0", "--faults", str(rules)))
    cfn, sqs = server.client("cloudformation"), server.client("sqs")
    first = {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}}
    cfn.create_stack(StackName="upd", TemplateBody=json.dumps({"Resources": {"First": first}}))
    cfn.get_waiter("stack_create_complete").wait(StackName="upd", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    url = _resources(cfn, "upd")["First"]["PhysicalResourceId"]
    cfn.create_change_set(StackName="upd", ChangeSetName="grow", TemplateBody=json.dumps({"Resources": {
        "First": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
        "Second": {"Type": "AWS::SQS::Queue", "DependsOn": "First"}}}))
    cfn.get_waiter("change_set_create_complete").wait(StackName="upd", ChangeSetName="grow",
                                                      WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    cfn.execute_change_set(StackName="upd", ChangeSetName="grow")
    for _ in range(600):
        made = _resources(cfn, "upd")
        if made.get("Second", {}).get("ResourceStatus") == "CREATE_IN_PROGRESS":
            break
        time.sleep(0.05)
    assert made["First"]["ResourceStatus"] == "UPDATE_COMPLETE", made
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "60"}
    server.kill()

    server = server_factory(data)
    cfn, sqs = server.client("cloudformation"), server.client("sqs")
    stack = cfn.describe_stacks(StackName="upd")["Stacks"][0]
    assert stack["StackStatus"] == "UPDATE_ROLLBACK_COMPLETE"
    assert cfn.describe_change_set(StackName="upd", ChangeSetName="grow")["ExecutionStatus"] == "EXECUTE_FAILED"
    events = [(e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason"))
              for e in cfn.describe_stack_events(StackName="upd")["StackEvents"]]
    assert ("upd", "UPDATE_ROLLBACK_IN_PROGRESS", INTERRUPTED) in events
    assert sorted(_resources(cfn, "upd")) == ["First"]
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "30"}
    assert json.loads(json.dumps(cfn.get_template(StackName="upd")["TemplateBody"]))["Resources"] == {
        "First": first}



def test_a_cut_cleanup_still_deletes_the_replaced_copy_at_start(server_factory: Any, tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"  # the cleanup's delete of the replaced queue never ends: killed meanwhile
    rules.write_text(json.dumps({"rules": [{"service": "sqs", "operation": "DeleteQueue", "latency_ms": 600000,
                                            "times": 1}]}))
    data = tmp_path / "data"
    server = server_factory(data, extra_args=("--stack-answer-within", "0", "--faults", str(rules)))
    cfn, sqs = server.client("cloudformation"), server.client("sqs")
    cfn.create_stack(StackName="swap", TemplateBody=json.dumps({"Resources": {
        "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "swap-old"}}}}))
    cfn.get_waiter("stack_create_complete").wait(StackName="swap", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    old_url = _resources(cfn, "swap")["Jobs"]["PhysicalResourceId"]
    cfn.update_stack(StackName="swap", TemplateBody=json.dumps({"Resources": {  # a new name replaces the queue
        "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "swap-new"}}}}))
    for _ in range(600):
        status = cfn.describe_stacks(StackName="swap")["Stacks"][0]["StackStatus"]
        if status == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS":
            break
        time.sleep(0.05)
    assert status == "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS"
    new_url = _resources(cfn, "swap")["Jobs"]["PhysicalResourceId"]
    assert new_url != old_url and {old_url, new_url} <= set(sqs.list_queues()["QueueUrls"])
    server.kill()

    server = server_factory(data)
    cfn, sqs = server.client("cloudformation"), server.client("sqs")
    assert cfn.describe_stacks(StackName="swap")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert _resources(cfn, "swap")["Jobs"]["PhysicalResourceId"] == new_url
    names = [u.rsplit("/", 1)[-1] for u in sqs.list_queues().get("QueueUrls", [])]  # the port is the new server's
    assert "swap-new" in names and "swap-old" not in names


def test_independent_resources_are_made_and_deleted_at_once(server_factory: Any, tmp_path: Path) -> None:
    """Two queues that do not depend on each other are both in progress before either is made
    (each CreateQueue is slowed); the third, which depends on both, starts after both. Deleting,
    the third goes first, then the two together (their DeleteQueue slowed)."""
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [
        {"service": "sqs", "operation": "CreateQueue", "latency_ms": 1500, "times": 2},
        {"service": "sqs", "operation": "DeleteQueue", "latency_ms": 1500, "skip": 1, "times": 2}]}))
    server = server_factory(extra_args=("--faults", str(rules)))
    cfn = server.client("cloudformation")
    cfn.create_stack(StackName="wide", TemplateBody=json.dumps({"Resources": {
        "A": {"Type": "AWS::SQS::Queue"}, "B": {"Type": "AWS::SQS::Queue"},
        "C": {"Type": "AWS::SQS::Queue", "DependsOn": ["A", "B"]}}}))
    cfn.get_waiter("stack_create_complete").wait(StackName="wide", WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    events = [(e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason"))
              for e in reversed(cfn.describe_stack_events(StackName="wide")["StackEvents"])]
    first_done = min(events.index(("A", "CREATE_COMPLETE", None)), events.index(("B", "CREATE_COMPLETE", None)))
    assert max(events.index(("A", "CREATE_IN_PROGRESS", None)), events.index(("B", "CREATE_IN_PROGRESS", None))) \
        < first_done
    assert events.index(("C", "CREATE_IN_PROGRESS", None)) > max(events.index(("A", "CREATE_COMPLETE", None)),
                                                                  events.index(("B", "CREATE_COMPLETE", None)))

    stack_id = cfn.describe_stacks(StackName="wide")["Stacks"][0]["StackId"]
    cfn.delete_stack(StackName="wide")
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack_id, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    events = [(e["LogicalResourceId"], e["ResourceStatus"])
              for e in reversed(cfn.describe_stack_events(StackName=stack_id)["StackEvents"])]
    events = events[events.index(("wide", "DELETE_IN_PROGRESS")):]
    starts = [events.index((n, "DELETE_IN_PROGRESS")) for n in "AB"]
    ends = [events.index((n, "DELETE_COMPLETE")) for n in "AB"]
    assert events.index(("C", "DELETE_COMPLETE")) < min(starts) and max(starts) < min(ends)
