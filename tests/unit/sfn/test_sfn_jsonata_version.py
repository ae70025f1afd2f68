"""JSONata as AWS runs it: the 2.0.6 language without `$eval` ("Transforming data with JSONata in
Step Functions", Supported JSONata version), and jsonata-js's wording of its errors."""

from __future__ import annotations

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.jsonata import evaluate_jsonata, jsonata_syntax_error

PREFIX = "The JSONata expression '{}' specified for the field 'Output' threw an error during evaluation. "


def _cause(expr: str, variables: dict[str, object] | None = None) -> str:
    with pytest.raises(StateDataError) as info:
        evaluate_jsonata(expr, {"input": {}}, variables)
    assert info.value.error == "States.QueryEvaluationError"
    return info.value.cause


@pytest.mark.parametrize(("expr", "symbol"), [
    ("$states.input.a ?? 1", "?"),
    ("$states.input.a ?: 1", ":"),
    ("{'k': [($f := function(){ $x ?? 2 }; $f())]}", "?"),
])
def test_the_2_1_operators_do_not_parse(expr: str, symbol: str) -> None:
    assert jsonata_syntax_error(expr) == f"The symbol {symbol} cannot be used as a unary operator"


def test_the_conditional_operator_and_question_marks_in_strings_still_parse() -> None:
    assert evaluate_jsonata("$states.input.a ? 'yes' : 'no'", {"input": {"a": True}}) == "yes"
    assert evaluate_jsonata("'??' & '?:'", {"input": {}}) == "???:"


def test_eval_is_not_a_function() -> None:
    expr = '$eval("1 + 1")'
    assert _cause(expr) == PREFIX.format(expr) + "T1006: Attempted to invoke a non-function"


def test_a_variable_named_eval_is_still_a_variable() -> None:
    assert evaluate_jsonata("$eval", {"input": {}}, {"eval": 7}) == 7


@pytest.mark.parametrize(("expr", "message"), [
    ("$sqrt(-1)", "D3060: The sqrt function cannot be applied to a negative number: -1"),
    ("1 / 0", "D1001: Number out of range: null"),
    ("5 % 0", "D1001: Number out of range: null"),
])
def test_errors_in_jsonata_js_words(expr: str, message: str) -> None:
    assert _cause(expr) == PREFIX.format(expr) + message


@pytest.mark.parametrize(("expr", "text"), [
    ("$string(1e20)", "100000000000000000000"),  # ECMAScript writes digits below 1e21 ...
    ("$string(1e21)", "1e+21"),  # ... and the exponent form from there
    ("$string(1e16)", "10000000000000000"),
    ("$string(0.000001)", "0.000001"),
    ("$string(1e-7)", "1e-7"),
    ("$string(-1.5e-10)", "-1.5e-10"),
    ("$string(0.1 + 0.2)", "0.3"),  # 15 significant digits first, as jsonata-js rounds
    ("$string(123456789012345678)", "123456789012346000"),
    ("$string(3.0)", "3"),
    ("'n=' & 1e20", "n=100000000000000000000"),
])
def test_numbers_become_text_as_jsonata_js_writes_them(expr: str, text: str) -> None:
    assert evaluate_jsonata(expr, {"input": {}}) == text
