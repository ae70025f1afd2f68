"""ContinueUpdateRollback: an update fails, and putting one of its resources back fails too (a
fault on the queue's SetQueueAttributes), so the stack stops at UPDATE_ROLLBACK_FAILED with the
resource UPDATE_FAILED. Continuing retries that resource; continuing with ResourcesToSkip takes it
as it is and ends at UPDATE_ROLLBACK_COMPLETE, as AWS does. Bad calls get AWS's errors."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

# The update's SetQueueAttributes passes; the rollback's, and the first continuation's, fail.
RULES = {"rules": [{"service": "sqs", "operation": "SetQueueAttributes", "skip": 1, "times": 2,
                    "error": {"code": "OverLimit", "statusCode": 403, "message": "Slow down"}}]}
QUEUE = {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 30}}


def _settle(cfn: Any, name: str) -> str:
    for _ in range(600):
        status = str(cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"])
        if not status.endswith("_IN_PROGRESS"):
            return status
        time.sleep(0.05)
    raise AssertionError(f"{name} still {status}")


def _error(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as err:
        call(**kwargs)
    return err.value.response["Error"]["Code"], err.value.response["Error"]["Message"]


def test_a_failed_update_rollback_is_continued_and_can_skip_a_resource(server_factory: Any, tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(RULES))
    server = server_factory(extra_args=("--faults", str(rules)))
    cfn, sqs = server.client("cloudformation"), server.client("sqs")
    stack_id = cfn.create_stack(StackName="stuck", TemplateBody=json.dumps({"Resources": {"Jobs": QUEUE}}))[
        "StackId"]
    assert _settle(cfn, "stuck") == "CREATE_COMPLETE"
    url = cfn.describe_stack_resource(StackName="stuck", LogicalResourceId="Jobs")["StackResourceDetail"][
        "PhysicalResourceId"]
    assert _error(cfn.continue_update_rollback, StackName="stuck") == (
        "ValidationError", f"Stack:{stack_id} is in CREATE_COMPLETE state and can not continue update rollback.")

    cfn.update_stack(StackName="stuck", TemplateBody=json.dumps({"Resources": {
        "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 60}},
        "Nope": {"Type": "AWS::EC2::VPC", "DependsOn": "Jobs", "Properties": {"CidrBlock": "10.0.0.0/16"}}}}))
    assert _settle(cfn, "stuck") == "UPDATE_ROLLBACK_FAILED"
    stack = cfn.describe_stacks(StackName="stuck")["Stacks"][0]
    assert stack["StackStatusReason"] == "The following resource(s) failed to update: [Jobs]. "
    jobs = cfn.describe_stack_resource(StackName="stuck", LogicalResourceId="Jobs")["StackResourceDetail"]
    assert jobs["ResourceStatus"] == "UPDATE_FAILED"
    assert jobs["ResourceStatusReason"] == \
        'Resource handler returned message: "Slow down" (HandlerErrorCode: InvalidRequest)'
    code, message = _error(cfn.update_stack, StackName="stuck", UsePreviousTemplate=True)
    assert (code, message) == ("ValidationError", f"Stack:{stack_id} is in UPDATE_ROLLBACK_FAILED state and can "
                               "not be updated.")
    assert _error(cfn.continue_update_rollback, StackName="stuck", ResourcesToSkip=["Nope"])[0] == \
        "ValidationError"

    cfn.continue_update_rollback(StackName="stuck")  # the fault fires once more: it stops again
    assert _settle(cfn, "stuck") == "UPDATE_ROLLBACK_FAILED"
    cfn.continue_update_rollback(StackName="stuck", ResourcesToSkip=["Jobs"])
    assert _settle(cfn, "stuck") == "UPDATE_ROLLBACK_COMPLETE"
    resources = {r["LogicalResourceId"]: r for r in cfn.describe_stack_resources(StackName="stuck")[
        "StackResources"]}
    assert sorted(resources) == ["Jobs"] and resources["Jobs"]["ResourceStatus"] == "UPDATE_COMPLETE"
    assert resources["Jobs"]["PhysicalResourceId"] == url
    # Skipped: the queue is left as the update made it, the stack holds the template it rolled back to.
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "60"}
    assert json.loads(json.dumps(cfn.get_template(StackName="stuck")["TemplateBody"])) == {"Resources": {"Jobs": QUEUE}}
    events = [(e["LogicalResourceId"], e["ResourceStatus"], e.get("ResourceStatusReason"))
              for e in cfn.describe_stack_events(StackName="stuck")["StackEvents"]]
    assert events[0] == ("stuck", "UPDATE_ROLLBACK_COMPLETE", None)
    assert events.count(("stuck", "UPDATE_ROLLBACK_FAILED",
                         "The following resource(s) failed to update: [Jobs]. ")) == 2

    # The stack can be updated again: this time the change holds.
    cfn.update_stack(StackName="stuck", TemplateBody=json.dumps({"Resources": {
        "Jobs": {"Type": "AWS::SQS::Queue", "Properties": {"VisibilityTimeout": 90}}}}))
    assert _settle(cfn, "stuck") == "UPDATE_COMPLETE"
    assert sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"] == {
        "VisibilityTimeout": "90"}
