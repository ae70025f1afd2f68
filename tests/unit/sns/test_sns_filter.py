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
