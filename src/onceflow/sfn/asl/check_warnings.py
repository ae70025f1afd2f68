"""ValidateStateMachineDefinition's static-analysis WARNINGs (returned with `severity=WARNING`).

[AWS] codes and wording from the API reference's example (ValidateStateMachineDefinition, "Validate
a state machine definition with static analysis"):
- NO_DOLLAR: a Parameters field whose value looks like a JSONPath but whose name lacks '.$';
- PASS_RESULT_IS_STATIC: a Pass state's Result field named '<x>.$' (Result is never evaluated);
- NO_PATH: a Fail state's Error or Cause that looks like a JSONPath (ErrorPath/CausePath evaluate).
Warnings never fail a definition. Only top-level fields of Parameters are looked at, the location
naming the Parameters object as the example does; nested fields, other selectors (ItemSelector,
ResultSelector) and intrinsic-function values are left out (UNCONFIRMED wording and locations).
JSONata states are skipped: they hold no JSONPath.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from onceflow.sfn.asl.diagnostics import Diagnostic


def warning_diagnostics(definition: dict[str, Any]) -> list[Diagnostic]:
    """The warnings of a parsed definition, state by state in definition order."""
    machine_language = definition.get("QueryLanguage", "JSONPath")
    return list(_container(definition, "", machine_language))


def _container(container: dict[str, Any], prefix: str, language: object) -> Iterator[Diagnostic]:
    states = container.get("States")
    if not isinstance(states, dict):
        return
    for name, state in states.items():
        if isinstance(state, dict):
            yield from _state(state, f"{prefix}/States/{name}", state.get("QueryLanguage", language))


def _state(state: dict[str, Any], loc: str, language: object) -> Iterator[Diagnostic]:
    if language == "JSONPath":
        yield from _no_dollar(state.get("Parameters"), f"{loc}/Parameters")
        if state.get("Type") == "Pass":
            yield from _static_result(state.get("Result"), f"{loc}/Result")
        if state.get("Type") == "Fail":
            for field in ("Error", "Cause"):
                if _looks_like_path(state.get(field)):
                    yield Diagnostic("WARNING", "NO_PATH", f"The value of '{field}' looks like a JSONPath. Instead of "
                                     f"'{field}', use '{field}Path' to evaluate it as a JSONPath at runtime.",
                                     f"{loc}/{field}")
    for key in ("ItemProcessor", "Iterator"):
        if isinstance(state.get(key), dict):
            yield from _container(state[key], f"{loc}/{key}", language)
    branches = state.get("Branches")
    if isinstance(branches, list):
        for i, branch in enumerate(branches):
            if isinstance(branch, dict):
                yield from _container(branch, f"{loc}/Branches[{i}]", language)


def _no_dollar(parameters: object, loc: str) -> Iterator[Diagnostic]:
    if not isinstance(parameters, dict):
        return
    for key, value in parameters.items():
        if not key.endswith(".$") and _looks_like_path(value):
            yield Diagnostic("WARNING", "NO_DOLLAR", f"The value of '{key}' looks like a JSONPath. Instead of "
                             f"'{key}', use '{key}.$' to evaluate it as a JSONPath at runtime.", loc)


def _static_result(result: object, loc: str) -> Iterator[Diagnostic]:
    if not isinstance(result, dict):
        return
    for key in result:
        if key.endswith(".$"):
            yield Diagnostic("WARNING", "PASS_RESULT_IS_STATIC", f"The value of '{key}' will not evaluate as a "
                             "JSONPath or Intrinsic Function at runtime. Instead of 'Result', use 'Parameters' to "
                             "evaluate it as a JSONPath or Intrinsic Function at runtime.", loc)


def _looks_like_path(value: object) -> bool:
    """A JSONPath on the input ($, $.x, $[0]) or on the context object ($$, $$.x)."""
    if not isinstance(value, str):
        return False
    return value in ("$", "$$") or value.startswith(("$.", "$[", "$$.", "$$["))
