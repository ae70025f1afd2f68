"""What every Step Functions page reads first: a state machine's description and its definition."""

from __future__ import annotations

import json
from typing import Any

from onceflow.console.app import View


def describe(v: View, name: str) -> dict[str, Any]:
    return v.aws.call("stepfunctions", "DescribeStateMachine", {"stateMachineArn": v.aws.state_machine_arn(name)})


def parse_definition(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
