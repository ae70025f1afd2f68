"""What Step Functions service tests share: a role Step Functions may assume, and waiting for an
execution to finish."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def states_role(aws: Callable[..., Any], prefix: str) -> str:
    """The ARN of a new role that trusts Step Functions."""
    arn: str = aws("iam").create_role(RoleName=f"{prefix}-{uuid.uuid4().hex[:8]}",
                                      AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    return arn


def finished(sfn: Any, execution_arn: str, timeout: float = 60) -> dict[str, Any]:
    """DescribeExecution once the execution is no longer RUNNING (or at the timeout)."""
    deadline = time.time() + timeout
    while True:
        d: dict[str, Any] = sfn.describe_execution(executionArn=execution_arn)
        if d["status"] != "RUNNING" or time.time() > deadline:
            return d
        time.sleep(0.05)
