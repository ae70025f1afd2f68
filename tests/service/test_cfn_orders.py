"""examples/orders/template.yaml, the seed system as a SAM template: `aws cloudformation package` +
`deploy` against a real server, the idempotency lab's three executions through the deployed state
machine, then delete-stack. (That the template passes cfn-lint: tests/unit/cloudformation.)"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

import onceflow.examples.orders as orders

ORDERS = Path(orders.__file__).parent
TEMPLATE = ORDERS / "template.yaml"


class _Loader(yaml.SafeLoader):
    """YAML with CloudFormation's short tags kept as {tag: value} (enough to read the definition)."""


_Loader.add_multi_constructor("!", lambda loader, tag, node: {tag: loader.construct_scalar(node)} if isinstance(
    node, yaml.ScalarNode) else {tag: loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else
                                 loader.construct_mapping(node)})


def test_the_template_runs_the_labs_workflow_definition() -> None:
    template = yaml.load(TEMPLATE.read_text(), Loader=_Loader)
    lab = (ORDERS / "workflow-template.json").read_text().replace("WORKER_NAME", "${WorkerArn}")
    assert template["Resources"]["Workflow"]["Properties"]["Definition"] == json.loads(lab)


def _finish(sfn: Any, arn: str) -> dict[str, Any]:
    for _ in range(600):  # the Step Functions model has no execution waiter: poll
        run = sfn.describe_execution(executionArn=arn)
        if run["status"] != "RUNNING":
            return dict(run)
        time.sleep(0.05)
    raise AssertionError(f"{arn} still running")


def test_deploy_the_orders_template_run_three_orders_and_delete(aws: Any, aws_cli: Any, tmp_path: Path) -> None:
    prefix, bucket = f"ord{uuid.uuid4().hex[:6]}", f"orders-{uuid.uuid4().hex[:10]}"
    aws("s3").create_bucket(Bucket=bucket)
    packaged = tmp_path / "packaged.yaml"
    done = aws_cli("cloudformation", "package", "--template-file", str(TEMPLATE), "--s3-bucket", bucket,
                   "--output-template-file", str(packaged))
    assert done.returncode == 0, done.stderr
    done = aws_cli("cloudformation", "deploy", "--template-file", str(packaged), "--stack-name", prefix,
                   "--capabilities", "CAPABILITY_IAM", "--parameter-overrides", f"Prefix={prefix}")
    cfn = aws("cloudformation")
    assert done.returncode == 0, [e.get("ResourceStatusReason") for e in cfn.describe_stack_events(
        StackName=prefix)["StackEvents"]]
    stack = cfn.describe_stacks(StackName=prefix)["Stacks"][0]
    out = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
    assert out["WorkerName"] == f"{prefix}-worker" and out["OrdersTable"] == f"{prefix}-orders"
    assert out["WorkflowArn"].endswith(f":stateMachine:{prefix}-orders-workflow")

    sfn = aws("stepfunctions")
    runs = [{"id": "protected-order", "quantity": 4, "mode": "after-write"},  # the write lands, its result is lost
            {"id": "protected-order", "quantity": 4, "mode": "after-write"},  # the same order again
            {"id": "different-order", "quantity": 1, "mode": "normal"}]
    outputs = []
    for i, order in enumerate(runs):
        arn = sfn.start_execution(stateMachineArn=out["WorkflowArn"], name=f"run-{i}",
                                  input=json.dumps(order))["executionArn"]
        run = _finish(sfn, arn)
        assert run["status"] == "SUCCEEDED", run
        outputs.append(json.loads(run["output"]))
    assert outputs == [{"id": "protected-order", "total_cents": 1100, "completed": True},
                       {"id": "protected-order", "total_cents": 1100, "completed": True},
                       {"id": "different-order", "total_cents": 350, "completed": True}]
    items = aws("dynamodb").scan(TableName=out["OrdersTable"])["Items"]
    assert sorted((i["id"]["S"], i["total_cents"]["N"]) for i in items) == [("different-order", "350"),
                                                                           ("protected-order", "1100")]

    done = aws_cli("cloudformation", "delete-stack", "--stack-name", prefix)
    assert done.returncode == 0, done.stderr
    done = aws_cli("cloudformation", "wait", "stack-delete-complete", "--stack-name", stack["StackId"])
    assert done.returncode == 0, done.stderr
    assert f"{prefix}-orders" not in aws("dynamodb").list_tables()["TableNames"]
