"""DescribeStateMachine's variableReferences, from the definitions of LocalStack's AWS-validated
recording tests/aws/services/stepfunctions/v2/test_sfn_api_variable_references.snapshot.json
(2024-11-20). The recording's harness sorts each list, so the lists are compared sorted."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.sfn.asl.variable_refs import variable_references

PARAMETERS = {"StartAt": "State0", "States": {
    "State0": {"Type": "Pass", "Parameters": {"result": "$result"}, "Assign": {"result": "foobar"}, "Next": "State1"},
    "State1": {"Type": "Pass", "ResultPath": "$.result", "Parameters": {"result.$": "$result"}, "End": True}}}
CHOICE = {"StartAt": "Setup", "States": {
    "Setup": {"Type": "Pass", "Assign": {"guess": "the_guess", "answer": "the_answer"}, "Next": "CheckAnswer"},
    "CheckAnswer": {"Type": "Choice", "Choices": [
        {"Variable": "$guess", "StringEqualsPath": "$answer", "Next": "CorrectAnswer"}], "Default": "WrongAnswer"},
    "CorrectAnswer": {"Type": "Pass", "Result": {"state": "CORRECT"}, "End": True},
    "WrongAnswer": {"Type": "Pass", "Assign": {"guess.$": "$answer"}, "Result": {"state": "WRONG"},
                    "Next": "CheckAnswer"}}}
OUTER_SCOPE = {"StartAt": "Input", "States": {
    "Input": {"Type": "Pass", "Result": [[9, 44, 6]], "Assign": {"bias": 4.3}, "Next": "IterateLevels"},
    "IterateLevels": {"Type": "Map", "MaxConcurrency": 1, "ItemProcessor": {
        "ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "AssignCurrentVector", "States": {
            "AssignCurrentVector": {"Type": "Pass", "Assign": {"xCurrent.$": "$[0]", "yCurrent.$": "$[1]",
                                                               "zCurrent.$": "$[2]"}, "Next": "Calculate"},
            "Calculate": {"Type": "Map", "MaxConcurrency": 1, "ItemProcessor": {
                "ProcessorConfig": {"Mode": "INLINE"}, "StartAt": "Summate", "States": {
                    "Summate": {"Type": "Pass", "Assign": {"Sum.$": "States.MathAdd(States.MathAdd(States.MathAdd("
                                                                    "$yCurrent, $xCurrent), $zCurrent), $bias)"},
                                "End": True}}}, "End": True}}}, "End": True}}}
MAX_ITEMS = {"StartAt": "Start", "States": {
    "Start": {"Type": "Pass", "Assign": {"maxItems": "2"}, "Next": "MapState"},
    "MapState": {"Type": "Map", "MaxConcurrency": 1, "ItemReader": {
        "ReaderConfig": {"InputType": "JSON", "MaxItemsPath": "$maxItems"},
        "Resource": "arn:aws:states:::s3:getObject", "Parameters": {"Bucket.$": "$.Bucket", "Key.$": "$.Key"}},
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "PassItem", "States": {"PassItem": {"Type": "Pass", "End": True}}},
        "End": True}}}
JSONATA_CHOICE = {"StartAt": "CheckResult", "States": {
    "CheckResult": {"Type": "Choice", "QueryLanguage": "JSONata", "Choices": [
        {"Condition": "{% $states.input.result.done %}", "Next": "FinishTrue"},
        {"Condition": "{% $not($states.input.result.done) %}", "Next": "FinishFalse"}]},
    "FinishTrue": {"End": True, "Type": "Pass"}, "FinishFalse": {"End": True, "Type": "Pass"}}}


@pytest.mark.parametrize(("definition", "expected"), [
    (PARAMETERS, {"State1": ["result"]}),
    (CHOICE, {"CheckAnswer": ["answer", "guess"], "WrongAnswer": ["answer"]}),
    (OUTER_SCOPE, {"Summate": ["bias", "xCurrent", "yCurrent", "zCurrent"]}),
    (MAX_ITEMS, {"MapState": ["maxItems"]}),
    (JSONATA_CHOICE, {}),
], ids=["BASE_REFERENCE_IN_PARAMETERS", "BASE_REFERENCE_IN_CHOICE", "BASE_REFERENCE_IN_ITERATOR_OUTER_SCOPE",
        "MAP_STATE_REFERENCE_IN_MAX_ITEMS_PATH", "CHOICE_STATE_UNSORTED_CHOICE_PARAMETERS_JSONATA"])
def test_variable_references_as_recorded(definition: dict[str, Any], expected: dict[str, list[str]]) -> None:
    assert {k: sorted(v) for k, v in variable_references(definition).items()} == expected


def test_a_variable_named_inside_a_string_literal_is_not_read() -> None:
    definition = {"StartAt": "S", "States": {"S": {"Type": "Pass", "End": True, "Parameters": {
        "x.$": "States.Format('costs $price {}', $amount)"}}}}
    assert variable_references(definition) == {"S": ["amount"]}
