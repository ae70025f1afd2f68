"""The language pieces on our own case files (tests/unit/sfn/cases/*.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onceflow.sfn.asl.check import definition_error_message, validate_definition, validation_result
from onceflow.sfn.asl.choice import evaluate_choice_rule
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic
from onceflow.sfn.asl.paths import apply_result_path, resolve_path

CASES = Path(__file__).parent / "cases"


def _load(name: str) -> tuple[dict, list[dict]]:
    doc = json.loads((CASES / name).read_text())
    return doc, doc["cases"]


def _strict(a: object, b: object) -> bool:
    """JSON equality that tells 1 from 1.0 and from true."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


_, PATHS = _load("paths.json")


@pytest.mark.parametrize("case", PATHS, ids=[c["path"] for c in PATHS])
def test_paths(case: dict) -> None:
    args = (case["path"], case["data"], case.get("context"), case.get("variables"))
    if "cause" in case:
        with pytest.raises(StatesError) as info:
            resolve_path(*args)
        assert (info.value.error, info.value.cause) == ("States.Runtime", case["cause"])
    else:
        assert _strict(resolve_path(*args), case["result"])


_, RESULT_PATHS = _load("result_path.json")


@pytest.mark.parametrize("case", RESULT_PATHS, ids=[str(c["result_path"]) for c in RESULT_PATHS])
def test_result_path(case: dict) -> None:
    before = json.dumps(case["input"])
    if "error" in case:
        with pytest.raises(StatesError) as info:
            apply_result_path(case["result_path"], case["input"], case["result"])
        assert (info.value.error, info.value.cause) == (case["error"], case["cause"])
    else:
        assert _strict(apply_result_path(case["result_path"], case["input"], case["result"]), case["output"])
    assert json.dumps(case["input"]) == before  # the state input is never mutated


INTRINSIC_DOC, INTRINSICS = _load("intrinsics.json")


@pytest.mark.parametrize("case", INTRINSICS, ids=[c["expr"] for c in INTRINSICS])
def test_intrinsics(case: dict) -> None:
    args = (case["expr"], case["input"], INTRINSIC_DOC["context"], case.get("variables"))
    if "error" in case:
        with pytest.raises(StatesError) as info:
            evaluate_intrinsic(*args)
        assert info.value.error == case["error"]
        if "cause" in case:
            assert info.value.cause == case["cause"]
    else:
        assert _strict(evaluate_intrinsic(*args), case["result"])


_, CHOICES = _load("choice.json")


@pytest.mark.parametrize("case", CHOICES, ids=[json.dumps(c["rule"])[:60] for c in CHOICES])
def test_choice_rules(case: dict) -> None:
    args = (case["rule"], case["input"], case.get("context"), case.get("variables"))
    if "error" in case:
        with pytest.raises(StatesError) as info:
            evaluate_choice_rule(*args)
        assert (info.value.error, info.value.cause) == (case["error"], case["cause"])
    else:
        assert evaluate_choice_rule(*args) is case["match"]


_, DEFINITIONS = _load("definitions.json")


@pytest.mark.parametrize("case", DEFINITIONS, ids=[c["name"] for c in DEFINITIONS])
def test_definitions(case: dict) -> None:
    text = case["text"] if "text" in case else json.dumps(case["definition"])
    diags = validate_definition(text, case.get("type", "STANDARD"))
    if case.get("valid"):
        assert diags == []
    if "message" in case:
        assert definition_error_message(diags) == case["message"]
    if "diagnostics" in case:
        assert validation_result(diags)["diagnostics"] == case["diagnostics"]
    if "codes" in case:
        assert [d.code for d in diags] == case["codes"]
