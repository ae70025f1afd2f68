"""A program (StartAt + States) and the states without effects: Pass, Choice, Wait, Succeed, Fail.

Each state handler is a generator: it emits its events through the scope, yields effects when it
must wait, and returns (next state name or None, output). A failure leaves as a StatesError
(`Failure` for a Fail state, whose error and cause may each be absent).
"""

from __future__ import annotations

from typing import Any

from onceflow.sfn.asl.choice import evaluate_choice_rule
from onceflow.sfn.asl.errors import PathNotFound, StateDataError, StatesError
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic, is_intrinsic, java_text
from onceflow.sfn.asl.jsonata import expression_text
from onceflow.sfn.asl.nodes import Program, State
from onceflow.sfn.asl.paths import resolve_path, to_json
from onceflow.sfn.asl.timestamps import parse_wait_timestamp
from onceflow.sfn.engine.effects import Fx, Sleep
from onceflow.sfn.engine.states.common import (
    Scope,
    assign,
    context_object,
    enter_state,
    exit_state,
    fail_in_state,
    input_path,
    jsonata_value,
    output_path,
    result_path,
    states_binding,
    template,
    transition,
)


class Failure(StatesError):
    """A Fail state (or a failure passed up from one): error and cause are each optional."""

    def __init__(self, error: str | None, cause: str | None) -> None:
        super().__init__(error or "", cause or "")
        self.error = error  # type: ignore[assignment]
        self.cause = cause  # type: ignore[assignment]


def run_program(scope: Scope, program: Program, state_input: Any) -> Fx:
    name = program.start_at
    handlers = scope.handlers
    while True:
        state = program.states[name]
        handler = handlers[state.type]
        if handler is pass_state and _plain_pass(state):
            nxt, state_input = state.next, plain_pass(scope, state, state_input)  # no generator to make
        else:
            nxt, state_input = yield from handler(scope, state, state_input)
        if nxt is None:
            return state_input
        name = nxt


# ---------------------------------------------------------------------- Pass
_PLAIN_PASS = frozenset({"InputPath", "Parameters", "Assign", "OutputPath"})


# Fields that make a JSONPath Pass do more than hand its input on (their absence: the defaults
# InputPath "$", no Result, ResultPath "$", OutputPath "$", no Assign give back the input itself).
_DATA_FIELDS = frozenset({"InputPath", "Parameters", "Result", "ResultPath", "OutputPath", "Assign"})


def _plain_pass(state: State) -> bool:
    return state.query_language != "JSONata" and _DATA_FIELDS.isdisjoint(state.fields)


def plain_pass(scope: Scope, state: State, raw: Any) -> Any:
    """A plain Pass (most of a chain): its two events, no context object, no path to apply; the output."""
    name = state.name
    return exit_state(scope, "Pass", name, enter_state(scope, "Pass", name, raw)[1], None)


def pass_state(scope: Scope, state: State, raw: Any) -> Fx:
    if _plain_pass(state):
        return transition(state, plain_pass(scope, state, raw))
    name = state.name
    entered, raw = enter_state(scope, "Pass", name, raw)
    jsonata = state.query_language == "JSONata"
    # Only these fields can read the context object in a JSONPath Pass: without them it is not built.
    ctx = context_object(scope, name, entered) if jsonata or not _PLAIN_PASS.isdisjoint(state.fields) else {}
    variables = scope.variables
    try:
        if jsonata:
            states = states_binding(raw, ctx)
            assigned = assign(state, "JSONata", None, ctx, variables, states)
            output = jsonata_value(state["Output"], states, variables, "Output") if "Output" in state else raw
        else:
            fields = state.fields
            data = input_path(state, raw, ctx, variables)
            if "Parameters" in fields:
                data = template(fields["Parameters"], data, ctx, variables)
            result = fields["Result"] if "Result" in fields else data
            assigned = assign(state, "JSONPath", result, ctx, variables, None)
            output = output_path(state, result_path(state, raw, result), ctx, variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    output = exit_state(scope, "Pass", name, output, assigned)
    return transition(state, output)
    yield  # pragma: no cover - makes this a generator


# ---------------------------------------------------------------------- Choice
def choice_state(scope: Scope, state: State, raw: Any) -> Fx:
    name = state.name
    entered, raw = enter_state(scope, "Choice", name, raw)
    ctx = context_object(scope, name, entered)
    variables = scope.variables
    ql = state.query_language
    try:
        states = states_binding(raw, ctx) if ql == "JSONata" else None
        data = raw if ql == "JSONata" else input_path(state, raw, ctx, variables)
        matched = None
        for rule in state.get("Choices", []):
            if evaluate_choice_rule(rule, data, ctx, variables, states):
                matched = rule
                break
        if matched is None and "Default" not in state:
            raise StatesError("States.NoChoiceMatched", "No Matches!")
        source = matched if matched is not None else state
        nxt = source["Next"] if matched is not None else state["Default"]
        assigned = assign(source, ql, data, ctx, variables, states)
        if ql == "JSONata":
            out_spec = source.get("Output", state.get("Output")) if matched is not None else state.get("Output")
            output = raw if out_spec is None else jsonata_value(out_spec, states or {}, variables, "Output")
        else:
            output = output_path(state, data, ctx, variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    output = exit_state(scope, "Choice", name, output, assigned)
    return nxt, output
    yield  # pragma: no cover


# ---------------------------------------------------------------------- Wait
def _wait_seconds_error(text: Any) -> StateDataError:
    # The expression is quoted without its {% %}, as in every message AWS recorded; the rest of the
    # sentence is UNCONFIRMED (no recording of a JSONata Seconds of the wrong type was found).
    expr = expression_text(text) if isinstance(text, str) else to_json(text)
    err = StateDataError("States.QueryEvaluationError", f"The JSONata expression '{expr}' specified for the field "
                                                        "'Seconds' returned an unexpected result type.")
    err.location = "Seconds"  # type: ignore[attr-defined]
    return err


def _wait_timestamp_error(value: Any) -> StateDataError:
    # [AWS] recorded for a JSONata Timestamp that is no RFC 3339 date-time, with EvaluationFailed's
    # location "Timestamp"
    err = StateDataError("States.QueryEvaluationError", "The Timestamp field cannot be parsed as an ISO-8601 "
                                                        f"extended offset date-time format string: {java_text(value)}")
    err.location = "Timestamp"  # type: ignore[attr-defined]
    return err


def _wait_target(scope: Scope, state: State, data: Any, ctx: dict[str, Any], entered_ts: float,
                 ql: str, states: dict[str, Any] | None) -> float:
    """The nominal wake-up time (epoch seconds) the Wait state asks for."""
    variables = scope.variables
    if ql == "JSONata":
        if "Seconds" in state:
            secs = jsonata_value(state["Seconds"], states or {}, variables, "Seconds")
            if not isinstance(secs, int) or isinstance(secs, bool) or secs < 0:
                raise _wait_seconds_error(state["Seconds"])
            return entered_ts + secs
        ts = jsonata_value(state["Timestamp"], states or {}, variables, "Timestamp")
        target = parse_wait_timestamp(ts)
        if target is None:
            raise _wait_timestamp_error(ts)
        return target
    if "Seconds" in state:
        return entered_ts + state["Seconds"]
    if "Timestamp" in state:
        return parse_wait_timestamp(state["Timestamp"]) or entered_ts
    if "SecondsPath" in state:
        path = state["SecondsPath"]
        try:
            value = resolve_path(path, data, ctx, variables)
        except PathNotFound:  # AWS's words (LocalStack's test_logs recordings, wait_seconds_path)
            raise StateDataError("States.Runtime",
                                 f"The SecondsPath parameter does not reference an input value: {path}") from None
        if not isinstance(value, int) or isinstance(value, bool):
            raise StateDataError("States.Runtime", "The SecondsPath parameter cannot be parsed as a long value: "
                                                   f"{path} == {java_text(value)}")
        if value < 0:
            raise StateDataError("States.Runtime",
                              f"The SecondsPath parameter references a negative value: {path} == {java_text(value)}")
        return entered_ts + value
    path = state["TimestampPath"]
    value = resolve_path(path, data, ctx, variables)
    target = parse_wait_timestamp(value)
    if target is None:
        raise StateDataError("States.Runtime",
                          "The TimestampPath parameter does not reference a valid ISO-8601 extended offset "
                          f"date-time format string: {path} == {java_text(value)}")
    return target


def wait_state(scope: Scope, state: State, raw: Any) -> Fx:
    name = state.name
    entered, raw = enter_state(scope, "Wait", name, raw)
    ctx = context_object(scope, name, entered)
    variables = scope.variables
    ql = state.query_language
    try:
        states = states_binding(raw, ctx) if ql == "JSONata" else None
        data = raw if ql == "JSONata" else input_path(state, raw, ctx, variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    try:
        target = _wait_target(scope, state, data, ctx, entered.ts, ql, states)
    except StatesError as e:  # recorded as following the WaitStateEntered event, unlike other states' failures
        raise fail_in_state(scope, name, entered, e, after_entered=True) from None
    try:
        assigned = assign(state, ql, data, ctx, variables, states)
        if ql == "JSONata":
            output = jsonata_value(state["Output"], states or {}, variables, "Output") if "Output" in state else raw
        else:
            output = output_path(state, data, ctx, variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    yield Sleep(scope.rt.wait_due(entered.ts, target))
    output = exit_state(scope, "Wait", name, output, assigned)
    return transition(state, output)


# ---------------------------------------------------------------------- Succeed / Fail
def succeed_state(scope: Scope, state: State, raw: Any) -> Fx:
    name = state.name
    entered, raw = enter_state(scope, "Succeed", name, raw)
    ctx = context_object(scope, name, entered)
    try:
        if state.query_language == "JSONata":
            states = states_binding(raw, ctx)
            output = jsonata_value(state["Output"], states, scope.variables, "Output") if "Output" in state else raw
        else:
            output = output_path(state, input_path(state, raw, ctx, scope.variables), ctx, scope.variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    output = exit_state(scope, "Succeed", name, output, None)
    return None, output
    yield  # pragma: no cover


def fail_state(scope: Scope, state: State, raw: Any) -> Fx:
    name = state.name
    entered, raw = enter_state(scope, "Fail", name, raw)
    ctx = context_object(scope, name, entered)
    variables = scope.variables
    try:
        if state.query_language == "JSONata":
            states = states_binding(raw, ctx)
            error = jsonata_value(state["Error"], states, variables, "Error") if "Error" in state else None
            cause = jsonata_value(state["Cause"], states, variables, "Cause") if "Cause" in state else None
        else:
            error = _fail_field(state, "Error", raw, ctx, variables)
            cause = _fail_field(state, "Cause", raw, ctx, variables)
    except StatesError as e:
        raise fail_in_state(scope, name, entered, e) from None
    raise Failure(error, cause)
    yield  # pragma: no cover


def _fail_field(state: State, field: str, raw: Any, ctx: dict[str, Any], variables: dict[str, Any]) -> Any:
    if field in state:
        return state[field]
    path = state.get(f"{field}Path")
    if path is None:
        return None
    try:
        if is_intrinsic(path):
            value = evaluate_intrinsic(path, raw, ctx, variables)
        else:
            value = resolve_path(path, raw, ctx, variables)
    except PathNotFound as e:
        raise e.for_field(f"{field}Path", to_json(raw)) from None
    return value if isinstance(value, str) else to_json(value)
