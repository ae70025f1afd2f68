"""The SNS filter-policy matcher (patterns/sns_filter.py), case by case from cases/filter_policies.json.

Attribute values in the cases are a string (DataType String) or [DataType, StringValue]."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from onceflow.patterns.sns_filter import FilterPolicyError, compile_policy

CASES = json.loads((Path(__file__).parent / "cases" / "filter_policies.json").read_text())


def attributes(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, value in values.items():
        data_type, text = ("String", value) if isinstance(value, str) else value
        out[name] = {"DataType": data_type, "StringValue": text} if text is not None else \
            {"DataType": data_type, "BinaryValue": b"\x01"}
    return out


@pytest.mark.parametrize("case", CASES["attributes"], ids=lambda c: c["name"])
def test_attribute_policies(case: dict[str, Any]) -> None:
    policy = compile_policy(json.dumps(case["policy"]))
    for message in case["match"]:
        assert policy.matches_attributes(attributes(message)), message
    for message in case["miss"]:
        assert not policy.matches_attributes(attributes(message)), message


@pytest.mark.parametrize("case", CASES["body"], ids=lambda c: c["name"])
def test_body_policies(case: dict[str, Any]) -> None:
    policy = compile_policy(json.dumps(case["policy"]), "MessageBody")
    for message in case["match"]:
        assert policy.matches_body(json.dumps(message)), message
    for message in case["miss"]:
        assert not policy.matches_body(json.dumps(message)), message


def test_a_body_that_is_not_json_matches_nothing() -> None:
    assert not compile_policy('{"a": [{"exists": false}]}', "MessageBody").matches_body("plain text")


@pytest.mark.parametrize("case", CASES["invalid"], ids=lambda c: c["policy"][:40])
def test_invalid_policies(case: dict[str, Any]) -> None:
    with pytest.raises(FilterPolicyError) as exc:
        compile_policy(case["policy"])
    if "message" in case:
        assert str(exc.value) == case["message"]


# Each numeric mistake and the words AWS answers it with (LocalStack's AWS-recorded
# test_validate_policy_numeric_operator snapshot).
NUMERIC_MISTAKES = [
    ([], "Invalid member in numeric match: ]"),
    (["operator"], "Unrecognized numeric range operator: operator"),
    ([1, "<="], "Invalid member in numeric match: 1"),
    (["=", "000"], "Value of equals must be numeric"),
    ([">="], "Value of >= must be numeric"),
    (["<", 100, ">", 10], "Too many elements in numeric expression"),
    ([">=", 1, ">", 2], "Bad numeric range operator: >"),
    ([">", 3, "<", 1], "Bottom must be less than top"),
    ([">", 20, "<="], "Value of <= must be numeric"),
    ([">", 20, 30], "Bad value in numeric range: 30"),
    ([">", 20, "test"], "Bad numeric range operator: test"),
    ([">", "20", "<", "30"], "Value of > must be numeric"),
    ([">", 20, "<", "30"], "Value of < must be numeric"),
    ([">", 20, "<", 30, "<", 50], "Too many terms in numeric range expression"),
]


@pytest.mark.parametrize(("numeric", "message"), NUMERIC_MISTAKES, ids=lambda v: json.dumps(v))
def test_numeric_mistakes_are_worded_as_aws_words_them(numeric: list[Any], message: str) -> None:
    with pytest.raises(FilterPolicyError) as exc:
        compile_policy(json.dumps({"key": [{"numeric": numeric}]}))
    assert str(exc.value) == message


def test_numeric_ranges_that_parse() -> None:
    policy = compile_policy(json.dumps({"a": [{"numeric": [">", 0, "<=", 100]}], "b": [{"numeric": ["=", 5]}]}))
    assert policy.matches_attributes(attributes({"a": ["Number", "100"], "b": ["Number", "5"]}))
    assert not policy.matches_attributes(attributes({"a": ["Number", "0"], "b": ["Number", "5"]}))


def test_true_and_false_match_only_json_booleans() -> None:
    policy = compile_policy(json.dumps({"encrypted": [False]}), "MessageBody")
    assert policy.matches_body(json.dumps({"encrypted": False}))
    assert not policy.matches_body(json.dumps({"encrypted": 0}))
    assert not policy.matches_body(json.dumps({"encrypted": "false"}))
    on_attributes = compile_policy(json.dumps({"encrypted": [True]}))
    assert not on_attributes.matches_attributes(attributes({"encrypted": "true"}))


def test_a_body_policy_is_held_to_five_keys_and_150_combinations_too() -> None:
    six = {f"key_{c}": [f"value_{c}"] for c in "abcdef"}
    with pytest.raises(FilterPolicyError) as exc:
        compile_policy(json.dumps(six), "MessageBody")
    assert str(exc.value) == "Filter policy can not have more than 5 keys"
    # AWS's guide (and LocalStack's AWS-recorded snapshot): 3 x 4 x 2 x 3 x 1 x 3 = 216 combinations
    nested = {"key_a": {"key_b": {"key_c": ["1", "2", "3", "4"]}}, "key_d": {"key_e": ["1", "2", "3"]},
              "key_f": ["1", "2", "3"]}
    with pytest.raises(FilterPolicyError) as exc:
        compile_policy(json.dumps(nested), "MessageBody")
    assert str(exc.value) == "Filter policy is too complex"
    nested["key_f"] = ["1"]  # 3 x 4 x 2 x 3 x 1 x 1 = 72
    compile_policy(json.dumps(nested), "MessageBody")


def test_numbers_compare_to_five_decimal_digits() -> None:
    # AWS: "five digits of accuracy after the decimal point"
    policy = compile_policy(json.dumps({"price": [100.123456789]}))
    assert policy.matches_attributes(attributes({"price": ["Number", "100.1234567"]}))
    assert not policy.matches_attributes(attributes({"price": ["Number", "100.1235"]}))
    body = compile_policy(json.dumps({"price": [{"numeric": [">", 0.000001]}]}), "MessageBody")
    assert not body.matches_body(json.dumps({"price": 0.000002}))  # both are 0.00000 to five digits
    assert body.matches_body(json.dumps({"price": 0.00001}))
