"""ValidateStateMachineDefinition's static-analysis warnings (sfn/asl/check_warnings.py)."""

from __future__ import annotations

import json

from onceflow.sfn.asl.check import definition_warnings, validate_definition


def codes(definition: object) -> list[tuple[str, str | None]]:
    return [(d.code, d.location) for d in definition_warnings(json.dumps(definition))]


def test_nested_states_are_walked_and_named_by_their_path() -> None:
    inner = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Parameters": {"x": "$$.Map.Item.Value"}, "End": True}}}
    definition = {"StartAt": "M", "States": {
        "M": {"Type": "Map", "ItemProcessor": inner, "Next": "B"},
        "B": {"Type": "Parallel", "Branches": [inner], "End": True}}}
    assert codes(definition) == [("NO_DOLLAR", "/States/M/ItemProcessor/States/P/Parameters"),
                                 ("NO_DOLLAR", "/States/B/Branches[0]/States/P/Parameters")]


def test_evaluated_fields_literals_and_jsonata_states_warn_of_nothing() -> None:
    definition = {"StartAt": "P", "States": {
        "P": {"Type": "Pass", "Parameters": {"a.$": "$.a", "b": "cost in $", "c": 1}, "Result": {"d": "$.d"},
              "Next": "J"},
        "J": {"Type": "Pass", "QueryLanguage": "JSONata", "Output": {"e": "$.e"}, "Next": "F"},
        "F": {"Type": "Fail", "Error": "Boom", "Cause": "$ is a sign"}}}
    assert codes(definition) == []


def test_warnings_stay_out_of_the_definition_errors() -> None:
    text = json.dumps({"StartAt": "F", "States": {"F": {"Type": "Fail", "Error": "$.e"}}})
    assert validate_definition(text) == []
    assert codes(json.loads(text)) == [("NO_PATH", "/States/F/Error")]
    assert definition_warnings("not json") == [] and definition_warnings("[1]") == []
