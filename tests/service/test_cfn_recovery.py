"""A stack operation a stop interrupted: after the restart the stack is marked failed and can be deleted.

The interrupted state is made by stopping the server and setting a stored stack back to
CREATE_IN_PROGRESS, which is what a kill -9 during its CreateStack call leaves behind."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any


def test_an_interrupted_create_is_failed_at_start_and_deletable(server_factory: Any, tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    cfn = server.client("cloudformation")
    cfn.create_stack(StackName="cut", TemplateBody=json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}))
    url = cfn.describe_stack_resources(StackName="cut")["StackResources"][0]["PhysicalResourceId"]
    assert server.stop() == 0

    conn = sqlite3.connect(data / "onceflow.db")
    with conn:
        (doc,), = conn.execute("SELECT doc FROM cfn_stacks WHERE name='cut'").fetchall()
        stack = json.loads(doc)
        stack["StackStatus"] = "CREATE_IN_PROGRESS"
        conn.execute("UPDATE cfn_stacks SET doc=? WHERE name='cut'", (json.dumps(stack),))
    conn.close()

    server = server_factory(data)
    cfn = server.client("cloudformation")
    stack = cfn.describe_stacks(StackName="cut")["Stacks"][0]
    assert stack["StackStatus"] == "CREATE_FAILED"
    assert stack["StackStatusReason"] == "onceflow stopped while this stack operation ran"
    cfn.delete_stack(StackName="cut")
    assert cfn.describe_stacks(StackName=stack["StackId"])["Stacks"][0]["StackStatus"] == "DELETE_COMPLETE"
    queues = server.client("sqs").list_queues().get("QueueUrls", [])
    assert url not in queues
