"""The Step Functions workloads the benches share (bench_sfn.py over HTTP, bench_sfn_counts.py under
callgrind), and onceflow's stack built in this process on a fresh data folder, called without HTTP."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHAIN = {"StartAt": "P0", "States": {
    **{f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"} for i in range(99)}, "P99": {"Type": "Pass", "End": True}}}
CHOICE = {"StartAt": "C", "States": {
    "C": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericGreaterThan": 0, "Next": "P1"}], "Default": "P2"},
    "P1": {"Type": "Pass", "Next": "P2"},
    "P2": {"Type": "Pass", "End": True}}}

Call = Callable[[str, str, dict[str, Any]], Any]


def in_process(prefix: str) -> tuple[Any, Call, str]:
    """A started stack on a durable store in a new folder; a `call(service, operation, params)` as the
    account root; and the ARN of a role Step Functions may assume."""
    from onceflow.config import Settings
    from onceflow.context import Principal, RequestContext
    from onceflow.server import build_stack

    stack = build_stack(Settings(port=0, data_dir=Path(tempfile.mkdtemp(prefix=prefix))))
    for hook in stack.start():
        hook()

    def call(service: str, op: str, params: dict[str, Any]) -> Any:
        handler = stack.registry.get(service, op)
        assert handler is not None
        return handler(RequestContext(service, op, "000000000000", "us-east-1", Principal.root("000000000000")),
                       params)

    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = call("iam", "CreateRole", {"RoleName": "r", "AssumeRolePolicyDocument": json.dumps(trust)})["Role"]["Arn"]
    return stack, call, role
