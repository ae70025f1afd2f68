"""Unit tests of the console's pure parts: graph layout, history fold, Lambda log split,
idempotency decisions and the DynamoDB key tokens used in URLs."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from onceflow.console import graph, history, idempotency, lambda_logs
from onceflow.console.aws import decode_key, encode_key

ORDERS = {
    "StartAt": "CheckQuantity",
    "States": {
        "CheckQuantity": {"Type": "Choice", "Default": "Rejected",
                          "Choices": [{"Variable": "$.quantity", "NumericGreaterThan": 0, "Next": "StoreOrder"}]},
        "StoreOrder": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                       "Parameters": {"FunctionName": "worker", "Payload.$": "$"},
                       "Retry": [{"ErrorEquals": ["TransientOrderError"], "MaxAttempts": 2}],
                       "Catch": [{"ErrorEquals": ["InvalidOrder"], "Next": "Rejected"}], "Next": "ReadSummary"},
        "ReadSummary": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True},
        "Rejected": {"Type": "Fail", "Error": "OrderRejected"},
    },
}


# ---------------------------------------------------------------------------------------- graph
def by_name(drawing: graph.Drawing) -> dict[str, graph.Node]:
    return {n.name: n for n in drawing.nodes}


def test_layout_has_every_state_and_edge_kind() -> None:
    drawing = graph.layout(ORDERS)
    nodes = by_name(drawing)
    assert set(nodes) == {graph.START, graph.END, "CheckQuantity", "StoreOrder", "ReadSummary", "Rejected"}
    kinds = {(e.src, e.dst): e.kind for e in drawing.edges}
    assert kinds[(graph.START, "CheckQuantity")] == "start"
    assert kinds[("CheckQuantity", "StoreOrder")] == "choice"
    assert kinds[("CheckQuantity", "Rejected")] == "default"
    assert kinds[("StoreOrder", "Rejected")] == "catch"
    assert kinds[("StoreOrder", "ReadSummary")] == "next"
    assert kinds[("ReadSummary", graph.END)] == "end" and kinds[("Rejected", graph.END)] == "end"
    labels = {e.kind: e.label for e in drawing.edges}
    assert labels["choice"] == "$.quantity > 0" and labels["catch"] == "Catch InvalidOrder"
    assert nodes["StoreOrder"].retry == "Retry TransientOrderError ×2"


def test_layout_ranks_flow_downwards_and_nodes_do_not_overlap() -> None:
    nodes = by_name(graph.layout(ORDERS))
    order = [graph.START, "CheckQuantity", "StoreOrder", "ReadSummary", graph.END]
    ys = [nodes[n].y for n in order]
    assert ys == sorted(ys) and len(set(ys)) == len(ys)
    boxes = [n for n in nodes.values()]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
            assert apart, (a.name, b.name)


def test_parallel_and_map_are_groups_that_contain_their_branches() -> None:
    definition = {"StartAt": "P", "States": {
        "P": {"Type": "Parallel", "End": True, "Branches": [
            {"StartAt": "A", "States": {"A": {"Type": "Pass", "Next": "B"}, "B": {"Type": "Pass", "End": True}}},
            {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, "ItemProcessor": {
                "StartAt": "Inner", "States": {"Inner": {"Type": "Pass", "End": True}}}}}},
        ]}}}
    drawing = graph.layout(definition)
    nodes = by_name(drawing)
    assert nodes["P"].kind == "group" and nodes["M"].kind == "group"

    def inside(child: graph.Node, parent: graph.Node) -> bool:
        return (parent.x <= child.x and child.x + child.w <= parent.x + parent.w
                and parent.y <= child.y and child.y + child.h <= parent.y + parent.h)

    for name in ("A", "B", "M", "Inner"):
        assert inside(nodes[name], nodes["P"]), name
    assert inside(nodes["Inner"], nodes["M"])
    assert not inside(nodes["A"], nodes["M"])
    assert ("A", "B") in {(e.src, e.dst) for e in drawing.edges}
    assert all(e.path.startswith("M") for e in drawing.edges)


def test_loops_are_drawn_as_back_edges_and_bad_definitions_do_not_break_the_layout() -> None:
    loop = {"StartAt": "Wait", "States": {
        "Wait": {"Type": "Wait", "Seconds": 1, "Next": "Check"},
        "Check": {"Type": "Choice", "Choices": [{"Variable": "$.done", "BooleanEquals": False, "Next": "Wait"}],
                  "Default": "Done"},
        "Done": {"Type": "Succeed"}}}
    drawing = graph.layout(loop)
    back = next(e for e in drawing.edges if (e.src, e.dst) == ("Check", "Wait"))
    assert back.path.count("C") == 2  # routed around the side
    for bad in ({}, {"States": []}, {"StartAt": "Nope", "States": {"A": {"Type": "Pass", "Next": "Missing"}}},
                {"StartAt": "A", "States": {"A": "not a state"}}):
        assert graph.layout(bad).width > 0


def test_long_names_are_shortened_for_drawing_only() -> None:
    name = "x" * 200
    drawing = graph.layout({"StartAt": name, "States": {name: {"Type": "Pass", "End": True}}})
    node = by_name(drawing)[name]
    assert node.label.endswith("…") and len(node.label) == graph.MAX_NAME and node.w <= graph.MAX_W


# ---------------------------------------------------------------------------------------- history
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def events(*specs: tuple[str, int, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, (kind, prev, details) in enumerate(specs, start=1):
        event = {"id": i, "previousEventId": prev, "type": kind, "timestamp": T0 + timedelta(seconds=i)}
        if details:
            key = history_key(kind)
            event[key] = details
        out.append(event)
    return out


def history_key(kind: str) -> str:
    if kind.endswith("StateEntered"):
        return "stateEnteredEventDetails"
    if kind.endswith("StateExited"):
        return "stateExitedEventDetails"
    return kind[0].lower() + kind[1:] + "EventDetails"


def invoke_result(request_id: str, payload: Any) -> str:
    return json.dumps({"ExecutedVersion": "$LATEST", "Payload": payload,
                       "SdkResponseMetadata": {"RequestId": request_id}, "StatusCode": 200})


def cause(error: str, request_id: str) -> str:
    return json.dumps({"errorMessage": "x", "errorType": error, "requestId": request_id, "stackTrace": []})


SCHEDULED = {"resourceType": "lambda", "resource": "invoke",
             "parameters": json.dumps({"FunctionName": "worker", "Payload": {}})}
AFTER_WRITE = events(
    ("ExecutionStarted", 0, {"input": "{}"}),
    ("ChoiceStateEntered", 0, {"name": "CheckQuantity"}),
    ("ChoiceStateExited", 2, {"name": "CheckQuantity"}),
    ("TaskStateEntered", 3, {"name": "StoreOrder"}),
    ("TaskScheduled", 4, SCHEDULED),
    ("TaskStarted", 5, {}),
    ("TaskFailed", 6, {"error": "TransientOrderError", "cause": cause("TransientOrderError", "req-1")}),
    ("TaskScheduled", 7, SCHEDULED),
    ("TaskStarted", 8, {}),
    ("TaskSucceeded", 9, {"output": invoke_result("req-2", {"duplicate": True})}),
    ("TaskStateExited", 10, {"name": "StoreOrder"}),
    ("TaskStateEntered", 11, {"name": "ReadSummary"}),
    ("TaskScheduled", 12, SCHEDULED),
    ("TaskStarted", 13, {}),
    ("TaskSucceeded", 14, {"output": invoke_result("req-3", {"completed": True})}),
    ("TaskStateExited", 15, {"name": "ReadSummary"}),
    ("ExecutionSucceeded", 16, {"output": "{}"}),
)


def test_fold_counts_attempts_and_colours_states() -> None:
    run = history.fold(AFTER_WRITE)
    assert run.status == "SUCCEEDED" and run.last_event_id == 17
    assert run.states["StoreOrder"].status == "succeeded" and run.states["StoreOrder"].attempts == 2
    assert run.states["StoreOrder"].retried and not run.states["ReadSummary"].retried
    assert "Rejected" not in run.states
    assert [(a.state, a.number, a.outcome, a.request_id, a.function) for a in run.attempts] == [
        ("StoreOrder", 1, "failed", "req-1", "worker"), ("StoreOrder", 2, "succeeded", "req-2", "worker"),
        ("ReadSummary", 1, "succeeded", "req-3", "worker")]
    assert run.transitions == {(graph.START, "CheckQuantity"), ("CheckQuantity", "StoreOrder"),
                               ("StoreOrder", "ReadSummary"), ("ReadSummary", graph.END)}
    assert run.step_of[7] == "StoreOrder"


def test_fold_marks_a_caught_failure_and_the_fail_state() -> None:
    run = history.fold(events(
        ("ExecutionStarted", 0, {}),
        ("TaskStateEntered", 0, {"name": "StoreOrder"}),
        ("TaskScheduled", 2, SCHEDULED),
        ("TaskStarted", 3, {}),
        ("TaskFailed", 4, {"error": "InvalidOrder", "cause": cause("InvalidOrder", "req-9")}),
        ("TaskStateExited", 5, {"name": "StoreOrder"}),
        ("FailStateEntered", 6, {"name": "Rejected"}),
        ("ExecutionFailed", 7, {"error": "OrderRejected", "cause": "no"}),
    ))
    assert run.status == "FAILED" and run.error == "OrderRejected"
    assert run.states["StoreOrder"].status == "caught" and run.states["StoreOrder"].error == "InvalidOrder"
    assert run.states["Rejected"].status == "failed"
    assert ("StoreOrder", "Rejected") in run.transitions and ("Rejected", graph.END) in run.transitions


def test_fold_of_an_uncaught_failure_and_of_a_running_execution() -> None:
    denied = "User: arn:aws:sts::1:assumed-role/r/s is denied (Request ID: 0f0e0d0c-0b0a-0908-0706-050403020100)"
    failed = history.fold(events(
        ("ExecutionStarted", 0, {}),
        ("TaskStateEntered", 0, {"name": "StoreOrder"}),
        ("TaskScheduled", 2, SCHEDULED),
        ("TaskStarted", 3, {}),
        ("TaskFailed", 4, {"error": "Lambda.AWSLambdaException", "cause": denied}),
        ("ExecutionFailed", 5, {"error": "Lambda.AWSLambdaException", "cause": denied}),
    ))
    assert failed.states["StoreOrder"].status == "failed"
    assert failed.attempts[0].request_id == ""  # the refused call's id is not an invocation
    assert history.api_request_id(denied) == "0f0e0d0c-0b0a-0908-0706-050403020100"
    running = history.fold(AFTER_WRITE[:9])
    assert running.status == "RUNNING" and running.states["StoreOrder"].status == "running"
    assert running.attempts[-1].outcome == "running"


def test_function_names_from_every_form() -> None:
    for value in ("worker", "worker:live", "123456789012:function:worker",
                  "arn:aws:lambda:us-east-1:123456789012:function:worker:$LATEST"):
        assert history.function_name(value) == "worker"


# ---------------------------------------------------------------------------------------- lambda logs
def log(stream: str, ts: int, message: str) -> dict[str, Any]:
    return {"logStreamName": stream, "timestamp": ts, "message": message}


def test_invocations_are_split_by_start_and_end_lines_per_stream() -> None:
    found = lambda_logs.invocations([
        log("s1", 1, "INIT_START Runtime Version: python:3.12\n"),
        log("s1", 2, "START RequestId: a Version: $LATEST\n"),
        log("s2", 3, "START RequestId: b Version: $LATEST\n"),
        log("s1", 4, "WORKFLOW {}\n"),
        log("s2", 5, "[ERROR] TransientOrderError: later\nTraceback (most recent call last):"),
        log("s1", 6, "END RequestId: a\n"),
        log("s1", 7, "REPORT RequestId: a\tDuration: 3.01 ms\tBilled Duration: 4 ms\tMemory Size: 128 MB\t"
                     "Max Memory Used: 36 MB\tInit Duration: 110.10 ms\t\n"),
        log("s2", 8, "END RequestId: b\n"),
        log("s2", 9, "REPORT RequestId: b\tDuration: 2.90 ms\tBilled Duration: 3 ms\tMemory Size: 128 MB\t"
                     "Max Memory Used: 36 MB\t\n"),
        log("s1", 10, "START RequestId: c Version: $LATEST\n"),
    ])
    assert [(i.request_id, i.outcome) for i in found] == [("a", "ok"), ("b", "error"), ("c", "running")]
    a, b, _ = found
    assert len(a.lines) == 4 and a.lines[1]["message"] == "WORKFLOW {}\n"
    assert a.report == {"Duration": "3.01 ms", "Billed Duration": "4 ms", "Memory Size": "128 MB",
                        "Max Memory Used": "36 MB", "Init Duration": "110.10 ms"}
    assert b.error == "TransientOrderError: later" and b.duration == "2.90 ms"


# ---------------------------------------------------------------------------------------- idempotency
def attempt(state: str, number: int, outcome: str, event_id: int, error: str = "",
            request_id: str = "") -> history.Attempt:
    a = history.Attempt(state, number, event_id, "lambda", "invoke", "worker")
    a.outcome, a.error, a.request_id = outcome, error, request_id
    return a


def started(scheduled: int) -> dict[str, Any]:
    return {"id": scheduled + 1, "previousEventId": scheduled, "type": "TaskStarted"}


def write(seq: int, task: int, table: str, key: str, rid: str = "r1") -> dict[str, Any]:
    return {"seq": seq, "taskId": task, "lambdaRequestId": rid, "service": "dynamodb", "resource": table,
            "operation": "PutItem", "via": "PutItem", "key": key, "requestId": f"d{seq}", "caller": "c"}


def test_idempotency_rows_come_from_the_ledger() -> None:
    # The seed's after-write order: attempt 1 counts and writes the order, then fails; attempt 2
    # counts again (its PutItem is refused by the condition: no ledger row); ReadSummary only reads.
    attempts = [attempt("StoreOrder", 1, "failed", 5, "TransientOrderError"), attempt("StoreOrder", 2, "succeeded", 9),
                attempt("ReadSummary", 1, "succeeded", 14)]
    events = [started(5), started(9), started(14)]
    ledger = [write(1, 6, "attempts", '{"id":{"S":"o"}}'), write(2, 6, "orders", '{"id":{"S":"o"}}'),
              write(3, 10, "attempts", '{"id":{"S":"o"}}', rid="r2"), write(4, 99, "orders", '{"id":{"S":"x"}}')]
    rows, stray = idempotency.attribute(attempts, events, ledger, {})
    assert [r.decision for r in rows] == ["wrote", "repeated", "no-write"]
    assert [w.entry["resource"] for w in rows[0].writes] == ["attempts", "orders"]
    assert rows[1].writes[0].repeats == "attempt 1 of StoreOrder wrote this item first"
    assert rows[0].request_id == "r1" and rows[1].request_id == "r2"
    assert [w.entry["seq"] for w in stray] == [4]  # a task id no attempt of this history has
    assert idempotency.summary(rows) == {"attempts": 3, "writes": 3, "repeated": 1, "distinct": 2, "elsewhere": 0,
                                         "not_invoked": 0}
    denied = [attempt("StoreOrder", 1, "failed", 5, "Lambda.AWSLambdaException")]
    assert [r.decision for r in idempotency.attribute(denied, [], [], {})[0]] == ["not-invoked"]


# ---------------------------------------------------------------------------------------- key tokens
@pytest.mark.parametrize("key", [
    {"id": {"S": "<script>alert(1)</script>"}},
    {"pk": {"B": b"\xff\xfe\x00<x>"}, "sk": {"N": "-1.5E+10"}},
])
def test_key_tokens_round_trip(key: dict[str, Any]) -> None:
    token = encode_key(key)
    assert token.isascii() and "=" not in token
    assert decode_key(token) == key


@pytest.mark.parametrize("token", ["", "!!!", "bnVsbA", "W10"])  # not base64, null, []
def test_bad_key_tokens_are_refused(token: str) -> None:
    with pytest.raises(ValueError):
        decode_key(token)


def test_parallel_and_map_events_belong_to_their_state() -> None:
    run = history.fold(events(
        ("ExecutionStarted", 0, {}),
        ("ParallelStateEntered", 0, {"name": "Fan"}),
        ("ParallelStateStarted", 2, {}),
        ("PassStateEntered", 3, {"name": "Left"}),
        ("PassStateExited", 4, {"name": "Left"}),
        ("ParallelStateSucceeded", 5, {}),
        ("ParallelStateExited", 6, {"name": "Fan"}),
        ("MapStateEntered", 7, {"name": "Each"}),
        ("MapStateStarted", 8, {"length": 1}),
        ("MapIterationStarted", 9, {"name": "Each", "index": 0}),
        ("PassStateEntered", 10, {"name": "Item"}),
        ("PassStateExited", 11, {"name": "Item"}),
        ("MapIterationSucceeded", 12, {"name": "Each", "index": 0}),
        ("MapStateSucceeded", 13, {}),
        ("MapStateExited", 14, {"name": "Each"}),
        ("ExecutionSucceeded", 15, {}),
    ))
    assert [run.step_of.get(i) for i in (3, 6, 9, 10, 13, 14)] == ["Fan", "Fan", "Each", "Each", "Each", "Each"]
    assert {n: s.status for n, s in run.states.items()} == {"Fan": "succeeded", "Left": "succeeded",
                                                            "Each": "succeeded", "Item": "succeeded"}
    assert ("Fan", "Each") in run.transitions and ("Each", graph.END) in run.transitions


def interleaved_map() -> list[dict[str, Any]]:
    """Two Map iterations of one Task state whose events interleave: iteration 0 fails (caught),
    iteration 1 succeeds; each task event chains on its attempt's previous event."""
    return events(
        ("ExecutionStarted", 0, {}),
        ("MapStateEntered", 1, {"name": "Each"}),
        ("MapStateStarted", 2, {"length": 2}),
        ("MapIterationStarted", 3, {"name": "Each", "index": 0}),
        ("TaskStateEntered", 4, {"name": "T"}),
        ("TaskScheduled", 5, SCHEDULED),
        ("TaskStarted", 6, {}),
        ("MapIterationStarted", 7, {"name": "Each", "index": 1}),
        ("TaskStateEntered", 8, {"name": "T"}),
        ("TaskScheduled", 9, SCHEDULED),
        ("TaskStarted", 10, {}),
        ("TaskFailed", 7, {"error": "Boom", "cause": cause("Boom", "req-a")}),
        ("TaskStateExited", 12, {"name": "T"}),
        ("MapIterationSucceeded", 13, {"name": "Each", "index": 0}),
        ("TaskSucceeded", 11, {"output": invoke_result("req-b", 1)}),
        ("TaskStateExited", 15, {"name": "T"}),
        ("MapIterationSucceeded", 16, {"name": "Each", "index": 1}),
        ("MapStateSucceeded", 16, {}),
        ("MapStateExited", 18, {"name": "Each"}),
        ("ExecutionSucceeded", 19, {}),
    )


def test_interleaved_map_iterations_pair_their_own_attempts() -> None:
    run = history.fold(interleaved_map())
    assert [(a.event_id, a.number, a.outcome, a.request_id) for a in run.attempts] == [
        (6, 1, "failed", "req-a"), (10, 1, "succeeded", "req-b")]  # no phantom "running" attempt
    assert run.states["T"].status == "caught" and run.states["T"].error == "Boom"  # the graph's catch mark
    assert run.status == "SUCCEEDED"
