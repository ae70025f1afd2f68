"""Step Functions always ends what it must: an expression that never returns (a JSONata loop) is
ended by the execution's TimeoutSeconds, by a task's timeout in another branch, by StopExecution
and by a shutdown; while such executions run, others still complete; infinite recursion is
JSONata's error, and a definition nested too deep is InvalidDefinition."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
LOOP = "{% ($f := function($n){ $f($n+1) }; $f(0)) %}"  # tail-recursive: a loop that never ends
RECURSE = "{% ($f := function($n){ 1 + $f($n+1) }; $f(0)) %}"  # not tail-recursive: runs out of stack


def looping(timeout: int | None = None) -> dict[str, Any]:
    definition: dict[str, Any] = {"QueryLanguage": "JSONata", "StartAt": "Spin", "States": {
        "Spin": {"Type": "Pass", "Output": LOOP, "End": True}}}
    if timeout is not None:
        definition["TimeoutSeconds"] = timeout
    return definition


def role(iam: Any) -> str:
    name = f"runaway-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


def machine(sfn: Any, role_arn: str, definition: dict[str, Any]) -> str:
    return sfn.create_state_machine(name=f"runaway-{uuid.uuid4().hex[:8]}", definition=json.dumps(definition),
                                    roleArn=role_arn)["stateMachineArn"]


def wait_done(sfn: Any, arn: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        d = sfn.describe_execution(executionArn=arn)
        if d["status"] != "RUNNING":
            return d
        assert time.time() < deadline, f"{arn} still RUNNING"
        time.sleep(0.05)


def history(sfn: Any, arn: str) -> list[dict[str, Any]]:
    return sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]


@pytest.fixture
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


@pytest.fixture
def role_arn(aws: Callable[..., Any]) -> str:
    return role(aws("iam"))


def test_a_loop_ends_with_the_executions_timeout(sfn: Any, role_arn: str) -> None:
    arn = sfn.start_execution(stateMachineArn=machine(sfn, role_arn, looping(timeout=1)))["executionArn"]
    d = wait_done(sfn, arn)
    assert d["status"] == "TIMED_OUT" and "error" not in d and "cause" not in d  # as AWS describes it
    # stopped at the deadline itself (start + TimeoutSeconds, computed, not measured)
    assert abs(d["stopDate"] - d["startDate"] - timedelta(seconds=1)) < timedelta(milliseconds=1)
    events = history(sfn, arn)
    assert [e["type"] for e in events] == ["ExecutionStarted", "PassStateEntered", "ExecutionTimedOut"]
    assert events[-1]["executionTimedOutEventDetails"] == {"error": "States.Timeout"}
    assert events[-1]["previousEventId"] == 0


@pytest.mark.parametrize(("limits", "error"), [
    ({"TimeoutSeconds": 1}, "States.Timeout"),
    ({"TimeoutSeconds": 300, "HeartbeatSeconds": 1}, "States.HeartbeatTimeout"),
])
def test_a_task_timeout_fires_while_another_branch_loops(sfn: Any, role_arn: str, limits: dict[str, int],
                                                         error: str) -> None:
    """The token wait times out (TimeoutSeconds, HeartbeatSeconds) although the other branch never
    stops evaluating; the Parallel fails with that error and the loop is ended (the execution closes)."""
    definition = {"QueryLanguage": "JSONata", "StartAt": "Both", "States": {"Both": {
        "Type": "Parallel", "End": True, "Branches": [
            {"StartAt": "Spin", "States": {"Spin": {"Type": "Pass", "Output": LOOP, "End": True}}},
            {"StartAt": "Wait", "States": {"Wait": {
                "Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sts:getCallerIdentity.waitForTaskToken",
                **limits, "End": True}}},
        ]}}}
    arn = sfn.start_execution(stateMachineArn=machine(sfn, role_arn, definition))["executionArn"]
    d = wait_done(sfn, arn)
    assert (d["status"], d.get("error")) == ("FAILED", error)
    types = [e["type"] for e in history(sfn, arn)]
    assert "TaskTimedOut" in types and "ParallelStateFailed" in types
    assert types[-1] == "ExecutionFailed" and "PassStateExited" not in types


def test_stop_execution_ends_loops_and_others_still_complete(sfn: Any, role_arn: str) -> None:
    """More looping executions than the engine's drive threads: a trivial one still completes, and
    StopExecution ends each loop (the engine drops them: a later Describe stays ABORTED)."""
    loop_sm = machine(sfn, role_arn, looping())
    loops = [sfn.start_execution(stateMachineArn=loop_sm)["executionArn"] for _ in range(10)]
    for arn in loops:  # every one has entered its state: all of them are evaluating now
        deadline = time.time() + 30
        while len(history(sfn, arn)) < 2:
            assert time.time() < deadline
            time.sleep(0.05)
    trivial = machine(sfn, role_arn, {"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": 1, "End": True}}})
    quick = sfn.start_execution(stateMachineArn=trivial)["executionArn"]
    assert (wait_done(sfn, quick)["status"], sfn.describe_execution(executionArn=quick)["output"]) == (
        "SUCCEEDED", "1")
    for arn in loops:
        assert sfn.describe_execution(executionArn=arn)["status"] == "RUNNING"
        sfn.stop_execution(executionArn=arn, error="Enough", cause="looping")
    for arn in loops:
        d = wait_done(sfn, arn)
        assert (d["status"], d["error"]) == ("ABORTED", "Enough")
        assert [e["type"] for e in history(sfn, arn)] == ["ExecutionStarted", "PassStateEntered", "ExecutionAborted"]


def test_infinite_recursion_is_jsonatas_stack_overflow(sfn: Any, role_arn: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "Deep", "States": {
        "Deep": {"Type": "Pass", "Output": RECURSE, "End": True}}}
    arn = sfn.start_execution(stateMachineArn=machine(sfn, role_arn, definition))["executionArn"]
    d = wait_done(sfn, arn)
    assert (d["status"], d["error"]) == ("FAILED", "States.QueryEvaluationError")
    assert "threw an error during evaluation. D1011: Stack overflow" in d["cause"]
    assert history(sfn, arn)[-2]["type"] == "EvaluationFailed"
    assert sfn.list_state_machines()["stateMachines"] is not None  # the server is alive and answers


def test_a_definition_nested_too_deep_is_invalid(sfn: Any, role_arn: str) -> None:
    head = '{"StartAt":"Par","States":{"Par":{"Type":"Parallel","End":true,"Branches":['
    leaf = '{"StartAt":"P","States":{"P":{"Type":"Pass","End":true}}}'
    text = head * 5000 + leaf + "]}}}" * 5000  # 5,000 Parallels, one inside the other
    with pytest.raises(ClientError) as caught:
        sfn.create_state_machine(name=f"deep-{uuid.uuid4().hex[:6]}", definition=text, roleArn=role_arn)
    err = caught.value.response
    assert err["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert err["Error"]["Code"] == "InvalidDefinition"
    assert "nesting depth" in err["Error"]["Message"]


def test_sigterm_stops_the_server_while_loops_run(server_factory: Callable[..., Any]) -> None:
    """SIGTERM ends every evaluation and the server exits cleanly; after the restart the loops
    are RUNNING again (replayed), a trivial execution still completes, and StopExecution ends them."""
    server = server_factory()
    sfn, role_arn = server.client("stepfunctions"), role(server.client("iam"))
    loop_sm = machine(sfn, role_arn, looping())
    loops = [sfn.start_execution(stateMachineArn=loop_sm)["executionArn"] for _ in range(10)]
    for arn in loops:
        deadline = time.time() + 30
        while len(history(sfn, arn)) < 2:
            assert time.time() < deadline
            time.sleep(0.05)
    assert server.stop() == 0  # ServerProcess.stop kills and raises if it does not exit

    server = server_factory(server.data_dir)
    sfn = server.client("stepfunctions")
    trivial = machine(sfn, role_arn, {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}})
    assert wait_done(sfn, sfn.start_execution(stateMachineArn=trivial)["executionArn"])["status"] == "SUCCEEDED"
    for arn in loops:
        assert sfn.describe_execution(executionArn=arn)["status"] == "RUNNING"
        sfn.stop_execution(executionArn=arn)
        assert wait_done(sfn, arn)["status"] == "ABORTED"


def test_a_map_iteration_times_out_while_an_earlier_one_loops(sfn: Any, role_arn: str) -> None:
    """Iteration 0 loops before iteration 1 is even started: iteration 1 still starts, its task
    times out, and the Map fails with States.Timeout."""
    definition = {"QueryLanguage": "JSONata", "StartAt": "Each", "States": {"Each": {
        "Type": "Map", "Items": "{% [0, 1] %}", "End": True, "ItemProcessor": {"StartAt": "Which", "States": {
            "Which": {"Type": "Choice", "Default": "Wait",
                      "Choices": [{"Condition": "{% $states.input = 0 %}", "Next": "Spin"}]},
            "Spin": {"Type": "Pass", "Output": LOOP, "End": True},
            "Wait": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:sts:getCallerIdentity.waitForTaskToken",
                     "Arguments": {}, "TimeoutSeconds": 1, "End": True}}}}}}
    arn = sfn.start_execution(stateMachineArn=machine(sfn, role_arn, definition))["executionArn"]
    d = wait_done(sfn, arn)
    assert (d["status"], d.get("error")) == ("FAILED", "States.Timeout")
    types = [e["type"] for e in history(sfn, arn)]
    assert types.count("MapIterationStarted") == 2 and "TaskTimedOut" in types and "MapStateFailed" in types


def test_sigterm_ends_a_synchronous_execution_that_loops(server_factory: Callable[..., Any]) -> None:
    """A StartSyncExecution waiting on a looping Express execution does not hold the shutdown for
    uvicorn's whole drain (30 s): the signal tells the engine at once, the call gets its answer or
    its connection closes, and the server exits 0 well within the 15 s given here."""
    import threading

    from botocore.config import Config

    server = server_factory()
    sfn, role_arn = server.client("stepfunctions"), role(server.client("iam"))
    arn = sfn.create_state_machine(name=f"runaway-{uuid.uuid4().hex[:8]}", type="EXPRESS",
                                   definition=json.dumps(looping()), roleArn=role_arn)["stateMachineArn"]
    sync = server.client("stepfunctions", config=Config(inject_host_prefix=False, read_timeout=60,
                                                         retries={"max_attempts": 1}))
    outcome: list[str] = []

    def call() -> None:
        try:
            outcome.append(sync.start_sync_execution(stateMachineArn=arn)["status"])
        except Exception as exc:  # the connection may close under it: what matters is that it ends
            outcome.append(type(exc).__name__)

    caller = threading.Thread(target=call)
    caller.start()
    time.sleep(1.0)  # let the call reach the loop
    assert not outcome, "the looping synchronous execution returned by itself"
    assert server.stop(timeout=15) == 0
    caller.join(30)
    assert outcome, "the synchronous call never ended"
