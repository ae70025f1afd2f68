"""What every state shares: the scope it runs in, the context object, input/output processing in
both query languages, Assign, and turning language errors into state failures.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from onceflow.sfn.asl.errors import StateDataError, StatesError
from onceflow.sfn.asl.jsonata import evaluate_template
from onceflow.sfn.asl.nodes import State
from onceflow.sfn.asl.paths import apply_result_path, resolve_path
from onceflow.sfn.asl.payload import MAX_PAYLOAD, evaluate_payload_template
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.effects import Fx
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.runner import Runtime

UNDEFINED: Any = object()

Handler = Callable[..., Fx]  # (scope, name, state, input) -> (next state or None, output)


@dataclass
class Scope:
    """One program run (the workflow, a Parallel branch, a Map iteration)."""

    rt: Runtime
    fiber: str
    variables: dict[str, Any]
    query_language: str  # the definition's default: JSONPath or JSONata
    handlers: Mapping[str, Handler]  # state type -> its handler (handed in at the root: no import circle)
    execution: dict[str, Any] | None = None  # a map run's child: its own Execution and StateMachine context
    children: int = field(default=0)
    # The last state output and its JSON text: the next state's input is that very object, so its
    # ...StateEntered (or the execution's output) reuses the text instead of encoding it again.
    last_output: tuple[Any, str] | None = None

    def encoded(self, value: Any) -> str:
        last = self.last_output
        return last[1] if last is not None and last[0] is value else ev.dumps(value)


_second: tuple[int, str] = (-1, "")  # the last whole second formatted (states enter many times a second)


def iso(ts: float) -> str:
    """Context-object timestamps: ISO 8601 with milliseconds and Z, as AWS shows them.

    The same text as datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    (microseconds rounded half to even, then cut to milliseconds), with the date and time of day
    formatted once per second: strftime was 8% of a chain of Pass states."""
    global _second
    frac, whole = math.modf(ts)
    us, sec = round(frac * 1e6), int(whole)
    if us >= 1_000_000:
        us, sec = us - 1_000_000, sec + 1
    cached = _second
    if cached[0] != sec:
        cached = _second = (sec, datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S."))
    return f"{cached[1]}{us // 1000:03d}Z"


def context_object(scope: Scope, name: str, entered: Event, retry_count: int | None = None,
                   token: str | None = None) -> dict[str, Any]:
    rt = scope.rt
    if rt.context_given is not None:  # TestState's context is $$ as given, nothing added (AWS)
        given = copy.deepcopy(rt.context_given)
        if token is not None and rt.context_adds_token:
            given["Task"] = {"Token": token}
        return given
    base = rt.context_base
    if base is None:  # what stays the same for the whole runtime (its row is fixed)
        row = rt.row
        base = rt.context_base = (row["arn"], iso(row["start"]), row["name"], row["role_arn"], row["redrive_count"],
                                  row["sm_arn"], row["sm_arn"].rsplit(":", 1)[1])
    arn, start, exec_name, role, redrives, sm_arn, sm_name = base
    ctx: dict[str, Any] = {  # fresh dicts every time: a state may hand them on in its output
        "Execution": {
            "Id": arn, "Input": rt.exec_input, "StartTime": start, "Name": exec_name,
            "RoleArn": role, "RedriveCount": redrives,
        },
        "StateMachine": {"Id": sm_arn, "Name": sm_name},
        "State": {"Name": name, "EnteredTime": iso(entered.ts)},
    }
    if isinstance(rt.row, dict) and rt.row.get("sync"):  # StartSyncExecution's runs have no RedriveCount
        del ctx["Execution"]["RedriveCount"]  # (test_express_sync; test_express_async's runs have it)
    if scope.execution is not None:
        ctx.update(scope.execution)
    if retry_count is not None:  # only states that can retry have it
        ctx["State"]["RetryCount"] = retry_count
    if token is not None:
        ctx["Task"] = {"Token": token}
    return ctx


def in_state(err: StatesError, name: str, entered: Event) -> StatesError:
    """Prefix a language error's cause with the state and the id of its ...StateEntered."""
    if isinstance(err, StateDataError):
        return err.in_state(name, entered.id)
    return err


def parse_recorded(value: str | None) -> Any:
    return None if value is None else json.loads(value)


# ---------------------------------------------------------------------- JSONPath processing
# (These read `state.fields` directly: a mapping lookup, no Python-level call per field.)
def input_path(state: State, raw: Any, ctx: dict[str, Any], variables: dict[str, Any]) -> Any:
    fields = state.fields
    if "InputPath" not in fields:
        return raw
    path = fields["InputPath"]
    if path is None:
        return {}
    return resolve_path(path, raw, ctx, variables)


def output_path(state: State, value: Any, ctx: dict[str, Any], variables: dict[str, Any]) -> Any:
    fields = state.fields
    if "OutputPath" not in fields:
        return value
    path = fields["OutputPath"]
    if path is None:
        return {}
    return resolve_path(path, value, ctx, variables)


def result_path(state: State, raw: Any, result: Any) -> Any:
    return apply_result_path(state.fields.get("ResultPath", "$"), raw, result)


def template(value: Any, data: Any, ctx: dict[str, Any], variables: dict[str, Any]) -> Any:
    return evaluate_payload_template(value, data, ctx, variables)


# ---------------------------------------------------------------------- JSONata processing
def states_binding(state_input: Any, ctx: dict[str, Any], result: Any = UNDEFINED,
                   error_output: Any = UNDEFINED) -> dict[str, Any]:
    b = {"input": state_input, "context": ctx}
    if result is not UNDEFINED:
        b["result"] = result
    if error_output is not UNDEFINED:
        b["errorOutput"] = error_output
    return b


def jsonata_value(value: Any, states: dict[str, Any], variables: dict[str, Any], location: str) -> Any:
    """Evaluate a JSONata-mode field (a `{% %}` string or a structure holding some)."""
    try:
        return evaluate_template(value, states, variables, field=location)
    except StateDataError as e:
        if getattr(e, "location", None) is None:
            m = _FIELD.search(e.cause)
            e.location = m.group(1) if m else location  # type: ignore[attr-defined]
        raise


_FIELD = re.compile(r"specified for the field '([^']*)'")


# ---------------------------------------------------------------------- Assign
def assign(state_or_rule: State | Mapping[str, Any], ql: str, data: Any, ctx: dict[str, Any], variables: dict[str, Any],
           states: dict[str, Any] | None) -> dict[str, Any] | None:
    """Evaluate Assign against the values before this state (all at once); None when absent."""
    spec = (state_or_rule.fields if isinstance(state_or_rule, State) else state_or_rule).get("Assign")
    if spec is None:
        return None
    if ql == "JSONata":
        out = {}
        for k, v in spec.items():
            out[k] = jsonata_value(v, states or {}, variables, f"Assign/{k}")
        return out
    return template(spec, data, ctx, variables)


def too_large(payload: str) -> bool:
    """The one payload limit: a state's input or output, a task's result, the execution's output."""
    return len(payload.encode()) > MAX_PAYLOAD


def data_limit(name: str) -> StatesError:
    return StatesError("States.DataLimitExceeded", f"The state/task '{name}' returned a result with a size "
                                                   "exceeding the maximum number of bytes service limit.")


def transition(state: State, output: Any) -> tuple[str | None, Any]:
    return state.next, output


def process_result(scope: Scope, state: State, raw: Any, ctx: dict[str, Any], result: Any,
                   ) -> tuple[Any, dict[str, Any] | None]:
    """A Task's, Map's or Parallel's result -> (state output, assigned variables): ResultSelector,
    Assign, ResultPath and OutputPath in JSONPath; Assign and Output in JSONata."""
    variables = scope.variables
    ql = state.query_language
    if ql == "JSONata":
        states = states_binding(raw, ctx, result=result)
        assigned = assign(state, ql, result, ctx, variables, states)
        output = jsonata_value(state["Output"], states, variables, "Output") if "Output" in state else result
        return output, assigned
    if "ResultSelector" in state:
        result = template(state["ResultSelector"], result, ctx, variables)
    assigned = assign(state, ql, result, ctx, variables, None)
    return output_path(state, result_path(state, raw, result), ctx, variables), assigned


_PURE = frozenset({"Pass", "Choice", "Wait", "Succeed"})


def exit_state(scope: Scope, type_: str, name: str, output: Any, assigned: dict[str, Any] | None) -> Any:
    """Emit <Type>StateExited; when replaying, the recorded output and variables are the truth."""
    # A state without effects that hands its input on as it is (a plain Pass, a Choice) has its
    # text already (a task's call could have changed its input object in place: it is encoded again).
    if type_ in _PURE and not assigned:
        details, stored = ev.exited_details(name, scope.encoded(output))
    else:
        details = ev.exited(name, output, assigned, scope.encoded(output) if type_ in _PURE else None)
        stored = None
    text = details["output"]
    if too_large(text):
        raise data_limit(name)
    rec = scope.rt.emit(scope.fiber, f"{type_}StateExited", details, text=stored)
    if rec.details is details:  # live
        if assigned:
            scope.variables.update(assigned)
        # Handed on unchanged: every handler returns this output as it is to run_program.
        scope.last_output = (output, text)
        return output
    d = rec.details or {}
    for k, v in (d.get("assignedVariables") or {}).items():
        scope.variables[k] = json.loads(v)
    return parse_recorded(d.get("output")) if "output" in d else output


def enter_state(scope: Scope, type_: str, name: str, state_input: Any) -> tuple[Event, Any]:
    details, stored = ev.entered_details(name, scope.encoded(state_input))
    rec = scope.rt.emit(scope.fiber, f"{type_}StateEntered", details, text=stored)
    if rec.details is details or rec.details is None or "input" not in rec.details:
        return rec, state_input
    return rec, parse_recorded(rec.details["input"])


def evaluation_failed(scope: Scope, name: str, entered: Event, err: StatesError, location: str | None, *,
                      after_entered: bool = False) -> None:
    details = {"error": err.error, "cause": err.cause}
    if location:
        details["location"] = location
    details["state"] = name
    # AWS records the event as following the state's entered event's own predecessor (Pass, Map),
    # but a Wait's as following its entered event (both as recorded).
    scope.rt.emit(scope.fiber, "EvaluationFailed", details, prev=entered.id if after_entered else entered.prev)


def fail_in_state(scope: Scope, name: str, entered: Event, err: StatesError, *,
                  after_entered: bool = False) -> StatesError:
    """A language error raised while a state processes data: prefix it; JSONata ones are recorded."""
    out = in_state(err, name, entered)
    if out.error == "States.QueryEvaluationError":
        evaluation_failed(scope, name, entered, out, getattr(err, "location", None), after_entered=after_entered)
    return out
