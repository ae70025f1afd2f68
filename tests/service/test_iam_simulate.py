"""The evaluator through IAM's own simulation API (boto3 and the AWS CLI)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

WORKER = "arn:aws:lambda:us-east-1:000000000000:function:labex-ev04-worker"
INVOKE = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": WORKER}]}
)
TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)


def decisions(out: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(r["EvalActionName"], r["EvalResourceName"], r["EvalDecision"]) for r in out["EvaluationResults"]]


def test_simulate_custom_policy(aws: Callable[..., Any]) -> None:
    deny = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "lambda:*", "Resource": WORKER + ":*"}]}
    )
    out = aws("iam").simulate_custom_policy(
        PolicyInputList=[INVOKE, deny],
        ActionNames=["lambda:InvokeFunction", "lambda:GetFunction"],
        ResourceArns=[WORKER, WORKER + ":1"],
    )
    assert decisions(out) == [
        ("lambda:InvokeFunction", WORKER, "allowed"),
        ("lambda:InvokeFunction", WORKER + ":1", "explicitDeny"),
        ("lambda:GetFunction", WORKER, "implicitDeny"),
        ("lambda:GetFunction", WORKER + ":1", "explicitDeny"),
    ]


def test_simulate_custom_policy_with_context(aws: Callable[..., Any]) -> None:
    conditional = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": "dynamodb:GetItem",
                    "Resource": "*",
                    "Condition": {"StringEquals": {"aws:RequestedRegion": "eu-west-1"}},
                }
            ],
        }
    )
    iam = aws("iam")
    entry = {"ContextKeyName": "aws:RequestedRegion", "ContextKeyValues": ["eu-west-1"], "ContextKeyType": "string"}
    yes = iam.simulate_custom_policy(
        PolicyInputList=[conditional], ActionNames=["dynamodb:GetItem"], ContextEntries=[entry]
    )
    assert decisions(yes) == [("dynamodb:GetItem", "*", "allowed")]
    no = iam.simulate_custom_policy(PolicyInputList=[conditional], ActionNames=["dynamodb:GetItem"])
    assert decisions(no) == [("dynamodb:GetItem", "*", "implicitDeny")]


def test_simulate_principal_policy_follows_the_role(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    name = f"sim-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="InvokeWorker", PolicyDocument=INVOKE)
    ask = {"PolicySourceArn": arn, "ActionNames": ["lambda:InvokeFunction"], "ResourceArns": [WORKER]}
    assert decisions(iam.simulate_principal_policy(**ask)) == [("lambda:InvokeFunction", WORKER, "allowed")]
    iam.delete_role_policy(RoleName=name, PolicyName="InvokeWorker")
    assert decisions(iam.simulate_principal_policy(**ask)) == [("lambda:InvokeFunction", WORKER, "implicitDeny")]
    assert iam.list_instance_profiles_for_role(RoleName=name)["InstanceProfiles"] == []


def test_cli_simulate_custom_policy(aws_cli: Callable[..., Any], tmp_path: Any) -> None:
    # CLI v1 reads a list parameter from a file as a JSON list (a bare object is split into characters).
    (tmp_path / "policies.json").write_text(json.dumps([INVOKE]))
    out = aws_cli(
        "iam",
        "simulate-custom-policy",
        "--policy-input-list",
        "file://policies.json",
        "--action-names",
        "lambda:InvokeFunction",
        "--resource-arns",
        WORKER,
        "--query",
        "EvaluationResults[].EvalDecision",
        "--output",
        "text",
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "allowed\n"
