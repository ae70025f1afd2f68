"""Map batching, tolerated failures, and Distributed Map reading from and writing to S3, through boto3."""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
DISTRIBUTED = {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-map-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


@pytest.fixture(scope="module")
def s3(aws: Callable[..., Any]) -> Any:
    return aws("s3")


def machine(sfn: Any, role: str, map_state: dict[str, Any]) -> str:
    definition = {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, **map_state}}}
    return sfn.create_state_machine(name=f"map-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                    roleArn=role)["stateMachineArn"]


def run(sfn: Any, sm: str, data: Any) -> dict[str, Any]:
    arn = sfn.start_execution(stateMachineArn=sm, input=json.dumps(data))["executionArn"]
    deadline = time.time() + 120
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def processor(body: dict[str, Any]) -> dict[str, Any]:
    return {"ProcessorConfig": DISTRIBUTED, **body}


# ---------------------------------------------------------------------- ItemBatcher
def test_batches_of_two_over_one_to_five(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemBatcher": {"MaxItemsPerBatch": 2}})
    d = run(sfn, sm, [1, 2, 3, 4, 5])
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [{"Items": [1, 2]}, {"Items": [3, 4]}, {"Items": [5]}]


def test_batch_input_and_the_size_from_a_path(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {
        "ItemProcessor": processor(PASS), "ItemsPath": "$.xs", "ItemSelector": {"v.$": "$$.Map.Item.Value"},
        "ItemBatcher": {"MaxItemsPerBatchPath": "$.size", "BatchInput": {"run.$": "$.run", "fixed": 1}}})
    d = run(sfn, sm, {"xs": [1, 2, 3, 4, 5], "size": 3, "run": "r1"})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [
        {"BatchInput": {"run": "r1", "fixed": 1}, "Items": [{"v": 1}, {"v": 2}, {"v": 3}]},
        {"BatchInput": {"run": "r1", "fixed": 1}, "Items": [{"v": 4}, {"v": 5}]}]


def test_batches_close_at_the_byte_limit(sfn: Any, role: str) -> None:
    items = ["x" * 10] * 6  # each "xxxxxxxxxx" is 12 bytes of JSON
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemBatcher": {"MaxInputBytesPerBatch": 40}})
    d = run(sfn, sm, items)
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert [len(b["Items"]) for b in out] == [2, 2, 2]  # {"Items":[a,b]} is 37 bytes; a third makes 50
    assert all(len(json.dumps(b, separators=(",", ":"))) <= 40 for b in out)


# ---------------------------------------------------------------------- tolerated failures
FAIL_ODD = {"StartAt": "C", "States": {
    "C": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericEquals": 1, "Next": "Bad"},
                                        {"Variable": "$.n", "NumericEquals": 3, "Next": "Bad"},
                                        {"Variable": "$.n", "NumericEquals": 5, "Next": "Bad"}],
          "Default": "Ok"},
    "Bad": {"Type": "Fail", "Error": "Odd", "Cause": "odd number"},
    "Ok": {"Type": "Pass", "End": True}}}


@pytest.mark.parametrize(("tolerance", "status"), [
    ({"ToleratedFailureCount": 3}, "SUCCEEDED"),
    ({"ToleratedFailureCount": 2}, "FAILED"),
    ({"ToleratedFailurePercentage": 60}, "SUCCEEDED"),
    ({"ToleratedFailurePercentage": 50}, "FAILED"),
    ({"ToleratedFailureCountPath": "$.tolerate"}, "SUCCEEDED"),
])
def test_failures_within_the_tolerance(sfn: Any, role: str, tolerance: dict[str, Any], status: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(FAIL_ODD), "ItemsPath": "$.xs",
                             "ItemSelector": {"n.$": "$$.Map.Item.Value"}, **tolerance})
    d = run(sfn, sm, {"xs": [1, 2, 3, 4, 5], "tolerate": 3})
    assert d["status"] == status, d
    if status == "SUCCEEDED":
        out = json.loads(d["output"])
        assert out[1] == {"n": 2} and out[3] == {"n": 4}
        assert out[0] == out[2] == out[4] == {"Error": "Odd", "Cause": "odd number"}
    else:
        assert d["error"] == "States.ExceedToleratedFailureThreshold"
        assert d["cause"] == "The specified tolerated failure threshold was exceeded"


def test_no_tolerance_fails_on_the_first_failure(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(FAIL_ODD), "ItemSelector": {"n.$": "$$.Map.Item.Value"}})
    d = run(sfn, sm, [2, 3])
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "Odd", "odd number")
