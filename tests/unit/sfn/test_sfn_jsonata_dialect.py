"""Step Functions' own JSONata functions ($partition, $range, $hash, $random, $uuid, $parse) at their
edges: LocalStack's AWS recording of `$range(1, 9, 9)` (a lone item comes out bare) and the
measurements on AWS that floci-io/floci published (#2662, #2676): truncation towards zero,
nothing (undefined) for the degenerate calls, T0410 for a wrong argument, java.util.Random."""

from __future__ import annotations

import re

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.jsonata import evaluate_jsonata

THREW = "The JSONata expression '{}' specified for the field 'Output' threw an error during evaluation. "
NOTHING = "The JSONata expression '{}' specified for the field 'Output' returned nothing (undefined)."


def _value(expr: str) -> object:
    return evaluate_jsonata(expr, {"input": {}})


def _cause(expr: str) -> str:
    with pytest.raises(StateDataError) as info:
        _value(expr)
    assert info.value.error == "States.QueryEvaluationError"
    return info.value.cause


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("$range(1, 9, 9)", 1),  # recorded: output "1"
        ("$range(0, 9, 3)", [0, 3, 6, 9]),
        ("$range(0, 10, 3)", [0, 3, 6, 9]),
        ("$range(10, 0, -2)", [10, 8, 6, 4, 2, 0]),
        ("$range(-1.7, 2, 1)", [-1, 0, 1, 2]),
        ("$range(5, 1, -1.5)", [5, 4, 3, 2, 1]),
        ("$count($range(1, 200000, 1))", 200000),  # no 1000-item cap (that is States.ArrayRange's)
        ("$partition([0], 1)", [[0]]),  # recorded
        ("$partition([1, 2, 3, 4, 5], 2.9)", [[1, 2], [3, 4], [5]]),
        ("$partition([1, 2, 3])", [[1, 2, 3]]),
        ("$hash('Hello', 'MD5')", "8b1a9953c4611296a827abf8c47804d7"),
        ("$hash('\u00f1', 'MD5')", "94e9342ecbb1458b6043ecd3bfcbc192"),  # UTF-8 bytes
        ("$hash('input', 'SHA-1')", "140f86aae51ab9e1cda9b4254fe98a74eb54c1a1"),
        ("$random(42)", 0.7275636800328681),
        ("$random(0)", 0.730967787376657),
        ("$random(0.9)", 0.730967787376657),
        ("$random(7)", 0.7306990420600421),
        ('$parse(\'{"b":1,"a":2}\')', {"b": 1, "a": 2}),
        ("$parse('-0')", 0),
    ],
)
def test_values(expr: str, expected: object) -> None:
    assert _value(expr) == expected


@pytest.mark.parametrize(
    "expr",
    [
        "$range(5, 1, 1)",
        "$range(1, 5, 0)",
        "$range(1, 5)",
        "$partition([], 2)",
        "$partition([1, 2, 3], 0)",
        "$partition([1, 2, 3, 4], -0.5)",
        "$hash('a')",
        "$parse()",
    ],
)
def test_degenerate_calls_give_nothing(expr: str) -> None:
    assert _cause(expr) == NOTHING.format(expr)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("$range(1)", 'T0410: Argument 2 of function "range" does not match function signature'),
        ("$hash(42, 'MD5')", 'T0410: Argument 1 of function "hash" does not match function signature'),
        ("$hash('a', 5)", 'T0410: Argument 2 of function "hash" does not match function signature'),
        ("$uuid('seed')", 'T0410: Argument 1 of function "uuid" does not match function signature'),
        ("$random(1, 2)", 'T0410: Argument 2 of function "random" does not match function signature'),
        ("$parse(null)", 'T0410: Argument 1 of function "parse" does not match function signature'),
        ("$partition([1, 2, 3], -1)", "D3137: Second argument must be zero or greater"),
    ],
)
def test_refusals(expr: str, message: str) -> None:
    assert _cause(expr) == THREW.format(expr) + message


@pytest.mark.parametrize("expr", ["$hash('Hello', 'md5')", "$hash('Hello', 'SHA3-256')", "$parse('not json')"])
def test_other_refusals_are_d3137(expr: str) -> None:
    assert _cause(expr).startswith(THREW.format(expr) + "D3137: ")


def test_uuid_is_a_fresh_v4_uuid() -> None:
    first, second = _value("$uuid()"), _value("$uuid()")
    v4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    assert isinstance(first, str) and re.fullmatch(v4, first)
    assert first != second
