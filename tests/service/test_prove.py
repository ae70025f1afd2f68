"""onceflow prove on the seed workflow, against a real server's data folder (copied, never written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from prove_setup import HERE, concurrent_template, orders_lab, table_workflow

from onceflow.faults.rules import parse_rules
from onceflow.prove import ProveError, prove
from serverproc import ServerProcess, client_factory

ORDER = {"id": "order-1", "quantity": 2}
CONFLICT = {"id": "order-1", "quantity": 3}


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("prove") / "data").start()
    yield proc
    proc.stop()


def retrying_template(timeout_s: int | None = None) -> dict[str, Any]:
    """The seed workflow with a Retry on every task error: a lost answer is retried."""
    template = json.loads((HERE / "workflow-template.json").read_text(encoding="utf-8"))
    template["States"]["StoreOrder"]["Retry"] = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1,
                                                  "MaxAttempts": 2, "BackoffRate": 2}]
    if timeout_s is not None:
        template["States"]["StoreOrder"]["TimeoutSeconds"] = timeout_s
    return template


def by_kind(report: Any, kind: str) -> list[Any]:
    runs = [r for r in report.runs if r.kind == kind]
    assert runs, f"no {kind} run in {[r.kind for r in report.runs]}"
    return runs


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return subprocess.run([sys.executable, "-m", "onceflow", "prove", *args], capture_output=True, text=True,
                          env=env, timeout=300, stdin=subprocess.DEVNULL)


def test_protected_worker_is_safe_and_the_users_data_is_untouched(lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-safe", "protected")
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   conflict_input=CONFLICT)
    assert report.safe, report.summary()
    assert report.baseline.outcomes == ["SUCCEEDED"]
    assert report.business_tables == [lab["orders_table"]]
    kinds = {r.kind for r in report.runs}
    assert kinds == {"lost-response", "fail-before", "duplicate-delivery", "fail-after-write", "re-execution",
                     "concurrent-execution", "conflict-input"}
    assert {r.point for r in by_kind(report, "lost-response")} == {"StoreOrder#1", "ReadSummary#1"}
    # The conflicting order (same id, other quantity) fails; the first order stays as it was.
    conflict = by_kind(report, "conflict-input")[0]
    assert conflict.outcomes == ["SUCCEEDED", "FAILED"] and conflict.verdict == "same"
    # The baseline's ledger attributes the order's write to the worker's role session.
    writes = [e for e in report.baseline.ledger if e["table"] == lab["orders_table"]]
    assert [e["operation"] for e in writes] == ["PutItem"]
    assert writes[0]["caller"] == "arn:aws:sts::000000000000:assumed-role/pv-safe-worker-role/pv-safe-worker"
    assert (writes[0]["state"], writes[0]["attempt"]) == ("StoreOrder", 1)
    assert writes[0]["execution"] == report.baseline.executions[0] and writes[0]["lambdaRequestId"]
    assert {r.point for r in by_kind(report, "fail-after-write")} == {"StoreOrder#1 write 1 (PutItem pv-safe-orders)"}
    # Every run's plan is a rule list `onceflow serve --faults` accepts.
    for run in report.runs:
        parse_rules(run.plan)
    # Nothing happened on the user's server: no execution, no order.
    aws = client_factory(lab_server.url)
    assert aws("stepfunctions").list_executions(stateMachineArn=lab["state_machine_arn"])["executions"] == []
    assert aws("dynamodb").scan(TableName=lab["orders_table"])["Items"] == []


def test_starter_worker_is_unsafe_replaced_under_conflict_input(lab_server: ServerProcess, tmp_path: Path) -> None:
    lab = orders_lab(lab_server.url, "pv-starter", "starter")
    out = tmp_path / "proof.json"
    done = run_cli(lab["state_machine"], "--input", json.dumps(ORDER), "--data", str(lab_server.data_dir),
                   "--ignore-table", lab["attempts_table"], "--conflict-input", json.dumps(CONFLICT),
                   "--json", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "UNSAFE: 1 of" in done.stdout and "conflict-input" in done.stdout
    report = json.loads(out.read_text())
    bad = [r for r in report["runs"] if r["verdict"] != "same"]
    assert [(r["kind"], r["verdict"]) for r in bad] == [("conflict-input", "replaced")]
    (diff,) = bad[0]["differences"]
    assert diff["table"] == lab["orders_table"] and diff["verdict"] == "replaced"
    assert diff["baseline"]["quantity"] == {"N": "2"} and diff["run"]["quantity"] == {"N": "3"}


def test_a_worker_taking_any_conflict_for_success_is_replaced_under_conflict_input(
        lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-swallow", "swallow")
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["lost-response", "re-execution"], conflict_input=CONFLICT)
    conflict = by_kind(report, "conflict-input")[0]
    assert conflict.outcomes == ["SUCCEEDED", "SUCCEEDED"] and conflict.verdict == "replaced"
    (diff,) = conflict.differences
    assert diff.run == diff.baseline and "SUCCEEDED but was not stored" in diff.note
    # The same order again is fine: only the different one is wrongly taken.
    assert by_kind(report, "re-execution")[0].verdict == "same"


def test_counter_worker_is_duplicated_when_a_lost_answer_is_retried(lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-counter", "counter", retrying_template())
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["lost-response", "fail-after-write", "fail-before"])
    assert not report.safe
    (lost,) = [r for r in by_kind(report, "lost-response") if r.point == "StoreOrder#1"]
    assert lost.verdict == "duplicated" and lost.outcomes == ["SUCCEEDED"]
    assert lost.differences[0].run["total"] == {"N": "4"} and lost.differences[0].baseline["total"] == {"N": "2"}
    assert [r.verdict for r in by_kind(report, "fail-after-write")] == ["duplicated"]
    # Refused before any effect and retried: one increment, as in the baseline.
    assert all(r.verdict == "same" for r in by_kind(report, "fail-before"))


def test_a_timeout_after_the_effect_repeats_the_counter_but_not_the_protected_order(
        lab_server: ServerProcess) -> None:
    # The protected worker's second attempt is refused by its condition: no effect, no ledger entry.
    for variant, verdict, attempts in (("counter", "duplicated", [1, 2]), ("protected", "same", [1])):
        lab = orders_lab(lab_server.url, f"pv-to-{variant}", variant, retrying_template(timeout_s=40))
        report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                       kinds=["timeout"])
        # Only StoreOrder has a TimeoutSeconds: a Task without one never times out.
        (run,) = report.runs
        assert (run.point, run.verdict, run.outcomes) == ("StoreOrder#1", verdict, ["SUCCEEDED"]), variant
        assert [(e["state"], e["attempt"]) for e in run.ledger if e["table"] == lab["orders_table"]] == [
            ("StoreOrder", n) for n in attempts]


def test_a_crash_after_the_effect_is_recovered_by_the_retry_and_repeats_the_counter(
        lab_server: ServerProcess) -> None:
    """kill -9 of a child server while StoreOrder's answer is held, restart: the recovery fails the
    call that may have run, the Retry runs it again, and the counter adds twice."""
    lab = orders_lab(lab_server.url, "pv-crash", "counter", retrying_template())
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["crash"])
    store = {r.point: r for r in report.runs}["StoreOrder#1"]
    assert store.kind == "crash" and store.outcomes == ["SUCCEEDED"] and store.verdict == "duplicated"
    assert store.differences[0].run["total"] == {"N": "4"}
    assert store.plan[0]["latency_ms"] > 0 and "error" not in store.plan[0]
    parse_rules(store.plan)


def test_ledger_worker_with_a_new_key_per_call_is_duplicated(lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-ledger", "ledger")
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["duplicate-delivery", "re-execution"])
    verdicts = {(r.kind, r.point): r.verdict for r in report.runs}
    assert verdicts[("duplicate-delivery", "StoreOrder#1")] == "duplicated"
    assert verdicts[("re-execution", "workflow")] == "duplicated"
    assert verdicts[("duplicate-delivery", "ReadSummary#1")] == "same"  # read-only stage


def test_two_writes_without_a_transaction_are_lost_after_the_first(lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-two", "two_writes")
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["fail-after-write"])
    first, second = by_kind(report, "fail-after-write")
    assert first.point == "StoreOrder#1 write 1 (PutItem pv-two-orders)"
    assert second.point == "StoreOrder#1 write 2 (UpdateItem pv-two-orders)"
    assert first.verdict == "lost" and not first.recovered
    assert first.differences[0].run is not None and "shipped" not in first.differences[0].run
    # The first write's answer arrives; the call after it (the UpdateItem) is the one that fails.
    (rule,) = first.plan
    assert (rule["operation"], rule["when"], rule["error"]["code"]) == ("UpdateItem", "before", "InternalServerError")
    assert "next SDK call (UpdateItem)" in rule["description"]
    assert [e["operation"] for e in first.ledger] == ["PutItem"]
    # No call follows the second write: the handler's worker dies as it returns, the write stands.
    (last,) = second.plan
    assert (last["service"], last["kind"], last["when"]) == ("lambda", "crash", "after")
    assert [e["operation"] for e in second.ledger] == ["PutItem", "UpdateItem"]
    # Failing after the last write leaves the whole order: not recovered, but nothing lost.
    assert second.verdict == "same" and not second.recovered


def test_dynamodb_tasks_are_fault_points_too(lab_server: ServerProcess) -> None:
    """A workflow writing through `dynamodb:` tasks: a retried lost answer repeats an ADD, a
    retried unconditional PutItem of the same item does not."""
    retry = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1, "MaxAttempts": 2}]
    definition = {"StartAt": "Count", "States": {
        "Count": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:updateItem", "Retry": retry,
                  "Parameters": {"TableName": "ORDERS_TABLE", "Key": {"id": {"S.$": "$.id"}},
                                 "UpdateExpression": "ADD #t :n", "ExpressionAttributeNames": {"#t": "total"},
                                 "ExpressionAttributeValues": {":n": {"N.$": "States.Format('{}', $.quantity)"}}},
                  "ResultPath": None, "Next": "Store"},
        "Store": {"Type": "Task", "Resource": "arn:aws:states:::dynamodb:putItem", "Retry": retry,
                  "Parameters": {"TableName": "ORDERS_TABLE",
                                 "Item": {"id": {"S.$": "States.Format('copy-{}', $.id)"}, "state": {"S": "stored"}}},
                  "End": True}}}
    lab = table_workflow(lab_server.url, "pv-direct", definition)
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, kinds=["lost-response", "fail-before"])
    assert report.business_tables == [lab["orders_table"]]
    verdicts = {(r.kind, r.point): r.verdict for r in report.runs}
    assert verdicts == {("lost-response", "Count#1"): "duplicated", ("fail-before", "Count#1"): "same",
                        ("lost-response", "Store#1"): "same", ("fail-before", "Store#1"): "same"}
    # The task's writes are the execution's, through its role session.
    assert [(e["state"], e["operation"]) for e in report.baseline.ledger] == [("Count", "UpdateItem"),
                                                                               ("Store", "PutItem")]


def test_map_iterations_and_parallel_branches_are_fault_points(lab_server: ServerProcess) -> None:
    retry = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1, "MaxAttempts": 2}]
    invoke = {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke", "End": True}
    each_order = {"FunctionName": "WORKER_NAME", "Payload.$": "$"}
    template = {"StartAt": "Each", "States": {
        "Each": {"Type": "Map", "ItemsPath": "$.orders", "MaxConcurrency": 1, "Next": "Both", "Iterator": {
            "StartAt": "Store", "States": {"Store": {**invoke, "Retry": retry, "OutputPath": "$.Payload",
                                                     "Parameters": each_order}}}},
        "Both": {"Type": "Parallel", "End": True, "Branches": [{"StartAt": "Audit", "States": {"Audit": {
            **invoke, "Parameters": {"FunctionName": "WORKER_NAME", "Payload": {"id": "audit", "quantity": 1}}}}}]}}}
    lab = orders_lab(lab_server.url, "pv-map", "counter", template)
    orders = {"orders": [{"id": "m-1", "quantity": 1}, {"id": "m-2", "quantity": 2}]}
    report = prove(lab["state_machine"], orders, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["lost-response"])
    verdicts = {r.point: (r.verdict, [d.key for d in r.differences]) for r in report.runs}
    # Each iteration's lost answer is retried and adds again to its own order; the branch has no Retry.
    assert verdicts == {"Store[0]#1": ("duplicated", ['{"id":{"S":"m-1"}}']),
                        "Store[1]#1": ("duplicated", ['{"id":{"S":"m-2"}}']),
                        "Audit#1": ("same", [])}
    assert [(e["state"], e["iteration"]) for e in report.baseline.ledger] == [("Store", 0), ("Store", 1),
                                                                               ("Audit", None)]


def test_concurrent_iterations_and_branches_get_their_own_writes(lab_server: ServerProcess) -> None:
    """Each write is attributed through its worker's own role session to the invocation it
    made, and that invocation to its task call: two at a time, each still lands on its own
    iteration or branch, and each lost answer duplicates its own order only."""
    lab = orders_lab(lab_server.url, "pv-conc", "counter", concurrent_template())
    orders = {"orders": [{"id": "c-1", "quantity": 1}, {"id": "c-2", "quantity": 2}]}
    report = prove(lab["state_machine"], orders, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["lost-response"])
    where = {e["key"]["id"]["S"]: (e["state"], e["iteration"], e["attempt"]) for e in report.baseline.ledger}
    assert where == {"c-1": ("Store", 0, 1), "c-2": ("Store", 1, 1), "audit": ("Audit", None, 1),
                     "bill": ("Bill", None, 1)}
    assert len({e["lambdaRequestId"] for e in report.baseline.ledger}) == 4
    verdicts = {r.point: (r.verdict, [d.key for d in r.differences]) for r in report.runs}
    assert verdicts == {"Store[0]#1": ("duplicated", ['{"id":{"S":"c-1"}}']),
                        "Store[1]#1": ("duplicated", ['{"id":{"S":"c-2"}}']),
                        "Audit#1": ("duplicated", ['{"id":{"S":"audit"}}']),
                        "Bill#1": ("duplicated", ['{"id":{"S":"bill"}}'])}


def test_an_execution_running_in_the_users_store_keeps_running_there(lab_server: ServerProcess) -> None:
    template = {"StartAt": "Hold", "States": {"Hold": {"Type": "Wait", "Seconds": 3600, "Next": "Store"},
                                              "Store": {"Type": "Task", "Resource": "arn:aws:states:::lambda:invoke",
                                                        "Parameters": {"FunctionName": "WORKER_NAME",
                                                                       "Payload": {"id": "late", "quantity": 1}},
                                                        "End": True}}}
    waiting = orders_lab(lab_server.url, "pv-wait", "counter", template)
    sfn = client_factory(lab_server.url)("stepfunctions")
    arn = sfn.start_execution(stateMachineArn=waiting["state_machine_arn"], input="{}")["executionArn"]
    lab = orders_lab(lab_server.url, "pv-busy", "protected")
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, ignore_tables=[lab["attempts_table"]],
                   kinds=["re-execution"])
    assert report.safe
    assert sfn.describe_execution(executionArn=arn)["status"] == "RUNNING"  # stopped in the copy only
    sfn.stop_execution(executionArn=arn)


def test_seed_002_workflow_flaky_and_permanent_is_safe(lab_server: ServerProcess) -> None:
    lab = orders_lab(lab_server.url, "pv-retry", "starter")
    flaky = prove(lab["state_machine"], {**ORDER, "mode": "flaky"}, data=lab_server.data_dir,
                  ignore_tables=[lab["attempts_table"]])
    assert flaky.safe, flaky.summary()
    # The first attempt fails before the write and is retried: both attempts are fault points.
    assert {r.point for r in by_kind(flaky, "lost-response")} == {"StoreOrder#1", "StoreOrder#2", "ReadSummary#1"}
    permanent = prove(lab["state_machine"], {**ORDER, "mode": "permanent"}, data=lab_server.data_dir,
                      ignore_tables=[lab["attempts_table"]])
    assert permanent.safe and permanent.baseline.outcomes == ["FAILED"]
    assert permanent.business_tables == [] and "trivially" in permanent.summary()


@pytest.mark.parametrize("args, message", [
    (["pv-bad-nope", "--input", "{}"], "state machine 'pv-bad-nope' does not exist"),
    (["pv-bad-orders", "--input", "{not json"], "input is not JSON"),
    (["pv-bad-orders", "--input", "{}", "--business-table", "no-such-table"], "table 'no-such-table' does not exist"),
    (["pv-bad-orders", "--input", "{}", "--faults", "lost-response,gremlins"], "unknown fault kind 'gremlins'"),
    (["pv-bad-orders", "--input", "{}", "--endpoint", "http://127.0.0.1:1"], "pass --data DIR"),
])
def test_bad_input_is_one_line_and_exit_2(lab_server: ServerProcess, args: list[str], message: str) -> None:
    if not any(m["name"] == "pv-bad-orders" for m in
               client_factory(lab_server.url)("stepfunctions").list_state_machines()["stateMachines"]):
        orders_lab(lab_server.url, "pv-bad", "protected")
    extra = [] if "--endpoint" in args else ["--data", str(lab_server.data_dir)]
    done = run_cli(*args, *extra)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("onceflow prove:")]
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert done.stdout == ""


def test_prove_error_from_python_for_a_baseline_store_that_is_missing(tmp_path: Path) -> None:
    import onceflow.prove

    with pytest.raises(ProveError, match="no onceflow store"):
        onceflow.prove("x", {}, data=tmp_path / "nothing-here")  # the module is callable: the spelling
    assert not (tmp_path / "nothing-here").exists()
