"""The AWS-recorded Step Functions corpus (../shared/conformance/sfn) for the pure-language tests.

`load(group)` yields the recorded cases; `matches(expected, actual)` compares JSON values the
way the corpus runner does (type-strict, `<placeholder>` tokens match any text);
`run_simple(case)` plays a definition made only of Pass/Choice/Succeed/Fail states through the
asl functions, so the cases that need no engine (no Task, Wait, Map, Parallel) check the
language pieces together, including AWS's cause texts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from onceflow.sfn.asl.choice import evaluate_choice_rule
from onceflow.sfn.asl.errors import PathNotFound, StateDataError, StatesError
from onceflow.sfn.asl.jsonata import evaluate_jsonata, evaluate_template, is_jsonata
from onceflow.sfn.asl.paths import apply_input_path, apply_result_path, resolve_path, to_json
from onceflow.sfn.asl.payload import evaluate_payload_template
from shared_data import SFN_CORPUS as CORPUS

_TOKEN = re.compile(r"<[A-Za-z0-9_:\-. ]{1,80}>|snf_role_arn|111111111111")
SIMPLE_TYPES = {"Pass", "Choice", "Succeed", "Fail"}


def load(*groups: str, kinds: tuple[str, ...] = ("execution",)) -> list[dict]:
    out = []
    for group in groups:
        for f in sorted((CORPUS / "cases").glob(f"{group}/*.json")):
            case = json.loads(f.read_text())
            if case["kind"] in kinds:
                out.append(case)
    return out


def ids(cases: list[dict]) -> list[str]:
    return [c["id"] for c in cases]


def matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str):
        if not isinstance(actual, str):
            return False
        if expected == actual or expected in ("date", "timestamp"):
            return True
        parts = _TOKEN.split(expected)
        pattern = ".+?".join(re.escape(p) for p in parts)
        return re.fullmatch(pattern, actual, re.S) is not None
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and \
            all(matches(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and \
            all(matches(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, (int, float)):
        return not isinstance(actual, bool) and isinstance(actual, (int, float)) and \
            isinstance(expected, float) == isinstance(actual, float) and expected == actual
    return bool(expected == actual)


def is_simple(case: dict) -> bool:
    return all(s.get("Type") in SIMPLE_TYPES for s in case["definition"]["States"].values())


def context_object(case: dict, state_name: str, entered_id: int) -> dict:
    return {"Execution": {"Id": "arn:aws:states:us-east-1:111111111111:execution:machine-x:exec-y",
                          "Input": case["input"], "StartTime": "2024-01-01T00:00:00.000Z",
                          "Name": "exec-y", "RoleArn": "arn:aws:iam::111111111111:role/r",
                          "RedriveCount": 0},
            "StateMachine": {"Id": "arn:aws:states:us-east-1:111111111111:stateMachine:machine-x",
                             "Name": "machine-x"},
            "State": {"Name": state_name, "EnteredTime": "2024-01-01T00:00:00.000Z"}}


def run_simple(case: dict) -> tuple[str, Any, str | None, str | None]:
    """(status, output, error, cause) of a Pass/Choice/Succeed/Fail-only definition."""
    definition = case["definition"]
    top_lang = definition.get("QueryLanguage", "JSONPath")
    name, data, variables, event_id = definition["StartAt"], case["input"], {}, 2
    while True:
        state = definition["States"][name]
        lang = state.get("QueryLanguage", top_lang)
        ctx = context_object(case, name, event_id)
        try:
            nxt, data, assigned = _step(state, lang, data, ctx, variables)
        except StatesError as e:
            err = e.in_state(name, event_id) if isinstance(e, StateDataError) else e
            return "FAILED", None, err.error, err.cause
        variables = {**variables, **assigned}
        if nxt is None:
            return "SUCCEEDED", data, None, None
        name, event_id = nxt, event_id + 2


def _step(state: dict, lang: str, data: Any, ctx: dict, variables: dict) -> tuple[Any, Any, dict]:
    stype = state["Type"]
    if stype == "Fail":
        raise _fail_error(state, lang, data, ctx, variables)
    if lang == "JSONata":
        return _step_jsonata(state, data, ctx, variables)
    effective = apply_input_path(state.get("InputPath", "$"), data, ctx, variables)
    if stype == "Choice":
        nxt, rule = _choose(state, effective, ctx, variables)
        assigned = _assign_jsonpath(state, rule, effective, ctx, variables)
        return nxt, _output_path(state, effective, ctx, variables), assigned
    if stype == "Succeed":
        return None, _output_path(state, effective, ctx, variables), {}
    result = effective
    if "Parameters" in state:
        result = evaluate_payload_template(state["Parameters"], effective, ctx, variables)
    if "Result" in state:
        result = state["Result"]
    assigned = _assign(state.get("Assign"), result, ctx, variables)
    combined = apply_result_path(state.get("ResultPath", "$"), data, result)
    return _next(state), _output_path(state, combined, ctx, variables), assigned


def _step_jsonata(state: dict, data: Any, ctx: dict, variables: dict) -> tuple[Any, Any, dict]:
    states = {"input": data, "context": ctx}
    if state["Type"] == "Choice":
        for rule in state["Choices"]:
            if evaluate_choice_rule(rule, data, ctx, variables, states=states):
                return rule["Next"], data, _assign_jsonata(rule.get("Assign"), states, variables)
        if "Default" not in state:
            raise StatesError("States.NoChoiceMatched", "")
        return state["Default"], data, _assign_jsonata(state.get("Assign"), states, variables)
    result = data
    if "Result" in state:
        result = state["Result"]
    states = {"input": data, "context": ctx, "result": result}
    out = evaluate_template(state["Output"], states, variables, field="Output") if "Output" in state else result
    return _next(state), out, _assign_jsonata(state.get("Assign"), states, variables)


def _assign_jsonata(assign: Any, states: dict, variables: dict) -> dict:
    return evaluate_template(assign, states, variables, field="Assign") if assign else {}


def _choose(state: dict, data: Any, ctx: dict, variables: dict) -> tuple[str, dict]:
    for rule in state["Choices"]:
        if evaluate_choice_rule(rule, data, ctx, variables):
            return rule["Next"], rule
    if "Default" not in state:
        raise StatesError("States.NoChoiceMatched", "")
    return state["Default"], state


def _assign_jsonpath(state: dict, rule: dict, data: Any, ctx: dict, variables: dict) -> dict:
    return _assign(rule.get("Assign"), data, ctx, variables)


def _assign(assign: Any, data: Any, ctx: dict, variables: dict) -> dict:
    return evaluate_payload_template(assign, data, ctx, variables) if assign else {}


def _next(state: dict) -> str | None:
    return None if state.get("End") or state["Type"] == "Succeed" else state["Next"]


def _output_path(state: dict, data: Any, ctx: dict, variables: dict) -> Any:
    return apply_input_path(state.get("OutputPath", "$"), data, ctx, variables)


def _fail_error(state: dict, lang: str, data: Any, ctx: dict, variables: dict) -> StatesError:
    values: dict[str, str | None] = {}
    for key in ("Error", "Cause"):
        if lang == "JSONata" and is_jsonata(state.get(key)):
            values[key] = evaluate_jsonata(state[key], {"input": data, "context": ctx}, variables, field=key)
        elif key + "Path" in state:
            try:
                values[key] = resolve_path(state[key + "Path"], data, ctx, variables)
            except PathNotFound as e:
                return e.for_field(key + "Path", to_json(data))
        else:
            values[key] = state.get(key)
    return FailState(values["Error"], values["Cause"])


class FailState(StatesError):
    """A Fail state's outcome: AWS omits the error or cause it did not set."""

    def __init__(self, error: str | None, cause: str | None) -> None:
        super().__init__(error or "", cause or "")
        self.error, self.cause = error, cause  # type: ignore[assignment]
