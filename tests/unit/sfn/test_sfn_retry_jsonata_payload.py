"""Retry arithmetic and matching, JSONata bindings and errors, payload template shapes."""

from __future__ import annotations

import random

import pytest

from onceflow.sfn.asl.errors import PathNotFound, StateDataError, StatesError
from onceflow.sfn.asl.jsonata import evaluate_jsonata, evaluate_template, expect_type, is_jsonata
from onceflow.sfn.asl.load import load_catcher, load_retrier
from onceflow.sfn.asl.payload import evaluate_payload_template, java_hashmap_order
from onceflow.sfn.asl.retry import (
    catch_output,
    error_matches,
    find_catcher,
    find_retrier,
    retry_delay_seconds,
    should_retry,
)


# ----------------------------------------------------------------------------- retry
@pytest.mark.parametrize(("equals", "error", "expected"), [
    (["States.ALL"], "CustomError", True),
    (["States.ALL"], "States.Timeout", True),
    (["States.ALL"], "States.Runtime", False),
    (["States.Runtime"], "States.Runtime", False),
    (["States.TaskFailed"], "Lambda.ServiceException", True),
    (["States.TaskFailed"], "States.Timeout", False),
    (["States.Timeout"], "States.Timeout", True),
    (["TransientOrderError"], "Lambda.AWSLambdaException", False),
    (["customerror"], "CustomError", False),
])
def test_error_matching(equals: list[str], error: str, expected: bool) -> None:
    assert error_matches(equals, error) is expected


def test_first_matching_retrier_and_catcher_win() -> None:
    handlers = [{"ErrorEquals": ["A"]}, {"ErrorEquals": ["B", "C"]}, {"ErrorEquals": ["States.ALL"]}]
    retriers = [load_retrier(h) for h in handlers]
    catchers = [load_catcher({**h, "Next": f"N{i}"}) for i, h in enumerate(handlers)]
    assert find_retrier(retriers, "C") == 1
    found = find_catcher(catchers, "Z")
    assert found is not None and found.next == "N2"
    assert find_retrier(retriers[:2], "Z") is None
    assert find_catcher((), "A") is None


def test_documented_backoff_example() -> None:
    # AWS docs: IntervalSeconds 3, BackoffRate 1.5, MaxAttempts 2 waits 3 s, then 4.5 s.
    retrier = load_retrier({"ErrorEquals": ["X"], "IntervalSeconds": 3, "BackoffRate": 1.5, "MaxAttempts": 2})
    assert [retry_delay_seconds(retrier, n) for n in (1, 2)] == [3.0, 4.5]
    assert [should_retry(retrier, done) for done in (0, 1, 2)] == [True, True, False]


def test_defaults_cap_and_zero_attempts() -> None:
    defaults = load_retrier({"ErrorEquals": ["X"]})
    assert [retry_delay_seconds(defaults, n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert should_retry(defaults, 2) and not should_retry(defaults, 3)
    assert not should_retry(load_retrier({"MaxAttempts": 0}), 0)
    capped = load_retrier({"IntervalSeconds": 1, "BackoffRate": 10, "MaxDelaySeconds": 50})
    assert [retry_delay_seconds(capped, n) for n in (1, 2, 3, 4)] == [1.0, 10.0, 50.0, 50.0]


def test_full_jitter_stays_within_the_computed_delay() -> None:
    retrier = load_retrier({"IntervalSeconds": 4, "BackoffRate": 2, "JitterStrategy": "FULL"})
    rng = random.Random(7)
    delays = [retry_delay_seconds(retrier, 3, rng) for _ in range(200)]
    assert all(0 <= d <= 16 for d in delays) and len(set(delays)) > 100
    assert retry_delay_seconds(retrier, 3, random.Random(1)) == retry_delay_seconds(retrier, 3, random.Random(1))


def test_catch_output_order() -> None:
    assert list(catch_output("E", "C")) == ["Error", "Cause"]
    assert catch_output(None, "C") == {"Cause": "C"}  # a Fail state without Error


# ----------------------------------------------------------------------------- JSONata
STATES = {"input": {"n": [1, 2, 3], "s": "x", "z": None}, "context": {"Execution": {"Name": "e"}}}


@pytest.mark.parametrize(("expr", "expected"), [
    ("{% $sum($states.input.n) %}", 6),
    ("{% $states.input.z %}", None),
    ("{% $states.context.Execution.Name & '-' & $v %}", "e-var"),
    ("{% $partition([1,2,3], 2) %}", [[1, 2], [3]]),
    ("{% $range(0, 10, 5) %}", [0, 5, 10]),
    ("{% $hash('input data', 'SHA-256') %}", "b4a697a057313163aee33cd8d40c66e9f0f177e00cac2de32475ffff6169c3e3"),
    ("{% $parse('{\"a\": [1, null]}') %}", {"a": [1, None]}),
    ("{% $length($uuid()) %}", 36),
    ("{% $random() < 1 %}", True),
    ("{% $random(42) = $random(42) %}", True),
    ("{% 2.0 %}", 2),
    ("{% [1, null, 'a'] %}", [1, None, "a"]),
])
def test_jsonata_values(expr: str, expected: object) -> None:
    assert is_jsonata(expr)
    assert evaluate_jsonata(expr, STATES, {"v": "var"}) == expected


@pytest.mark.parametrize(("expr", "field", "cause"), [
    ("{% $doesNotExist %}", "Output",
     "The JSONata expression '$doesNotExist' specified for the field 'Output' returned nothing (undefined)."),
    ("{% $fn := function($x){$x} %}", "Items",
     "The JSONata expression '$fn := function($x){$x}' specified for the field 'Items' returned an "
     "unsupported result type."),
    ("{% 1 + 'a' %}", "Output",
     "The JSONata expression '1 + 'a'' specified for the field 'Output' threw an error during evaluation. "
     "T2002: The right side of the \"+\" operator must evaluate to a number"),
])
def test_jsonata_failures(expr: str, field: str, cause: str) -> None:
    with pytest.raises(StateDataError) as info:
        evaluate_jsonata(expr, STATES, field=field)
    assert (info.value.error, info.value.cause) == ("States.QueryEvaluationError", cause)
    prefixed = info.value.in_state("State0", 2)
    prefix = "An error occurred while executing the state 'State0' (entered at the event id #2). "
    assert prefixed.cause == prefix + cause


def test_template_names_nested_fields() -> None:
    out = evaluate_template({"a": ["{% 1 %}", {"b": "{% $states.input.s %}"}], "c": "$.literal"}, STATES)
    assert out == {"a": [1, {"b": "x"}], "c": "$.literal"}
    with pytest.raises(StateDataError) as info:
        evaluate_template({"result": "{% $nope %}"}, STATES, field="Assign")
    assert "for the field 'Assign/result' returned nothing" in info.value.cause


def test_expect_type_message() -> None:
    with pytest.raises(StateDataError) as info:
        expect_type({"foo": "bar"}, "array", "{% $ItemsVar %}", "Items")
    assert info.value.cause == (
        "The JSONata expression '$ItemsVar' specified for the field 'Items' returned an unexpected result type. "
        "Expected 'array', but was 'object' for value: {\"foo\":\"bar\"}")


# ----------------------------------------------------------------------------- payload templates
def test_static_keys_first_then_dynamic_keys_in_java_hashmap_order() -> None:
    template = {"FunctionName.$": "$.f", "Payload": {"x.$": "$.x"}, "LogType.$": "$.l"}
    out = evaluate_payload_template(template, {"f": "fn", "x": 1, "l": "Tail"}, {})
    assert list(out) == ["Payload", "FunctionName", "LogType"]
    # recorded on AWS: template mergedJson.$, parsedJson.$, stringifiedJson.$
    assert java_hashmap_order(["mergedJson", "parsedJson", "stringifiedJson"]) == \
        ["parsedJson", "mergedJson", "stringifiedJson"]


def test_template_arrays_and_literals_are_copied() -> None:
    out = evaluate_payload_template({"l": [{"a.$": "$.a"}, "$.a", 1], "n": None}, {"a": 5}, {})
    assert out == {"l": [{"a": 5}, "$.a", 1], "n": None}


def test_missing_path_in_template_names_the_field_and_input() -> None:
    with pytest.raises(StatesError) as info:
        evaluate_payload_template({"value.$": "$.no_such_jsonpath"}, {"int-literal": 0}, {})
    assert info.value.cause == ("The JSONPath '$.no_such_jsonpath' specified for the field 'value.$' could not "
                                "be found in the input '{\"int-literal\":0}'")
    assert not isinstance(info.value, PathNotFound)
