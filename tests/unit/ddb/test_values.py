"""The type system: number normalisation, validation messages, ordering, key encoding, item size."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

import pytest

from onceflow.ddb.keys import decode_number, encode_key, encode_number
from onceflow.ddb.values import item_size, normalize_number, normalize_value, number_size, values_equal
from onceflow.errors import ServiceError

NUMBERS = json.loads((Path(__file__).parent / "cases" / "numbers.json").read_text())


@pytest.mark.parametrize(("text", "expected"), NUMBERS)
def test_number_normalisation(text: str, expected: str) -> None:
    if expected.startswith("error:"):
        with pytest.raises(ServiceError) as e:
            normalize_number(text)
        assert e.value.message == expected[len("error:"):]
    else:
        assert normalize_number(text) == expected


@pytest.mark.parametrize(("value", "message"), [
    ({}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
    ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
                           "the supported datatypes"),
    ({"SS": []}, "One or more parameter values were invalid: An string set  may not be empty"),
    ({"NS": []}, "One or more parameter values were invalid: An number set  may not be empty"),
    ({"BS": []}, "One or more parameter values were invalid: Binary sets should not be empty"),
    ({"SS": ["a", "a"]}, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."),
    ({"NS": ["1", "1.0"]}, "One or more parameter values were invalid: Input collection [1, 1.0] contains duplicates."),
    ({"NULL": False},
     "One or more parameter values were invalid: Null attribute value types must have the value of true"),
    ({"M": {"x": {"N": "x1"}}}, "The parameter cannot be converted to a numeric value: x1"),
    ({"S": "a\ud800"},
     "One or more parameter values were invalid: Strings must be valid Unicode (lone surrogate found)"),
])
def test_invalid_values(value: dict[str, object], message: str) -> None:
    with pytest.raises(ServiceError) as e:
        normalize_value(value)
    assert e.value.message == message
    assert e.value.code == "ValidationException"


def test_empty_string_is_a_value() -> None:
    assert normalize_value({"S": ""}) == {"S": ""}


def test_number_key_encoding_sorts_numerically() -> None:
    rnd = random.Random(7)
    nums = ["0", "1", "-1", "1.5", "1.55", "-1.5", "-1.55", "1E125", "-1E125", "1E-130", "-1E-130"]
    nums += [str(Decimal(rnd.randint(-10**9, 10**9)) / Decimal(10) ** rnd.randint(0, 12)) for _ in range(3000)]
    nums = [normalize_number(n) for n in nums]
    assert sorted(nums, key=encode_number) == sorted(nums, key=lambda n: (Decimal(n), nums.index(n))) or \
        [Decimal(n) for n in sorted(nums, key=encode_number)] == sorted(Decimal(n) for n in nums)
    for n in nums:
        assert Decimal(decode_number(encode_number(n))) == Decimal(n)


def test_strings_sort_by_utf8_bytes() -> None:
    words = ["a", "B", "é", "z", "aa", "\U0001f600", "\uffff"]
    assert sorted(words, key=lambda w: encode_key({"S": w})) == sorted(words, key=lambda w: w.encode())


def test_set_and_number_equality() -> None:
    assert values_equal({"N": "1.0"}, {"N": "1"})
    assert values_equal({"SS": ["a", "b"]}, {"SS": ["b", "a"]})
    assert not values_equal({"S": "1"}, {"N": "1"})


# Bytes DynamoDB counted for each number, measured on AWS at the 400 KB item limit
# (nubo-db/dynamodb-conformance, tests/tier3/limits/numberByteSize.test.ts).
@pytest.mark.parametrize(("text", "size"), [
    ("0", 1), ("-0", 1), ("1", 2), ("12", 2), ("123", 3), ("1234", 3), ("9" * 38, 20), ("0042", 2), ("100", 2),
    ("1010", 3), ("0.0000001", 2), ("1E125", 2), ("1E-100", 2), ("1.5", 3), ("15", 2), ("1.200", 3),
    ("1.234", 4), ("3.14159", 5), ("123456", 4), ("100.5", 4), ("0.15", 2), ("-42", 3),
])
def test_number_size_counts_significant_digit_pairs_on_each_side_of_the_point(text: str, size: int) -> None:
    assert number_size(text) == size


def test_item_size_counts_names_and_utf8() -> None:
    assert item_size({"id": {"S": "abc"}}) == 5
    assert item_size({"é": {"S": "é"}}) == 4
    assert item_size({"n": {"N": "12345"}}) == 1 + 4
    assert item_size({"m": {"M": {"k": {"BOOL": True}}}}) == 1 + 3 + 1 + 1 + 1


def test_binary_as_base64_text_from_in_process_callers() -> None:
    assert normalize_value({"B": "aGk="}) == {"B": b"hi"}
    assert normalize_value({"BS": ["aGk=", b"yo"]}) == {"BS": [b"hi", b"yo"]}
