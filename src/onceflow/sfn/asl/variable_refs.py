"""DescribeStateMachine's `variableReferences`: per state, the workflow variables its JSONPath
fields read (`$name` paths and the `$name` arguments of intrinsic functions).

AWS lists them per state name for every state that reads one, nested Map and Parallel states
included; JSONata expressions are not looked into, and a text without `.$` (a plain string that
happens to start with `$`) reads nothing ([AWS] LocalStack's AWS-validated recording
test_sfn_api_variable_references, 2024-11). The order within a state is the order the fields are
met here (UNCONFIRMED: the recording's harness sorts each list before comparing).
"""

from __future__ import annotations

import re
from typing import Any

# the fields whose whole value is a path (JSONPath states)
_PATH_FIELDS = ("InputPath", "OutputPath", "ItemsPath", "MaxConcurrencyPath", "ToleratedFailureCountPath",
                "ToleratedFailurePercentagePath", "SecondsPath", "TimestampPath", "ErrorPath", "CausePath",
                "HeartbeatSecondsPath", "TimeoutSecondsPath")
# the fields holding payload templates, whose `key.$` values are paths or intrinsic calls
_TEMPLATE_FIELDS = ("Parameters", "ItemSelector", "ResultSelector", "Assign")
_VARIABLE = re.compile(r"(?<![A-Za-z0-9_$'])\$([A-Za-z_][A-Za-z0-9_]*)")
_STRING_LITERAL = re.compile(r"'(?:\\.|[^'\\])*'")


def variable_references(definition: dict[str, Any]) -> dict[str, list[str]]:
    """{state name: [variable, ...]} for a parsed definition (states that read none are left out)."""
    out: dict[str, list[str]] = {}
    _program(definition, definition.get("QueryLanguage", "JSONPath"), out)
    return out


def _program(program: Any, language: str, out: dict[str, list[str]]) -> None:
    if not isinstance(program, dict) or not isinstance(program.get("States"), dict):
        return
    language = program.get("QueryLanguage", language)
    for name, state in program["States"].items():
        if not isinstance(state, dict):
            continue
        state_language = state.get("QueryLanguage", language)
        if state_language == "JSONPath":
            names: list[str] = []
            _state(state, names)
            if names:
                out[name] = names
        for inner in (state.get("ItemProcessor"), state.get("Iterator"), *(state.get("Branches") or [])):
            _program(inner, state_language, out)


def _state(state: dict[str, Any], names: list[str]) -> None:
    for field in _PATH_FIELDS:
        _read(state.get(field), names)
    for field in _TEMPLATE_FIELDS:
        _template(state.get(field), names)
    reader = state.get("ItemReader")
    if isinstance(reader, dict):
        _template(reader.get("Parameters"), names)
        config = reader.get("ReaderConfig")
        if isinstance(config, dict):
            _read(config.get("MaxItemsPath"), names)
    for rule in state.get("Choices") or []:
        _rule(rule, names)
    for catcher in state.get("Catch") or []:
        if isinstance(catcher, dict):
            _template(catcher.get("Assign"), names)


def _rule(rule: Any, names: list[str]) -> None:
    if not isinstance(rule, dict):
        return
    _read(rule.get("Variable"), names)
    for key, value in rule.items():
        if key.endswith("Path"):
            _read(value, names)
        elif key in ("And", "Or") and isinstance(value, list):
            for inner in value:
                _rule(inner, names)
        elif key == "Not":
            _rule(value, names)
    _template(rule.get("Assign"), names)


def _template(node: Any, names: list[str]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and key.endswith(".$"):
                _read(value, names)
            else:
                _template(value, names)
    elif isinstance(node, list):
        for item in node:
            _template(item, names)


def _read(text: Any, names: list[str]) -> None:
    """The variables a path or an intrinsic call reads (string literals inside a call read none)."""
    if not isinstance(text, str):
        return
    for name in _VARIABLE.findall(_STRING_LITERAL.sub("''", text)):
        if name not in names:
            names.append(name)
