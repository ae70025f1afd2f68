"""JSONata results and errors as jsonata-js 2.0.6 (what AWS runs) gives them, where jsonata-python
departs: messages filled as jsonata-js's populateMessage fills them (JSON.stringify'd fields), the
function library's own error codes instead of Python's exceptions, and numbers as doubles."""

from __future__ import annotations

import json

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.jsonata import evaluate_jsonata
from onceflow.sfn.asl.jsonata_js import number_to_string, stringify
from onceflow.sfn.asl.paths import to_json

PREFIX = "The JSONata expression '{}' specified for the field 'Output' threw an error during evaluation. "
SORT = ("D3070: The single argument form of the sort function can only be applied to an array of strings "
        "or an array of numbers.  Use the second argument to specify a comparison function")
POWER = "D3061: The power function has resulted in a value that cannot be represented as a JSON number: "


def _cause(expr: str, states: dict[str, object] | None = None) -> str:
    with pytest.raises(StateDataError) as info:
        evaluate_jsonata(expr, states or {"input": {}})
    assert info.value.error == "States.QueryEvaluationError"
    cause = info.value.cause
    assert cause.startswith(PREFIX.format(expr))
    return cause[len(PREFIX.format(expr)):]


@pytest.mark.parametrize("expr", ['$sort([1, "a"])', '$sort([{"a": 1}, {"a": 2}])', "$sort([true, false])",
                                  "$sort([1, 2, [3]])", "$sort([null, 1])"])
def test_sort_of_mixed_types_without_a_comparator_is_d3070(expr: str) -> None:
    assert _cause(expr) == SORT


@pytest.mark.parametrize(("expr", "expected"), [
    ("$sort([3, 1, 2])", [1, 2, 3]),
    ('$sort(["b", "a"])', ["a", "b"]),
    ("$sort([true])", [True]),  # one item: nothing to compare
    ('$sort([{"a": 2}, {"a": 1}], function($l, $r){ $l.a > $r.a })', [{"a": 1}, {"a": 2}]),
])
def test_sort_still_sorts(expr: str, expected: object) -> None:
    assert evaluate_jsonata(expr, {"input": {}}) == expected


@pytest.mark.parametrize(("expr", "fields"), [
    ("$power(10, 400)", "base=10, exponent=400"),  # overflow: Infinity
    ("$power(-1, 0.5)", "base=-1, exponent=0.5"),  # NaN (Python would make it complex)
    ("$power(0, -1)", "base=0, exponent=-1"),  # Infinity (Python raises ZeroDivisionError)
])
def test_power_out_of_range_is_d3061(expr: str, fields: str) -> None:
    assert _cause(expr) == POWER + fields


def test_power_in_range() -> None:
    assert evaluate_jsonata("$power(2, 10)", {"input": {}}) == 1024
    assert evaluate_jsonata("$power(4, 0.5)", {"input": {}}) == 2


@pytest.mark.parametrize(("expr", "message"), [
    ('$abs("x")', 'T0410: Argument 1 of function "abs" does not match function signature'),
    ('$match("a", "a")', 'T0410: Argument 2 of function "match" does not match function signature'),
    ('$substring("abc", 1, "x")', 'T0410: Argument 3 of function "substring" does not match function signature'),
    ('$join(["a"], 1)', 'T0410: Argument 2 of function "join" does not match function signature'),
    ('$max([1, "a"])', 'T0412: Argument 1 of function "max" must be an array of "numbers"'),
    ("$join([1, 2])", 'T0412: Argument 1 of function "join" must be an array of "strings"'),
    ("$merge([1])", 'T0412: Argument 1 of function "merge" must be an array of "objects"'),
    ('-"a"', 'D1002: Cannot negate a non-numeric value: "a"'),
    ('1 + "a"', 'T2002: The right side of the "+" operator must evaluate to a number'),
    ('"a" * 2', 'T2001: The left side of the "*" operator must evaluate to a number'),
    ('"a" < 1', 'T2009: The values "a" and 1 either side of operator "<" must be of the same data type'),
    ("$formatBase(10, 40)", "D3100: The radix of the formatBase function must be between 2 and 36.  It was given 40"),
    ('$replace("abc", "", "x")', "D3010: Second argument of replace function cannot be an empty string"),
    ('$replace("abc", "b", "x", -1)', "D3011: Fourth argument of replace function must evaluate to a positive number"),
    ('$number("abc")', 'D3030: Unable to cast value to a number: "abc"'),
    ('$number(" 12 ")', 'D3030: Unable to cast value to a number: " 12 "'),
    ('$number("nan")', 'D3030: Unable to cast value to a number: "nan"'),
    ('$number("1e1000")', 'D3030: Unable to cast value to a number: "1e1000"'),
    ('$toMillis("nope")',
     'D3110: The argument of the toMillis function must be an ISO 8601 formatted timestamp. Given "nope"'),
    ('$toMillis("2020-01-02 03:04:05")', "D3110: The argument of the toMillis function must be an ISO 8601 "
                                          'formatted timestamp. Given "2020-01-02 03:04:05"'),
    ('$encodeUrl("\\ud800")', 'D3140: Malformed URL passed to $encodeUrl(): "\\ud800"'),  # a lone surrogate
    ('$decodeUrl("%")', 'D3140: Malformed URL passed to $decodeUrl(): "%"'),
    ('$decodeUrlComponent("%C3")', 'D3140: Malformed URL passed to $decodeUrlComponent(): "%C3"'),
    ('$fromMillis(0, "[Q]")', 'D3132: Unknown component specifier "Q" in date/time picture string'),
    ("$sqrt(-4)", "D3060: The sqrt function cannot be applied to a negative number: -4"),
    # jsonata-js raises D1001 only for an infinite number, and JSON.stringify(Infinity) is null
    ("1e300 * 1e300", "D1001: Number out of range: null"),
    ("$sum([1e308, 1e308])", "D1001: Number out of range: null"),
])
def test_messages_are_filled_as_jsonata_js_fills_them(expr: str, message: str) -> None:
    assert _cause(expr) == message


@pytest.mark.parametrize(("expr", "expected"), [
    ('$number("-1.5e3")', -1500),
    ('$number("12")', 12),
    ('$number("0x10")', 16),
    ('$toMillis("2020-01-02T03:04:05.123+01:00")', 1577930645123),
    ('$decodeUrl("%2F%20%C3%A9")', "%2F \u00e9"),  # decodeURI keeps the escapes of reserved characters
    ('$decodeUrlComponent("%2F%20%C3%A9")', "/ \u00e9"),
    ('$encodeUrl("a b/?\u00e9")', "a%20b/?%C3%A9"),
    ('$encodeUrlComponent("a b/?")', "a%20b%2F%3F"),
    ('$fromMillis(0, "[Y0001]-[M01]")', "1970-01"),
    ('$toMillis("2020")', 1577836800000),
    ('$toMillis("2020-01-02", "[Y0001]-[M01]-[D01]")', 1577923200000),
])
def test_conversions_that_succeed(expr: str, expected: object) -> None:
    assert evaluate_jsonata(expr, {"input": {}}) == expected


BIG = 2**53 + 1  # 9007199254740993: no double holds it


@pytest.mark.parametrize(("expr", "text"), [
    ("$states.input.big", "9007199254740992"),  # read as the nearest double, as jsonata-js reads JSON
    ("$states.input.big + 0", "9007199254740992"),
    ("9007199254740993", "9007199254740992"),
    ("$power(2, 60)", "1152921504606847000"),  # JSON.stringify's digits, not 1152921504606846976
    ("$states.input.huge", "1152921504606847000"),
    ("[$states.input.big, {'n': $states.input.big}]", "[9007199254740992,{\"n\":9007199254740992}]"),
    ("1e20", "100000000000000000000"),
    ("1e21", "1.0E21"),  # a double left a double is written as Jackson writes it (sfn/asl/json_text.py)
    ("1.0", "1"),
    ("-0", "0"),
    ("0 * -1", "0"),
    ("2.5", "2.5"),
    ("$states.input.small", "5"),  # small integers stay integers
])
def test_numbers_come_out_with_json_stringify_digits(expr: str, text: str) -> None:
    states = {"input": {"big": BIG, "huge": 2**60, "small": 5}}
    assert to_json(evaluate_jsonata(expr, states)) == text


def test_big_integers_compare_as_doubles() -> None:
    assert evaluate_jsonata("$states.input.a = $states.input.b", {"input": {"a": BIG, "b": BIG - 1}}) is True


@pytest.mark.parametrize(("value", "text"), [
    (1e21, "1e+21"), (1e20, "100000000000000000000"), (1e-7, "1e-7"), (0.000001, "0.000001"),
    (-1.5e-10, "-1.5e-10"), (0.1 + 0.2, "0.30000000000000004"), (2.0**60, "1152921504606847000"), (-0.0, "0"),
])
def test_number_to_string_is_ecmascripts(value: float, text: str) -> None:
    assert number_to_string(value) == text


def test_stringify_is_json_stringify() -> None:
    assert stringify("a\"b") == json.dumps("a\"b")
    assert stringify(float("inf")) == "null" and stringify(float("nan")) == "null"
    # jsonata-python's None is undefined: dropped from objects, null in arrays, as JSON.stringify does
    assert stringify({"a": [1.0, None, True], "b": None}) == '{"a":[1,null,true]}'


@pytest.mark.parametrize(("expr", "expected"), [
    # jsonata-js shifts the decimal point through the number's text, then rounds half to even
    ("$round(1.5, 30)", 1.5), ("$round(1.25, 1)", 1.2), ("$round(1.35, 1)", 1.4), ("$round(2.5)", 2),
    ("$round(-2.5)", -2), ("$round(3.5)", 4), ("$round(-0.5)", 0), ("$round(1234.5, -2)", 1200),
    ("$round(1.005, 2)", 1),
    # beyond a double the shift is Infinity, and back from it NaN: JSON.stringify writes null
    ("$round(1.5, 400)", None), ("$round(7, 1.5)", None),
])
def test_round_is_jsonata_js(expr: str, expected: object) -> None:
    assert evaluate_jsonata(expr, {"input": {}}) == expected


@pytest.mark.parametrize(("expr", "expected"), [
    ("$fromMillis(0)", "1970-01-01T00:00:00.000Z"),
    # a JavaScript Date holds 8.64e15 ms either side of the epoch; [Y0001] keeps the last 4 digits
    ("$fromMillis(8.64e15)", "5760-09-13T00:00:00.000Z"),
    ("$fromMillis(-8.64e15)", "-1821-04-20T00:00:00.000Z"),
    ("$fromMillis(-1e14, '[Y]-[M01]-[D01]')", "-1199-02-15"),
    ("$fromMillis(253402300800000, '[Y]')", "10000"),
    # beyond, the Date is invalid and its fields are NaN
    ("$fromMillis(1e20)", "0NaN-NaN-NaNTNaN:NaN:NaN.NaNZ"),
    ("$fromMillis(-1e20, '[D1o] [M,2] [Z]')", "NaNth NaN +00:00"),
    ("$fromMillis(1700000000123, '[Y0001]-[M01]-[D01] [H01]:[m01]:[s01].[f001] [X] [W]', '+0530')",
     "2023-11-15 03:43:20.123 2023 46"),
])
def test_from_millis_is_jsonata_js(expr: str, expected: str) -> None:
    assert evaluate_jsonata(expr, {"input": {}}) == expected


@pytest.mark.parametrize(("expr", "message"), [
    ('$formatInteger(1, "")',
     'D3130: Formatting or parsing an integer as a sequence starting with "" is not supported by this implementation'),
    ('$formatInteger(1, "abc")', 'D3130: Formatting or parsing an integer as a sequence starting with "abc" is not '
                                 "supported by this implementation"),
    ('$parseInteger("1", "abc")', 'D3130: Formatting or parsing an integer as a sequence starting with "abc" is not '
                                  "supported by this implementation"),
    ('$fromMillis(0, "[Y")', 'D3135: No matching closing bracket "]" in date/time picture string'),
    ('$formatInteger(12, "1\u0662")', "D3131: In a decimal digit pattern, all digits must be from the same decimal "
                                      "group"),
])
def test_picture_errors_are_jsonata_js(expr: str, message: str) -> None:
    assert _cause(expr) == message
