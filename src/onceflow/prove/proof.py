"""One proof: the baseline run, then one run per (fault point, kind), each from the same starting
state in the private sandbox, each judged by the oracle against the baseline."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from onceflow.config import default_data_dir
from onceflow.prove import plans, records
from onceflow.prove.crash import CrashRun, crash_rule
from onceflow.prove.effects import S3, SQS, Effects, Snapshot
from onceflow.prove.model import DEFAULT_KINDS, KINDS, REPLACED, SAME, TIME_SCALE, ProveError, Report, Run
from onceflow.prove.oracle import judge, strip, swallowed_conflict
from onceflow.prove.sandbox import Sandbox

RUN_TIMEOUT_S = 120.0  # a run still going after this is stopped and reported TIMED_OUT
AIM_TRIES = 4  # runs of a task point whose nth-call rule may fire at a concurrent sibling's call
TASK_KINDS = ("lost-response", "fail-before", "timeout", "duplicate-delivery")
Progress = Callable[[int, int, Run], None]
Planned = tuple[str, str, str | None, list[dict[str, Any]], list[str]]  # kind, point, state, plan, inputs


def prove(state_machine: str, input: Any, *, endpoint: str | None = None, data: str | Path | None = None,
          business_tables: Iterable[str] = (), ignore_tables: Iterable[str] = (),
          ignore_attributes: Iterable[str] = (), kinds: Iterable[str] | None = None,
          conflict_input: Any = None, time_scale: float = TIME_SCALE, progress: Progress | None = None) -> Report:
    """Prove `state_machine` on `input` (a JSON value, or its text). Raises ProveError for bad input."""
    chosen = _kinds(kinds)
    ignored_attrs = _ignored_attributes(ignore_attributes)
    text = _json_text(input, "input")
    conflict_text = None if conflict_input is None else _json_text(conflict_input, "--conflict-input")
    source = _store_path(endpoint, data)
    if not time_scale > 0:
        raise ProveError("--time-scale must be greater than 0")
    sandbox = Sandbox(source, time_scale=time_scale).start()
    where = (sandbox.settings.account_id, sandbox.settings.default_region)
    try:
        report = _Proof(sandbox, chosen, ignored_attrs, progress, CrashRun(source, time_scale, where)).run(
            state_machine, text, conflict_text, list(business_tables), list(ignore_tables))
    finally:
        sandbox.close()
    _keep(report, source.parent)
    return report


def _keep(report: Report, data_dir: Path) -> None:
    """Leave the report where the data folder's console reads it (prove/records.py). A folder the
    prover may not write to costs the console page, not the proof."""
    now = datetime.now(UTC)
    report.id, report.created = records.new_id(now), now.isoformat(timespec="seconds")
    try:
        report.saved = str(records.save(report.as_dict(), data_dir))
    except OSError:
        report.saved = None


def _kinds(kinds: Iterable[str] | None) -> list[str]:
    if kinds is None:
        return list(DEFAULT_KINDS)
    chosen = [k.strip() for k in kinds if k.strip()]
    for kind in chosen:
        if kind not in KINDS:
            raise ProveError(f"unknown fault kind {kind!r}; choose from {', '.join(KINDS)}")
    if not chosen:
        raise ProveError(f"no fault kind given; choose from {', '.join(KINDS)}")
    return chosen


def _ignored_attributes(given: Iterable[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for pair in given:
        table, dot, attr = pair.partition(".")
        if not dot or not table or not attr:
            raise ProveError(f"--ignore-attribute takes TABLE.ATTRIBUTE, not {pair!r}")
        out.setdefault(table, set()).add(attr)
    return out


def _json_text(value: Any, what: str) -> str:
    if isinstance(value, str):
        try:
            json.loads(value)
        except ValueError as exc:
            raise ProveError(f"{what} is not JSON: {exc}") from None
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ProveError(f"{what} cannot be written as JSON: {exc}") from None


def _store_path(endpoint: str | None, data: str | Path | None) -> Path:
    if data is not None:
        return Path(data) / "onceflow.db"
    if endpoint is not None:
        # The API has no way to hand over a consistent copy of a running server's store; proving
        # against the live server would write into the user's state, which prove must never do.
        raise ProveError(f"onceflow prove works on a copy of a server's store: pass --data DIR, the data folder of "
                         f"the server at {endpoint} (it may keep running; it is only read)")
    return default_data_dir() / "onceflow.db"


class _Proof:
    def __init__(self, sandbox: Sandbox, kinds: list[str], ignored_attrs: dict[str, set[str]],
                 progress: Progress | None, crash: CrashRun) -> None:
        self.box = sandbox
        assert sandbox.stack is not None
        self.crash = crash
        self.kinds = kinds
        self.ignored_attrs = ignored_attrs
        self.progress = progress
        self.sfn = sandbox.client("stepfunctions")
        self.tables = Effects(sandbox.client("dynamodb"), sandbox.client("s3"), sandbox.stack.db,
                              sandbox.settings.account_id, sandbox.settings.default_region)
        self.faults = sandbox.stack.ports.faults()
        assert sandbox.ledger is not None
        self.ledger = sandbox.ledger
        self.token = uuid.uuid4().hex[:8]
        self.count = 0
        self.dirty: set[str] = set()  # tables some run wrote: put back before the next run

    # ------------------------------------------------------------------ the whole proof
    def run(self, state_machine: str, text: str, conflict: str | None, business: list[str],
            ignore: list[str]) -> Report:
        started = time.monotonic()
        self.arn = self._state_machine(state_machine)
        described = self.sfn.describe_state_machine(stateMachineArn=self.arn)
        self.role_arn = str(described["roleArn"])
        self._stop_copied_executions()
        names = self.tables.names()
        for table in [*business, *ignore, *self.ignored_attrs]:
            if table not in names:
                raise ProveError(f"table {table!r} does not exist in the store (queues are sqs:NAME, buckets s3:NAME)")
        self.initial_all = self.tables.snapshot(names, keep=True)
        self.faults.clear()  # the copy's own rules are the user's business, not this proof's
        self.text = text
        baseline = self._execute("baseline", "-", [], [text])
        if any(o in ("RUNNING", "TIMED_OUT_WAITING") for o in baseline.outcomes):
            raise ProveError(f"the baseline run did not finish in {RUN_TIMEOUT_S:.0f} s ({baseline.executions[0]})")
        written: set[str] = {e["table"] for e in baseline.ledger}
        # Queues and buckets other services wrote for the workflow (a topic's publish delivered to
        # a subscribed queue): not in the ledger, but the baseline changed them.
        delivered = [n for n in names if n.startswith((SQS, S3)) and n not in written]
        after = self.tables.snapshot(delivered)
        changed = sorted(written | {n for n in delivered if after[n] != self.initial_all.get(n)})
        self.business = sorted(set(business or changed) - set(ignore))
        self.dirty |= {n for n in changed if n.startswith((SQS, S3))}  # delivered ones: no ledger entry says so
        self.initial = strip({t: self.initial_all[t] for t in self.business}, self.ignored_attrs)
        self.expected = strip(self.tables.snapshot(self.business), self.ignored_attrs)
        self.baseline_status = baseline.outcomes[0]
        history = self._history(baseline.executions[0])
        if any(e["type"] == "TaskTimedOut" for e in history):
            raise ProveError(f"a task of the baseline run timed out at --time-scale {self.box.settings.time_scale:g} "
                             f"(its TimeoutSeconds divided by it): prove with a smaller --time-scale")
        runs: list[Run] = []
        todo = self._plans(history, baseline, conflict)
        for n, (kind, point, state, plan, inputs) in enumerate(todo, 1):
            if kind == "crash":
                run, got = self._execute_crash(point, plan)
            else:
                run, got = self._aimed(kind, point, plan, inputs), None
            run.state = state if run.state is None else run.state
            self._judge(run, conflict=kind == "conflict-input", got=got)
            runs.append(run)
            if self.progress is not None:
                self.progress(n, len(todo), run)
        return Report(self.arn, json.loads(text), self.business, baseline, runs, time.monotonic() - started,
                      definition=str(described.get("definition", "")))

    def _plans(self, history: list[dict[str, Any]], baseline: Run, conflict: str | None) -> list[Planned]:
        calls = plans.task_calls(history)
        sfn_role = plans.role_of(self._role_session())
        writes = plans.handler_writes(baseline.ledger, set(self.business), {sfn_role} if sfn_role else set())
        out: list[Planned] = []
        one = [self.text]
        for call in calls:
            if "lost-response" in self.kinds:
                out.append(("lost-response", call.point, call.state, plans.lost_response(call), one))
            if "fail-before" in self.kinds:
                out.append(("fail-before", call.point, call.state, plans.fail_before(call), one))
            held = plans.timeout(call, self.box.settings.time_scale)
            if "timeout" in self.kinds and held is not None:
                out.append(("timeout", call.point, call.state, held, one))
            if "crash" in self.kinds:
                out.append(("crash", call.point, call.state, [crash_rule(r) for r in plans.lost_response(call)], one))
            dup = plans.duplicate_delivery(call)
            if "duplicate-delivery" in self.kinds and dup is not None:
                out.append(("duplicate-delivery", call.point, call.state, dup, one))
        if "fail-after-write" in self.kinds:
            for write in writes:
                rules = plans.fail_after_write(write, baseline.calls, baseline.invocations)
                if rules is not None:
                    out.append(("fail-after-write", write.point, write.state, rules, one))
        if "re-execution" in self.kinds:
            out.append(("re-execution", "workflow", None, [], [self.text, self.text]))
        if "concurrent-execution" in self.kinds:
            out.append(("concurrent-execution", "workflow", None, [], ["concurrent", self.text, self.text]))
        if conflict is not None:
            out.append(("conflict-input", "workflow", None, [], [self.text, conflict]))
        return out

    # ------------------------------------------------------------------ one run
    def _aimed(self, kind: str, point: str, plan: list[dict[str, Any]], inputs: list[str]) -> Run:
        """A task point's run, made again (up to AIM_TRIES) when its fault fired at another call:
        a rule counts the nth call of its kind, and concurrent branches or iterations race for
        it. A run that still missed is reported where its fault fired, "aimed at" its point."""
        run = self._execute(kind, point, plan, inputs)
        if kind not in TASK_KINDS:
            return run
        for attempt in range(AIM_TRIES):
            fired = self._fired_at(run)
            if fired is None or fired[0] == point:
                return run
            if attempt + 1 < AIM_TRIES:
                run = self._execute(kind, point, plan, inputs)
        assert fired is not None  # the loop returned on every other path
        run.point, run.state = f"{fired[0]} (aimed at {point})", fired[1]
        return run

    def _fired_at(self, run: Run) -> tuple[str, str] | None:
        """(the point, its state) of the task call the run's fault fired at, from the faults log
        group (each injected fault's request id) and the ledger (which task made that call)."""
        from onceflow.faults.engine import LOG_GROUP

        try:
            events = self.box.client("logs").filter_log_events(logGroupName=LOG_GROUP,
                                                               startTime=run.started_ms)["events"]
        except ClientError:
            return None
        tasks = {i["requestId"]: (i["execution"], i["taskId"]) for i in run.invocations if i.get("execution")}
        tasks.update({e["requestId"]: (e["execution"], e["taskId"]) for e in run.ledger
                      if e.get("execution") and not e.get("lambdaRequestId")})
        for event in events:
            where = tasks.get(json.loads(event["message"]).get("requestId"))
            if where is None:
                continue
            for call in plans.task_calls(self._history(where[0])):
                if call.started_id == where[1]:
                    return call.point, call.state
        return None

    def _execute(self, kind: str, point: str, plan: list[dict[str, Any]], inputs: list[str]) -> Run:
        started = time.monotonic()
        for table in sorted(self.dirty):
            self.tables.restore(table, self.initial_all.get(table, {}))
        self.faults.clear()
        self.ledger.reset()
        run = Run(kind, point, plan)
        run.started_ms = int(time.time() * 1000) - 1  # the faults log's clock: milliseconds
        if plan:
            self.faults.replace(plan)
        concurrent = inputs[:1] == ["concurrent"]
        if concurrent:
            arns = [self._start(i) for i in inputs[1:]]
            run.outcomes = [self._wait(a) for a in arns]
            run.executions = arns
        else:
            for text in inputs:
                arn = self._start(text)
                run.executions.append(arn)
                run.outcomes.append(self._wait(arn))
        self.faults.clear()
        run.ledger, run.invocations, run.calls = self.ledger.reset()
        self.dirty |= {e["table"] for e in run.ledger}
        self._attribute(run)
        run.seconds = time.monotonic() - started
        return run

    def _attribute(self, run: Run) -> None:
        """Give each write its execution's state, attempt and Map iteration: the ledger names the
        task call (execution, TaskStarted event id) that made it or whose invocation did, and the
        execution's history names the state of that event."""
        calls: dict[tuple[str, int], plans.TaskCall] = {}
        for arn in {e["execution"] for e in run.ledger if e.get("execution")}:
            calls.update({(arn, c.started_id): c for c in plans.task_calls(self._history(arn)) if c.started_id})
        for entry in run.ledger:
            call = calls.get((entry.get("execution"), entry.get("taskId")))  # type: ignore[arg-type]
            entry.update({"state": call.state, "attempt": call.attempt, "iteration": call.iteration} if call else
                         {"state": None, "attempt": None, "iteration": None})
            entry["run"] = f"{run.kind} {run.point}"

    def _execute_crash(self, point: str, plan: list[dict[str, Any]]) -> tuple[Run, Snapshot]:
        started = time.monotonic()
        run = Run("crash", point, plan)
        self.count += 1
        name = f"prove-{self.token}-{self.count}"
        run.outcomes, run.executions, got = self.crash.run(plan, self.arn, self.text, name, self.business,
                                                           RUN_TIMEOUT_S)
        run.seconds = time.monotonic() - started
        return run, got

    def _judge(self, run: Run, *, conflict: bool, got: Snapshot | None = None) -> None:
        got = strip(got if got is not None else self.tables.snapshot(self.business), self.ignored_attrs)
        judged = run.outcomes[:1] if conflict else run.outcomes
        run.recovered = all(o == self.baseline_status for o in judged)
        keys = {t: k for t in self.business if (k := self.tables.key_names(t)) is not None}
        run.verdict, run.differences = judge(self.initial, self.expected, got, recovered=run.recovered,
                                             conflict=conflict, keys=keys)
        stored_elsewhere = any(set(got.get(t, {})) - set(items) for t, items in self.expected.items())
        if conflict and run.verdict == SAME and run.outcomes[1:] == ["SUCCEEDED"] and not stored_elsewhere:
            run.verdict, run.differences = REPLACED, swallowed_conflict(self.initial, self.expected)

    def _start(self, text: str) -> str:
        self.count += 1
        name = f"prove-{self.token}-{self.count}"
        return str(self.sfn.start_execution(stateMachineArn=self.arn, name=name, input=text)["executionArn"])

    def _wait(self, arn: str) -> str:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        pause = 0.002
        while time.monotonic() < deadline:
            status = str(self.sfn.describe_execution(executionArn=arn)["status"])
            if status != "RUNNING":
                return status
            time.sleep(pause)
            pause = min(pause * 1.5, 0.05)
        try:
            self.sfn.stop_execution(executionArn=arn, error="onceflow.prove", cause="the run did not finish")
        except ClientError:
            pass
        return "TIMED_OUT_WAITING"

    def _history(self, arn: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        for page in self.sfn.get_paginator("get_execution_history").paginate(executionArn=arn):
            events.extend(page["events"])
        return events

    def _stop_copied_executions(self) -> None:
        """Executions RUNNING in the user's store resume in the copy; stop them there (only there),
        so their writes do not mix with the proof's runs."""
        for page in self.sfn.get_paginator("list_state_machines").paginate():
            for machine in page["stateMachines"]:
                pages = self.sfn.get_paginator("list_executions").paginate(
                    stateMachineArn=machine["stateMachineArn"], statusFilter="RUNNING")
                for running in pages:
                    for execution in running["executions"]:
                        try:
                            self.sfn.stop_execution(executionArn=execution["executionArn"], error="onceflow.prove",
                                                    cause="stopped in onceflow prove's private copy only")
                        except ClientError:
                            pass  # it ended meanwhile

    def _state_machine(self, given: str) -> str:
        if given.startswith("arn:"):
            try:
                return str(self.sfn.describe_state_machine(stateMachineArn=given)["stateMachineArn"])
            except ClientError:
                raise ProveError(f"state machine {given} does not exist in the store") from None
        for page in self.sfn.get_paginator("list_state_machines").paginate():
            for machine in page["stateMachines"]:
                if machine["name"] == given:
                    return str(machine["stateMachineArn"])
        raise ProveError(f"state machine {given!r} does not exist in the store")

    def _role_session(self) -> str:
        """The state machine role's session ARN pattern (its DynamoDB tasks write through it)."""
        return f"arn:aws:sts::x:assumed-role/{self.role_arn.rsplit('/', 1)[-1]}/x"
