"""Lab 000/001 (retries and re-executions must not repeat a business write; both documents carry the
same commands: examples/orders/labs/idempotency.sh), verbatim through the AWS CLI against onceflow,
asserting every outcome the lab text names."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from scenarios.conftest import LabEnvironment
from scenarios.labs import IDEMPOTENCY_LAB, load_lab, run_lab

# A harness probe inserted after `zip -j`: the CodeSha256 Lambda must report for that zip.
ZIP_SHA_PROBE = ("python3 -c \"import base64,hashlib;print(base64.b64encode(hashlib.sha256("
                 "open('function.zip','rb').read()).digest()).decode())\"")


def with_probe(commands: list[str], after: str, probe: str) -> list[str]:
    i = next(n for n, c in enumerate(commands) if c.startswith(after))
    return [*commands[: i + 1], probe, *commands[i + 1 :]]


@pytest.mark.slow
def test_idempotency_lab_verbatim(lab_environment: Callable[[str], LabEnvironment]) -> None:
    env = lab_environment("labex-ev05")
    commands = with_probe(load_lab(IDEMPOTENCY_LAB), "zip -j function.zip", ZIP_SHA_PROBE)
    run = run_lab(commands, env.project, env.env)
    transcript = run.transcript()
    assert "An error occurred" not in transcript, transcript
    # The worker's own log lines carry Lambda's tracebacks of the failed attempts; nothing else may.
    assert not any("Traceback" in out for cmd, out in zip(run.commands, run.outputs, strict=True)
                   if "filter-log-events" not in cmd), transcript

    # Deploy: the CodeSha256 printed is base64(sha256(zip bytes)).
    assert run.output("update-function-code").strip() == run.output(ZIP_SHA_PROBE).strip()
    config = json.loads(run.output("--query '{Name:FunctionName,Role:Role,Runtime:Runtime,Timeout:Timeout}'"))
    assert config == {"Name": "labex-ev05-worker", "Role": env.provisioned["worker_role_arn"],
                      "Runtime": "python3.12", "Timeout": 30}
    assert json.loads(run.output("aws stepfunctions list-state-machines", 0)) == {"stateMachines": []}

    # The workflow role and its one policy, decoded by the CLI.
    policy = json.loads(run.output("aws iam get-role-policy"))
    assert policy["RoleName"] == "labex-ev05-workflow-role"
    assert policy["PolicyName"] == "InvokeWorker"
    assert policy["PolicyDocument"]["Statement"] == [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": env.provisioned["worker_arn"]}
    ]
    described = json.loads(run.output("aws stepfunctions describe-state-machine"))
    assert described["Name"] == "labex-ev05-orders"
    assert json.loads(described["Definition"])["States"]["StoreOrder"]["Parameters"]["FunctionName"] == \
        "labex-ev05-worker"

    # First execution: a write, a lost result, a retry that finds the duplicate, the summary.
    first = json.loads(run.output('--execution-arn "$FIRST_ARN" \\\n  --query \'{Status'))
    assert first["Status"] == "SUCCEEDED"
    assert json.loads(first["Output"]) == {"id": "protected-order", "total_cents": 1100, "completed": True}
    tasks = json.loads(run.output('get-execution-history \\\n  --execution-arn "$FIRST_ARN"'))
    assert [(t["Type"], t["Error"]) for t in tasks] == [
        ("TaskFailed", "TransientOrderError"), ("TaskSucceeded", None), ("TaskSucceeded", None)]
    stored = json.loads(tasks[1]["Output"])["Payload"]
    assert stored == {"id": "protected-order", "quantity": 4, "total_cents": 1100, "duplicate": True}
    item = json.loads(run.output('--key \'{"id":{"S":"protected-order"}}\' \\\n  --query Item'))
    assert item == {"id": {"S": "protected-order"}, "quantity": {"N": "4"}, "total_cents": {"N": "1100"}}

    # The same order under a new execution name: a duplicate, the original summary.
    repeat = json.loads(run.output('--execution-arn "$REPEAT_ARN" \\\n  --query \'{Status'))
    assert repeat["Status"] == "SUCCEEDED"
    assert json.loads(repeat["Output"]) == {"id": "protected-order", "total_cents": 1100, "completed": True}
    outputs = json.loads(run.output('--execution-arn "$REPEAT_ARN" \\\n  --query \'events[?type==`TaskSucceeded`]'))
    assert json.loads(outputs[0])["Payload"]["duplicate"] is True

    # A different order still succeeds: 1/350.
    new = json.loads(run.output('--execution-arn "$NEW_ARN" \\\n  --query \'{Status'))
    assert new["Status"] == "SUCCEEDED"
    assert json.loads(new["Output"]) == {"id": "different-order", "total_cents": 350, "completed": True}
    items = json.loads(run.output("aws dynamodb scan --table-name labex-ev05-orders --query Items", 0))
    assert sorted(i["id"]["S"] for i in items) == ["different-order", "protected-order"]
    messages = json.loads(run.output("aws logs filter-log-events"))
    assert sum(m.startswith("START RequestId: ") for m in messages) == 7
    assert sum(m.startswith("WORKFLOW ") for m in messages) == 7
    assert any('"duplicate": true' in m for m in messages if m.startswith("RESULT "))

    # Cleanup leaves only the prepared resources.
    assert json.loads(run.output("aws stepfunctions list-state-machines", 1)) == {"stateMachines": []}
    assert json.loads(run.output("aws iam list-roles")) == ["labex-ev05-worker-role"]
    assert json.loads(run.output("aws dynamodb scan --table-name labex-ev05-orders --query Items", 1)) == []
    assert json.loads(run.output("aws logs describe-log-groups")) == []
    reference = json.loads(run.output("aws dynamodb scan --table-name labex-ev05-reference"))
    assert reference == [{"id": {"S": "pricing"}, "unit_cents": {"N": "250"}, "fee_cents": {"N": "100"}}]
    assert not any(env.project.iterdir()), "the lab's rm -f leaves the project folder empty"
