"""sfn/mocks.py: the mock configuration format, its validation and the invocation lookup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from onceflow.sfn.mocks import MockCase, MockConfigError, Mocked, check_result, load_file, parse, split_case

DOC: dict[str, Any] = {
    "StateMachines": {"M": {"TestCases": {"T": {"A": "Retry", "B": "Ok"}}}},
    "MockedResponses": {
        "Retry": {"0": {"Throw": {"Error": "E0", "Cause": "c0"}}, "1-2": {"Throw": {"Error": "E1"}},
                  "3": {"Return": {"ok": 1}}},
        "Ok": {"0": {"Return": [1, 2]}},
    },
}


def test_answers_follow_the_invocation_ranges() -> None:
    case = parse(DOC).test_case("M", "T")
    assert case is not None
    assert case.answer("A", 0) == Mocked(True, error="E0", cause="c0")
    assert case.answer("A", 1) == case.answer("A", 2) == Mocked(True, error="E1")
    assert case.answer("A", 3) == Mocked(False, result={"ok": 1})
    assert case.answer("B", 0) == Mocked(False, result=[1, 2])
    assert case.answer("Unmocked", 0) is None
    with pytest.raises(LookupError, match="invocation 4"):
        case.answer("A", 4)


def test_unknown_machine_or_case_has_no_test_case() -> None:
    config = parse(DOC)
    assert config.test_case("Other", "T") is None
    assert config.test_case("M", "Other") is None


def test_a_test_case_round_trips_through_its_stored_json() -> None:
    case = parse(DOC).test_case("M", "T")
    assert case is not None
    again = MockCase.from_json(case.to_json())
    assert again == case
    assert [again.answer("A", n) for n in range(4)] == [case.answer("A", n) for n in range(4)]


def test_split_case() -> None:
    assert split_case("arn:aws:states:us-east-1:1:stateMachine:M#T") == ("arn:aws:states:us-east-1:1:stateMachine:M",
                                                                         "T")
    assert split_case("arn:aws:states:us-east-1:1:stateMachine:M") == ("arn:aws:states:us-east-1:1:stateMachine:M",
                                                                       None)


@pytest.mark.parametrize("doc, fragment", [
    ([], "JSON object"),
    ({"StateMachines": {}, "Extra": 1}, "'Extra'"),
    ({"StateMachines": {"M": {"Cases": {}}}}, "exactly the field TestCases"),
    ({"StateMachines": {"M": {"TestCases": {"T": {"S": 3}}}}}, "must name a mocked response"),
    ({"StateMachines": {"M": {"TestCases": {"T": {"S": "Nope"}}}}, "MockedResponses": {}}, "'Nope'"),
    ({"MockedResponses": {"R": {"x": {"Return": 1}}}}, "not a number or a range"),
    ({"MockedResponses": {"R": {"3-1": {"Return": 1}}}}, "ends before it starts"),
    ({"MockedResponses": {"R": {"0-2": {"Return": 1}, "1": {"Return": 1}}}}, "overlap"),
    ({"MockedResponses": {"R": {"0": {}}}}, "exactly one of Return or Throw"),
    ({"MockedResponses": {"R": {"0": {"Throw": {"Cause": "c"}}}}}, "Error must be a non-empty string"),
    ({"MockedResponses": {"R": {"0": {"Throw": {"Error": "E", "Cause": 1}}}}}, "Cause must be a string"),
    ({"MockedResponses": {"R": {"0": {"Throw": {"Error": "E", "Code": 1}}}}}, "unknown field 'Code'"),
])
def test_bad_documents_are_refused_with_the_place(doc: Any, fragment: str) -> None:
    with pytest.raises(MockConfigError, match=None) as exc:
        parse(doc)
    assert fragment in str(exc.value)


def test_load_file_reports_unreadable_and_non_json_files(tmp_path: Path) -> None:
    with pytest.raises(MockConfigError, match="cannot read"):
        load_file(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(MockConfigError, match="is not JSON"):
        load_file(bad)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(DOC))
    assert load_file(good).test_case("M", "T") is not None


SHAPES: dict[str, Any] = {
    "Out": {"type": "structure", "required": ["Id"], "members": {
        "Id": {"shape": "S"}, "count": {"shape": "I"}, "Tags": {"shape": "L"}, "Attrs": {"shape": "M"},
        "On": {"shape": "B"}, "Body": {"shape": "Blob"}, "Class": {"shape": "E"}, "Size": {"shape": "R"},
        "Code": {"shape": "Short"}}},
    "S": {"type": "string"}, "I": {"type": "integer"}, "B": {"type": "boolean"}, "Blob": {"type": "blob"},
    "E": {"type": "string", "enum": ["A", "B"]}, "R": {"type": "integer", "min": 128, "max": 10240},
    "Short": {"type": "string", "min": 1, "max": 3},
    "L": {"type": "list", "member": {"shape": "S"}},
    "M": {"type": "map", "key": {"shape": "S"}, "value": {"shape": "I"}},
}


# AWS's wordings: LocalStack's AWS-validated test_field_validation_mode* snapshots (the member's
# name, first letter upper case; fields the API does not define pass); "must be a boolean" and
# "is larger than the maximum length" are UNCONFIRMED.
@pytest.mark.parametrize("result, strict, problem", [
    ({"Id": "a", "Count": 1, "Tags": ["x"], "Attrs": {"k": 1}, "On": True, "Body": {"any": 1}}, True, None),
    ({"Count": 1}, False, None),
    ({"Count": 1}, True, "Required field 'Id' is missing"),
    ({"Id": "a", "SdkHttpMetadata": {}}, True, None),
    ({"Id": 1}, True, "Field 'Id' must be a string"),
    ({"Id": "a", "Count": True}, True, "Field 'Count' must be a number"),
    ({"Id": "a", "count": True}, True, None),  # not the API's name for it: not checked
    ({"Id": "a", "On": 1}, True, "Field 'On' must be a boolean"),
    ({"Id": "a", "Tags": ["x", 2]}, True, "Field 'Tags' must be a string"),
    ({"Id": "a", "Tags": "x"}, True, "Field 'Tags' must be an array"),
    ({"Id": "a", "Attrs": {"k": "v"}}, True, "Field 'Attrs' must be a number"),
    ({"Id": "a", "Other": 1}, False, None),
    ({"Id": "a", "Body": 7}, True, "Field 'Body' must be a string"),
    ({"Id": "a", "Class": "C"}, True, "Field 'Class' is not an expected value"),
    ({"Id": "a", "Size": 127}, True, "Field 'Size' is less than the minimum value"),
    ({"Id": "a", "Size": 10241}, True, "Field 'Size' exceeds the maximum value"),
    ({"Id": "a", "Code": ""}, True, "Field 'Code' is smaller than the minimum length"),
    ({"Id": "a", "Code": "abcd"}, True, "Field 'Code' is larger than the maximum length"),
    ([], False, "The mocked result must be a JSON object"),
])
def test_check_result(result: Any, strict: bool, problem: str | None) -> None:
    assert check_result(result, SHAPES, "Out", strict) == problem
