"""Choice rules: the JSONPath comparison operators, And/Or/Not, and JSONata `Condition`.

A comparison whose variable holds a value of the wrong type is simply false (AWS records
`NumericEquals` against `""`, `null`, `{}`, ... as no match). A variable path that matches
nothing fails the state with States.Runtime, except under IsPresent.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from onceflow.patterns.glob import sfn_glob
from onceflow.sfn.asl.errors import PathNotFound, StateDataError
from onceflow.sfn.asl.jsonata import evaluate_jsonata, expect_type, is_jsonata
from onceflow.sfn.asl.paths import resolve_path

_TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def parse_timestamp(v: Any) -> datetime | None:
    """An RFC 3339 date-time with a 'T' and an offset, as Step Functions accepts; else None."""
    if not isinstance(v, str) or not _TIMESTAMP.fullmatch(v):
        return None
    text = v.upper().replace("Z", "+00:00")
    frac = re.search(r"\.(\d+)", text)
    if frac:  # Python accepts at most 6 fractional digits
        text = text.replace(frac.group(0), "." + frac.group(1)[:6].ljust(6, "0"))
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _java_str_key(s: str) -> bytes:
    return s.encode("utf-16-be")  # Java compares strings by UTF-16 code units


def _string_cmp(a: Any, b: Any) -> int | None:
    if not isinstance(a, str) or not isinstance(b, str):
        return None
    ka, kb = _java_str_key(a), _java_str_key(b)
    return (ka > kb) - (ka < kb)


def _numeric_cmp(a: Any, b: Any) -> int | None:
    if not _is_num(a) or not _is_num(b):
        return None
    order: int = (a > b) - (a < b)
    return order


def _timestamp_cmp(a: Any, b: Any) -> int | None:
    ta, tb = parse_timestamp(a), parse_timestamp(b)
    if ta is None or tb is None:
        return None
    return (ta > tb) - (ta < tb)


def _boolean_cmp(a: Any, b: Any) -> int | None:
    if not isinstance(a, bool) or not isinstance(b, bool):
        return None
    return 0 if a == b else 1


_KINDS = {"String": _string_cmp, "Numeric": _numeric_cmp, "Timestamp": _timestamp_cmp,
          "Boolean": _boolean_cmp}
_RELATIONS = {"Equals": lambda c: c == 0, "LessThan": lambda c: c < 0,
              "GreaterThan": lambda c: c > 0, "LessThanEquals": lambda c: c <= 0,
              "GreaterThanEquals": lambda c: c >= 0}
COMPARISON_OPERATORS: dict[str, tuple[str, str, bool]] = {}
for _kind in _KINDS:
    for _rel in _RELATIONS:
        if _kind == "Boolean" and _rel != "Equals":
            continue
        COMPARISON_OPERATORS[_kind + _rel] = (_kind, _rel, False)
        COMPARISON_OPERATORS[_kind + _rel + "Path"] = (_kind, _rel, True)
TYPE_TESTS = ("IsNull", "IsPresent", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp")
OPERATORS = (*COMPARISON_OPERATORS, *TYPE_TESTS, "StringMatches")


def rule_operator(rule: dict[str, Any]) -> str | None:
    """The comparison operator a rule uses (None for And/Or/Not/Condition rules)."""
    for key in rule:
        if key in COMPARISON_OPERATORS or key in TYPE_TESTS or key == "StringMatches":
            return key
    return None


def evaluate_choice_rule(rule: dict[str, Any], data: Any, context: Any = None,
                         variables: dict[str, Any] | None = None, states: dict[str, Any] | None = None) -> bool:
    """True when `rule` matches. `states` is the JSONata `$states` binding (for `Condition`)."""
    if "Condition" in rule:
        return _condition(rule["Condition"], data, context, variables, states)
    if "And" in rule:
        return all(evaluate_choice_rule(r, data, context, variables, states) for r in rule["And"])
    if "Or" in rule:
        return any(evaluate_choice_rule(r, data, context, variables, states) for r in rule["Or"])
    if "Not" in rule:
        return not evaluate_choice_rule(rule["Not"], data, context, variables, states)
    op = rule_operator(rule)
    if op is None:
        raise StateDataError("States.Runtime", "The choice rule has no comparison operator")
    variable = rule.get("Variable", "$")
    if op == "IsPresent":
        try:
            resolve_path(variable, data, context, variables)
        except PathNotFound:
            return rule[op] is False
        return rule[op] is True
    value = _variable(variable, data, context, variables)
    if op in TYPE_TESTS:
        tested: bool = _type_test(op, value) == rule[op]
        return tested
    if op == "StringMatches":
        return isinstance(value, str) and sfn_glob(rule[op]).matches(value)
    kind, relation, is_path = COMPARISON_OPERATORS[op]
    other = _variable(rule[op], data, context, variables) if is_path else rule[op]
    cmp = _KINDS[kind](value, other)
    return cmp is not None and _RELATIONS[relation](cmp)


def _variable(path: str, data: Any, context: Any, variables: dict[str, Any] | None) -> Any:
    try:
        return resolve_path(path, data, context, variables)
    except PathNotFound:
        raise StateDataError(
            "States.Runtime",
            f"Invalid path '{path}': The choice state's condition path references an invalid value."
        ) from None


def _type_test(op: str, value: Any) -> bool:
    if op == "IsNull":
        return value is None
    if op == "IsNumeric":
        return _is_num(value)
    if op == "IsString":
        return isinstance(value, str)
    if op == "IsBoolean":
        return isinstance(value, bool)
    return parse_timestamp(value) is not None  # IsTimestamp


def _condition(condition: Any, data: Any, context: Any, variables: dict[str, Any] | None,
               states: dict[str, Any] | None) -> bool:
    if isinstance(condition, bool):
        return condition
    if not is_jsonata(condition):
        raise StateDataError("States.QueryEvaluationError",
                             "The Condition field must be a boolean or a JSONata expression")
    bound = states if states is not None else {"input": data, "context": context}
    result = evaluate_jsonata(condition, bound, variables, field="Condition")
    return bool(expect_type(result, "boolean", condition, "Condition"))
