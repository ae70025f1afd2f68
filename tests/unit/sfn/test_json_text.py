"""Payload JSON as Step Functions writes it: doubles in Java's Double.toString form (Jackson)."""

from __future__ import annotations

import json

import pytest

from onceflow.sfn.asl.json_text import dumps, java_double


@pytest.mark.parametrize(("value", "text"), [
    (1e-7, "1.0E-7"), (1.5e-7, "1.5E-7"), (-2.5e-10, "-2.5E-10"), (1e21, "1.0E21"), (1e16, "1.0E16"),
    (1e7, "1.0E7"), (12345678.9, "1.23456789E7"), (9999999.0, "9999999.0"), (0.001, "0.001"),
    (0.0009, "9.0E-4"), (0.0001, "1.0E-4"), (1234567.5, "1234567.5"), (0.0, "0.0"), (-0.0, "-0.0"),
    (1.0, "1.0"), (3.3, "3.3"), (2.0**63, "9.223372036854776E18"), (1.7976931348623157e308, "1.7976931348623157E308"),
])
def test_java_double(value: float, text: str) -> None:
    assert java_double(value) == text
    assert dumps(value) == text
    assert json.loads(text) == value  # the same number


def test_doubles_inside_documents_and_text_that_only_looks_like_them() -> None:
    doc = {"a": [1e-7, 2.5, {"b": 12345678.0}], "s": "x:1e-07,12345678.0,0.0005", "n": 10**30, "i": 100000000}
    assert dumps(doc) == ('{"a":[1.0E-7,2.5,{"b":1.2345678E7}],"s":"x:1e-07,12345678.0,0.0005",'
                          '"n":1000000000000000000000000000000,"i":100000000}')
    # strings alone are json's text, even when they look like a double Java writes otherwise
    for s in ("1e-07", "[12345678.0]", "0.0005", "v1.2e+3"):
        assert dumps({"s": s}) == json.dumps({"s": s}, separators=(",", ":"))


def test_text_without_such_doubles_is_jsons() -> None:
    for value in ({"x": 1.5, "y": [0.25, 1000000.0], "z": "é\u2028"}, [], "a.b", 7, None, True):
        assert dumps(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def test_a_double_deep_in_a_document_nested_as_far_as_jackson_reads() -> None:
    value: object = [1e-7]
    for _ in range(900):  # the slow path rewrites the encoder's text: no second recursion to run out of
        value = [value]
    assert dumps(value) == "[" * 901 + "1.0E-7" + "]" * 901
    doc = {"1e-07": 1e-07, 'k"1e-07': [2, 0.0005]}  # names and strings that look like doubles stay
    assert dumps(doc) == json.dumps(doc, separators=(",", ":")).replace(":1e-07", ":1.0E-7").replace("0.0005", "5.0E-4")
