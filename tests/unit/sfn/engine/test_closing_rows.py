"""The closing commit removes an execution's timer, hand-over marks and waiting tokens, and skips
that only for a runtime that never wrote any (engine.py `clean`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from onceflow.config import Settings
from onceflow.context import Principal, RequestContext
from onceflow.server import build_stack

WAIT = {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 2, "Next": "P"},
                                   "P": {"Type": "Pass", "End": True}}}
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


def test_closing_commits_leave_no_timer_rows(tmp_path: Path) -> None:
    stack = build_stack(Settings(port=0, data_dir=tmp_path, time_scale=100.0))
    for hook in stack.start():
        hook()
    try:
        def call(service: str, op: str, params: dict[str, Any]) -> Any:
            handler = stack.registry.get(service, op)
            assert handler is not None
            ctx = RequestContext(service, op, "000000000000", "us-east-1", Principal.root("000000000000"))
            return handler(ctx, params)

        trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
            "Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
        role = call("iam", "CreateRole", {"RoleName": "r", "AssumeRolePolicyDocument": json.dumps(trust)})
        engine = stack.services["stepfunctions"].engine
        runs = []
        for name, definition in (("wait", WAIT), ("pass", PASS)):
            machine = call("stepfunctions", "CreateStateMachine", {
                "name": name, "definition": json.dumps(definition), "roleArn": role["Role"]["Arn"]})
            run = call("stepfunctions", "StartExecution", {"stateMachineArn": machine["stateMachineArn"]})
            engine.wait_done(run["executionArn"], 30)
            runs.append(run["executionArn"])
        for arn in runs:
            row = stack.db.query_one("SELECT status FROM sfn_executions WHERE arn=?", (arn,))
            assert row is not None and row["status"] == "SUCCEEDED"
        # The Wait's runtime wrote a timer while it waited: its close removed it.
        assert stack.db.query("SELECT exec_arn FROM sfn_timers") == []
        assert stack.db.query("SELECT exec_arn FROM sfn_dispatched") == []
    finally:
        for hook in reversed(stack.on_shutdown):
            hook()
        stack.db.close()
