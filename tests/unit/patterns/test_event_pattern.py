"""EventBridge event patterns: the examples of AWS's "event patterns" and "content filtering" pages."""

from __future__ import annotations

import json
import re

import pytest

from onceflow.patterns.event_pattern import PatternError, compile_pattern, matches

# The EC2 state-change event AWS's pages filter in their examples.
EC2 = {
    "version": "0",
    "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
    "detail-type": "EC2 Instance State-change Notification",
    "source": "aws.ec2",
    "account": "111122223333",
    "time": "2017-12-22T18:43:48Z",
    "region": "us-west-1",
    "resources": ["arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0"],
    "detail": {
        "instance-id": "i-1234567890abcdef0",
        "state": "terminated",
        "c-count": 5,
        "d-count": 12,
        "x-limit": 301.8,
        "source-ip": "10.0.0.123",
        "location": "us-east-1",
        "filename": "fileName.png",
        "eventVersion": "",
        "responseElements": None,
    },
}


def ok(pattern: dict, event: dict = EC2) -> bool:
    return matches(json.dumps(pattern), event)


def reason(pattern: str | dict) -> str:
    text = pattern if isinstance(pattern, str) else json.dumps(pattern)
    with pytest.raises(PatternError) as exc:
        compile_pattern(text)
    return exc.value.reason


# ------------------------------------------------------------------------------ exact values
def test_exact_values_and_or_within_an_array() -> None:
    assert ok({"source": ["aws.ec2"]})
    assert ok({"source": ["aws.s3", "aws.ec2"]})
    assert not ok({"source": ["aws.s3"]})
    assert ok({"source": ["aws.ec2"], "detail": {"state": ["terminated", "stopped"]}})
    assert not ok({"source": ["aws.ec2"], "detail": {"state": ["running"]}})
    assert not ok({"source": ["AWS.EC2"]})  # exact means case-sensitive


def test_a_field_the_event_lacks_does_not_match() -> None:
    assert not ok({"detail": {"nope": ["x"]}})
    assert not ok({"detail": {"state": {"deeper": ["x"]}}})


def test_numbers_match_by_value_not_text() -> None:
    assert ok({"detail": {"c-count": [5]}})
    assert ok({"detail": {"c-count": [5.0]}})
    assert ok({"detail": {"x-limit": [3.018e2]}})
    assert not ok({"detail": {"c-count": ["5"]}})  # a string is not the number
    assert not ok({"detail": {"c-count": [6]}})
    assert ok({"n": ["5"]}, {"n": "5"}) and not ok({"n": [5]}, {"n": "5"})


def test_null_true_false_and_empty_string() -> None:
    assert ok({"detail": {"responseElements": [None]}})
    assert not ok({"detail": {"instance-id": [None]}})
    assert ok({"detail": {"eventVersion": [""]}})
    assert ok({"flag": [True]}, {"flag": True}) and not ok({"flag": [True]}, {"flag": 1})
    assert ok({"flag": [False]}, {"flag": False}) and not ok({"flag": [False]}, {"flag": 0})
    assert not ok({"missing": [None]}, {})  # null is a value, not absence


def test_arrays_in_the_event_match_any_element() -> None:
    assert ok({"resources": ["arn:aws:ec2:us-west-1:123456789012:instance/i-1234567890abcdef0", "x"]})
    event = {"resources": ["arn:a", "arn:b", "arn:c"]}
    assert ok({"resources": ["arn:b"]}, event)
    assert not ok({"resources": ["arn:d"]}, event)
    assert ok({"v": [3]}, {"v": [1, [2, [3]]]})  # nested arrays flatten


def test_fields_under_an_array_of_objects_match_in_the_same_element() -> None:
    event = {"items": [{"k": "a", "v": 1}, {"k": "b", "v": 2}]}
    assert ok({"items": {"k": ["a"], "v": [1]}}, event)
    assert ok({"items": {"k": ["b"]}}, event)
    assert not ok({"items": {"k": ["a"], "v": [2]}}, event)


def test_nested_objects() -> None:
    event = {"detail": {"a": {"b": {"c": "deep"}}}}
    assert ok({"detail": {"a": {"b": {"c": ["deep"]}}}}, event)
    assert not ok({"detail": {"a": {"b": {"c": ["shallow"]}}}}, event)


def test_an_ip_address_value_matches_the_same_address_written_differently() -> None:
    assert ok({"ip": ["2001:db8::1"]}, {"ip": "2001:DB8:0:0:0:0:0:1"})
    assert ok({"ip": ["10.0.0.1"]}, {"ip": "10.0.0.1"})
    assert not ok({"ip": ["10.0.0.1"]}, {"ip": "10.0.0.2"})


# ------------------------------------------------------------------------------ prefix / suffix
def test_prefix_and_its_ignore_case_form() -> None:
    assert ok({"time": [{"prefix": "2017-12-22"}]})
    assert not ok({"time": [{"prefix": "2018"}]})
    assert ok({"detail": {"location": [{"prefix": {"equals-ignore-case": "US-"}}]}})
    assert not ok({"detail": {"location": [{"prefix": "US-"}]}})
    assert not ok({"detail": {"c-count": [{"prefix": "5"}]}})  # numbers are not strings
    assert ok({"s": [{"prefix": ""}]}, {"s": "anything"})


def test_suffix_and_its_ignore_case_form() -> None:
    assert ok({"detail": {"filename": [{"suffix": ".png"}]}})
    assert not ok({"detail": {"filename": [{"suffix": ".PNG"}]}})
    assert ok({"detail": {"filename": [{"suffix": {"equals-ignore-case": ".PNG"}}]}})
    assert not ok({"detail": {"filename": [{"suffix": ".jpg"}]}})


def test_equals_ignore_case() -> None:
    assert ok({"detail-type": [{"equals-ignore-case": "ec2 instance state-change notification"}]})
    assert not ok({"detail-type": [{"equals-ignore-case": "ec2 instance"}]})


# ------------------------------------------------------------------------------ anything-but
def test_anything_but_a_value_or_a_list() -> None:
    assert ok({"detail": {"state": [{"anything-but": "initializing"}]}})
    assert not ok({"detail": {"state": [{"anything-but": "terminated"}]}})
    assert ok({"detail": {"state": [{"anything-but": ["stopped", "overloaded"]}]}})
    assert not ok({"detail": {"state": [{"anything-but": ["stopped", "terminated"]}]}})
    assert not ok({"detail": {"missing": [{"anything-but": "x"}]}})  # the field must be there
    assert ok({"detail": {"c-count": [{"anything-but": "x"}]}})  # a number is never the string


def test_anything_but_numbers() -> None:
    assert ok({"detail": {"x-limit": [{"anything-but": 123}]}})
    assert not ok({"detail": {"x-limit": [{"anything-but": [301.8, 7]}]}})
    assert not ok({"detail": {"c-count": [{"anything-but": [5.0]}]}})


def test_anything_but_prefix_suffix_ignore_case_and_wildcard() -> None:
    assert ok({"detail": {"state": [{"anything-but": {"prefix": "init"}}]}})
    assert not ok({"detail": {"state": [{"anything-but": {"prefix": "term"}}]}})
    assert not ok({"detail": {"state": [{"anything-but": {"prefix": ["x", "term"]}}]}})
    assert ok({"detail": {"filename": [{"anything-but": {"suffix": ".txt"}}]}})
    assert not ok({"detail": {"filename": [{"anything-but": {"suffix": [".png", ".gif"]}}]}})
    assert not ok({"detail": {"state": [{"anything-but": {"equals-ignore-case": "TERMINATED"}}]}})
    assert ok({"detail": {"state": [{"anything-but": {"equals-ignore-case": ["Stopped", "Pending"]}}]}})
    assert not ok({"detail": {"filename": [{"anything-but": {"wildcard": "*.png"}}]}})
    assert ok({"detail": {"filename": [{"anything-but": {"wildcard": ["*.txt", "dir/*"]}}]}})


def test_anything_but_on_an_array_matches_when_some_element_is_not_excluded() -> None:
    assert ok({"v": [{"anything-but": "a"}]}, {"v": ["a", "b"]})
    assert not ok({"v": [{"anything-but": "a"}]}, {"v": ["a", "a"]})


# ------------------------------------------------------------------------------ numeric
@pytest.mark.parametrize(("expr", "hit"), [
    ([">", 0, "<=", 5], True), ([">", 5], False), ([">=", 5], True), (["<", 5], False), (["<=", 5], True),
    (["=", 5], True), (["=", 5.0], True), (["=", 4], False), ([">", 4.99, "<", 5.01], True), ([">=", 6, "<", 9], False),
])
def test_numeric_ranges(expr: list, hit: bool) -> None:
    assert ok({"detail": {"c-count": [{"numeric": expr}]}}) is hit


def test_numeric_documented_example() -> None:
    pattern = {"detail": {"c-count": [{"numeric": [">", 0, "<=", 5]}],
                          "d-count": [{"numeric": ["<", 10]}],
                          "x-limit": [{"numeric": ["=", 3.018e2]}]}}
    assert not ok(pattern)  # d-count is 12
    assert ok(pattern, {"detail": {"c-count": 5, "d-count": 9, "x-limit": 301.8}})


def test_numeric_ignores_strings_and_booleans() -> None:
    assert not ok({"n": [{"numeric": [">", 0]}]}, {"n": "5"})
    assert not ok({"n": [{"numeric": [">", 0]}]}, {"n": True})
    assert ok({"n": [{"numeric": ["<", 0]}]}, {"n": -1e300})


# ------------------------------------------------------------------------------ exists
def test_exists_true_and_false() -> None:
    assert ok({"detail": {"state": [{"exists": True}]}})
    assert not ok({"detail": {"nope": [{"exists": True}]}})
    assert ok({"detail": {"nope": [{"exists": False}]}})
    assert not ok({"detail": {"state": [{"exists": False}]}})
    assert ok({"detail": {"responseElements": [{"exists": True}]}})  # null is a present leaf


def test_exists_looks_at_leaves_only() -> None:
    assert not ok({"detail": [{"exists": True}]})  # detail is an object
    assert ok({"detail": [{"exists": False}]})
    assert not ok({"v": [{"exists": True}]}, {"v": []})
    assert ok({"a": {"b": [{"exists": False}]}}, {})


# ------------------------------------------------------------------------------ wildcard
@pytest.mark.parametrize(("wildcard", "text", "hit"), [
    ("dir/*.png", "dir/fileName.png", True), ("dir/*.png", "dir/a/b.png", True), ("dir/*.png", "dir/x.jpg", False),
    ("*Name*", "fileName.png", True), ("a\\*b", "a*b", True), ("a\\*b", "axb", False),
    ("a\\\\b", "a\\b", True), ("*", "", True), ("exact", "exact", True), ("exact", "exactly", False),
    ("ü*ß", "üxyzß", True),
])
def test_wildcard(wildcard: str, text: str, hit: bool) -> None:
    assert ok({"f": [{"wildcard": wildcard}]}, {"f": text}) is hit


def test_wildcard_errors_give_positions() -> None:
    # AWS names the second of two stars ([AWS] recorded: "Consecutive wildcard characters at pos 26" for
    # "arn:aws:events:us-east-1:**:event-bus/*", whose stars are at 25 and 26), located past the string.
    text = '{"f": [{"wildcard": "a**b"}]}'
    assert reason(text) == "Consecutive wildcard characters at pos 2" + at(text, 1, 27)
    text = '{"f": [{"wildcard": "ab\\\\c"}]}'
    assert reason(text) == "Invalid escape character at pos 2" + at(text, 1, 28)


# ------------------------------------------------------------------------------ cidr
def test_cidr_ipv4_and_ipv6() -> None:
    assert ok({"detail": {"source-ip": [{"cidr": "10.0.0.0/24"}]}})
    assert not ok({"detail": {"source-ip": [{"cidr": "10.0.1.0/24"}]}})
    assert ok({"ip": [{"cidr": "2001:db8::/32"}]}, {"ip": "2001:0db8:ffff::1"})
    assert not ok({"ip": [{"cidr": "2001:db8::/32"}]}, {"ip": "2001:db9::1"})
    assert not ok({"ip": [{"cidr": "10.0.0.0/8"}]}, {"ip": "not an ip"})
    assert not ok({"ip": [{"cidr": "10.0.0.0/8"}]}, {"ip": "::ffff:10.0.0.1"})


@pytest.mark.parametrize(("cidr", "why"), [
    ("10.0.0.0", "Malformed CIDR, one '/' required"),
    ("10.0.0.0/x", "Malformed CIDR, mask bits must be an integer"),
    ("10.0.0.0/-1", "Malformed CIDR, mask bits must not be negative"),
    ("10.0.0.0/33", "IPv4 mask bits must be < 32"),
    ("::/200", "IPv6 mask bits must be < 128"),
    ("host/8", "Nonstandard IP address: host"),
])
def test_bad_cidrs(cidr: str, why: str) -> None:
    assert reason({"ip": [{"cidr": cidr}]}) == why


# ------------------------------------------------------------------------------ $or
def test_or_at_the_top_and_nested() -> None:
    pattern = {"source": ["aws.ec2"], "$or": [{"detail": {"c-count": [1]}}, {"detail": {"state": ["terminated"]}}]}
    assert ok(pattern)
    pattern["$or"][1]["detail"]["state"] = ["running"]
    assert not ok(pattern)
    nested = {"detail": {"$or": [{"c-count": [{"numeric": [">", 0, "<=", 5]}]},
                                 {"d-count": [{"numeric": ["<", 10]}]},
                                 {"x-limit": [{"numeric": ["=", 3.018e2]}]}]}}
    assert ok(nested)
    assert not ok(nested, {"detail": {"c-count": 50}})


def test_or_alternatives_combine_with_the_fields_around_them() -> None:
    pattern = {"source": ["a"], "$or": [{"x": [1]}, {"$or": [{"y": [2]}, {"z": [3]}]}]}
    assert ok(pattern, {"source": "a", "z": 3})
    assert not ok(pattern, {"source": "b", "z": 3})
    assert not ok(pattern, {"source": "a", "w": 3})


# ------------------------------------------------------------------------------ bad patterns
@pytest.mark.parametrize(("pattern", "why"), [
    ('["aws.ec2"]', 'Filter is not an object\n at [Source: (String)"["aws.ec2"]"; line: 1, column: 2]'),
    ({"source": "aws.ec2"}, '"source" must be an object or an array'),
    ({"source": []}, "Empty arrays are not allowed"),
    ({"detail": {}}, "Empty objects are not allowed"),
    ({"source": [["x"]]}, "Match value must be String, number, true, false, or null"),
    ({"source": [{}]}, "Match expression name not found"),
    ({"source": [{"regex": "x"}]}, "Unrecognized match type regex"),
    ({"source": [{"prefix": 1}]}, "prefix match pattern must be a string"),
    ({"source": [{"suffix": ["x"]}]}, "suffix match pattern must be a string"),
    ({"source": [{"prefix": "a", "suffix": "b"}]}, "Only one key allowed in match expression"),
    ({"source": [{"prefix": {"wildcard": "a"}}]}, "Unsupported prefix pattern: wildcard"),
    ({"source": [{"suffix": {"x": "a"}}]}, "Unsupported suffix pattern: x"),
    ({"source": [{"equals-ignore-case": 5}]}, "equals-ignore-case match pattern must be a string"),
    ({"source": [{"wildcard": None}]}, "wildcard match pattern must be a string"),
    ({"source": [{"exists": "yes"}]}, "exists match pattern must be either true or false."),
    ({"source": [{"numeric": 5}]}, "Value of numeric must be an array."),
    ({"source": [{"numeric": [5]}]}, "Invalid member in numeric match: 5"),
    ({"source": [{"numeric": ["!=", 5]}]}, "Unrecognized numeric range operator: !="),
    ({"source": [{"numeric": [">", "a"]}]}, "Value of > must be numeric"),
    ({"source": [{"numeric": ["=", "a"]}]}, "Value of equals must be numeric"),
    ({"source": [{"numeric": ["=", 1, 2]}]}, "Too many elements in numeric expression"),
    ({"source": [{"numeric": [">", 1, ">", 2]}]}, "Bad numeric range operator: >"),
    ({"source": [{"numeric": [">", 1, "<", 2, 3]}]}, "Too many terms in numeric range expression"),
    ({"source": [{"anything-but": None}]}, "Value of anything-but must be an array or single string/number value."),
    ({"source": [{"anything-but": [1, "a"]}]},
     "Inside anything but list, either all values are number or string, mixed type is not supported"),
    ({"source": [{"anything-but": [None]}]}, "Inside anything but list, start|null|boolean is not supported."),
    ({"source": [{"anything-but": {"exists": True}}]}, "Unsupported anything-but pattern: exists"),
    ({"source": [{"anything-but": {"prefix": ""}}]}, "Null prefix/suffix not allowed"),
    ({"source": [{"anything-but": {"prefix": [1]}}]}, "prefix/suffix match pattern must be a string"),
    ({"$or": {"a": [1]}}, "It must be an Array followed with $or."),
    ({"$or": [{"a": [1]}]}, "There must have at least 2 Objects in $or relationship."),
    ({"$or": [{"a": [1]}, "b"]}, "Only JSON object is allowed in array of $or relationship."),
    ({"$or": [{"a": [1]}, {"numeric": [1]}]}, "numeric is Ruler reserved fieldName which cannot be used inside $or."),
])
def test_bad_patterns_get_aws_reasons(pattern: str | dict, why: str) -> None:
    # AWS appends where its reader stood, once or (inside an anything-but list) twice; the columns of the
    # recorded ones are checked in test_refusals_are_located_as_aws_recorded.
    text = pattern if isinstance(pattern, str) else json.dumps(pattern)
    got = reason(pattern)
    if "\n at [Source" in why:
        assert got == why
        return
    suffix = re.escape(f'\n at [Source: (String)"{text}"; line: 1, column: ') + r"\d+\]"
    assert got.startswith(why) and re.fullmatch(f"(?:{suffix}){{1,2}}", got[len(why):]), got


VALUES = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"


def at(text: str, line: int, column: int) -> str:
    return f'\n at [Source: (String)"{text}"; line: {line}, column: {column}]'


@pytest.mark.parametrize(("text", "why"), [  # the first three as AWS recorded them (TestEventPattern)
    ("this is valid json but not a dict",
     f"Unrecognized token 'this': was expecting {VALUES}" + at("this is valid json but not a dict", 1, 5)),
    ("{'bad': 'quotation'}", "Unexpected character (''' (code 39)): was expecting double-quote to start field "
     "name" + at("{'bad': 'quotation'}", 1, 2)),
    ('{"not": closed mark"',
     f"Unrecognized token 'closed': was expecting {VALUES}" + at('{"not": closed mark"', 1, 15)),
    ('{"source": [', 'Unexpected end-of-input: expected close marker for Array (start marker at [Source: (String)'
     '"{"source": ["; line: 1, column: 12])' + at('{"source": [', 1, 13)),
    ('{\n "n": [NaN]}', "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"
     + at('{\n "n": [NaN]}', 2, 11)),
    ('{"a": ["\u00e9" x]}', "Unexpected character ('x' (code 120)): was expecting comma to separate Array entries"
     + at('{"a": ["\u00e9" x]}', 1, 12)),  # columns count characters, not UTF-8 bytes
])
def test_text_that_is_not_json_gets_jacksons_words(text: str, why: str) -> None:
    assert reason(text) == why


ONCE, TWICE = 1, 2
RECORDED_REFUSALS = [  # LocalStack's test_events_patterns snapshots of AWS (their MessageRaw), word for word
    ('{"int": 42}', '"int" must be an object or an array', 11, ONCE),
    ('{"string": "my-value"}', '"string" must be an object or an array', 13, ONCE),
    ('{"resources": []}', "Empty arrays are not allowed", 17, ONCE),
    ('{"detail": {"equal": [{"NUMERIC": ["=", 5]}]}}', "Unrecognized match type NUMERIC", 36, ONCE),
    ('{"my_key": [{"EXISTS": true}]}', "Unrecognized match type EXISTS", 28, ONCE),
    ('{"detail": {"c-count": [{"numeric": [">", 0, ">", 0]}]}}', "Bad numeric range operator: >", 49, ONCE),
    ('{"detail": {"c-count": [{"numeric": [">", 0, "<"]}]}}', "Value of < must be numeric", 50, ONCE),
    ('{"EventBusArn": [{"wildcard": "arn:aws:events:us-east-1:**:event-bus/*"}]}',
     "Consecutive wildcard characters at pos 26", 72, ONCE),
    ('{"detail-type": [{"equals-ignore-case": ["ec2 instance state-change notification"]}]}',
     "equals-ignore-case match pattern must be a string", 42, ONCE),
    ('{"detail-type": [{"equals-ignore-case": {"prefix": "ec2"}}]}',
     "equals-ignore-case match pattern must be a string", 42, ONCE),
    ('{"detail": {"state": [{"anything-but": {"equals-ignore-case": 123}}]}}',
     "Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.", 66, ONCE),
    ('{"detail": {"state": [{"anything-but": {"equals-ignore-case": [123, 456]}}]}}',
     "Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.", 67, TWICE),
    ('{"EventBusArn": [{"wildcard": 123}]}', "wildcard match pattern must be a string", 34, ONCE),
    ('{"EventBusArn": [{"wildcard": ["arn:aws:events:us-east-1:**:event-bus/*"]}]}',
     "wildcard match pattern must be a string", 32, ONCE),
    ('{"detail": {"state": [{"anything-but": {"wildcard": [123, "*/dir/*"]}}]}}',
     "wildcard match pattern must be a string", 57, TWICE),
    ('{"detail": {"FilePath": [{"anything-but": {"wildcard": 123}}]}}',
     "wildcard match pattern must be a string", 59, ONCE),
    ('{"detail": {"FileName": [{"anything-but": {"suffix": [123, ".txt"]}}]}}',
     "prefix/suffix match pattern must be a string", 58, TWICE),
    ('{"detail": {"FileName": [{"anything-but": {"suffix": 123}}]}}',
     "prefix/suffix match pattern must be a string", 57, ONCE),
    ('{"detail": {"state": [{"anything-but": {"prefix": [123, "test"]}}]}}',
     "prefix/suffix match pattern must be a string", 55, TWICE),
    ('{"detail": {"state": [{"anything-but": {"prefix": 123}}]}}',
     "prefix/suffix match pattern must be a string", 54, ONCE),
    ('{"time": [{"prefix": ["2022-07-13"]}]}', "prefix match pattern must be a string", 23, ONCE),
    ('{"time": [{"prefix": 123}]}', "prefix match pattern must be a string", 25, ONCE),
    ('{"FileName": [{"suffix": 123}]}', "suffix match pattern must be a string", 29, ONCE),
    ('{"FileName": [{"suffix": [".png"]}]}', "suffix match pattern must be a string", 27, ONCE),
    ('{"detail": {"FileName": [{"anything-but": {"prefix": {"equals-ignore-case": "file"}}}]}}',
     "Value of anything-but must be an array or single string/number value.", 55, ONCE),
    ('{"detail": {"FileName": [{"anything-but": {"suffix": {"equals-ignore-case": ".png"}}}]}}',
     "Value of anything-but must be an array or single string/number value.", 55, ONCE),
    ('{"detail": {"sourceIPAddress": [{"cidr": ["bad-type"]}]}}', "prefix match pattern must be a string", 43, ONCE),
    # An AWS::Events::Rule deploy error quoted in a public write-up: the same rule, column 56.
    ('{"source":["test.event-pattern"],"detail":{"lenderId":"LenderA"}}', '"lenderId" must be an object or an array',
     56, ONCE),
]


@pytest.mark.parametrize(("text", "why", "column", "times"), RECORDED_REFUSALS)
def test_refusals_are_located_as_aws_recorded(text: str, why: str, column: int, times: int) -> None:
    assert reason(text) == why + at(text, 1, column) * times


def test_a_cidr_is_refused_without_a_location_but_a_cidr_that_is_no_string_with_one() -> None:
    # As AWS recorded: the address is checked after the pattern is read, its type while reading.
    assert reason('{"ip": [{"cidr": "10.0.0.1"}]}') == "Malformed CIDR, one '/' required"
    assert reason('{"ip": [{"cidr": "10.0.0.1/x"}]}') == "Malformed CIDR, mask bits must be an integer"
    assert reason('{"ip": [{"cidr": "xx.11.xx/24"}]}') == "Nonstandard IP address: xx.11.xx"
    text = '{"ip": [{"cidr": 7}]}'
    assert reason(text) == "prefix match pattern must be a string" + at(text, 1, 19)


def test_a_location_counts_lines_and_characters() -> None:
    text = '{\n  "d\u00e9tail": {\n    "x": "\u00e9"}}'
    assert reason(text) == '"x" must be an object or an array' + at(text, 3, 11)


def test_a_long_pattern_is_quoted_cut_at_500_characters() -> None:
    text = '{"source": ["' + "x" * 600 + '"], oops}'
    assert reason(text).endswith(f'[Source: (String)"{text[:500]}"[truncated {len(text) - 500} chars]; '
                                 f"line: 1, column: {len(text) - 4}]")  # at the 'o'


def test_compiled_once_and_reused() -> None:
    text = json.dumps({"source": ["cache-me"]})
    assert compile_pattern(text) is compile_pattern(text)
    assert compile_pattern(text).matches({"source": "cache-me"})
