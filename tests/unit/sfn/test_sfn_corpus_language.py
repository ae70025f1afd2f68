"""AWS-recorded cases decided without a server: definitions without Task states run by the engine in
memory, and the checker's diagnostics."""

from __future__ import annotations

import json

import pytest
from sfn_corpus import CORPUS, ids, is_simple, load, matches, run_simple

from onceflow.sfn.asl.check import definition_error_message, validate_definition, validation_result

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"conformance corpus not found at {CORPUS}")

GROUPS = ("assign", "base", "choice_operators", "context_object", "evaluate_jsonata",
          "intrinsic_functions", "outputdecl", "query_language", "scenarios", "api")
SIMPLE = [c for c in load(*GROUPS) if is_simple(c)] if CORPUS.is_dir() else []
RANDOM_PLACEHOLDER = {"FunctionResult": "RandomNumberGenerated"}


@pytest.mark.parametrize("case", SIMPLE, ids=ids(SIMPLE))
def test_simple_definitions_give_aws_result(case: dict) -> None:
    status, output, error, cause = run_simple(case)
    expected = case["expected"]
    assert status == expected["status"], (error, cause)
    if status == "SUCCEEDED":
        if expected["output"] == RANDOM_PLACEHOLDER:  # the recorder replaced a random number
            args = case["input"]["FunctionInput"]
            assert isinstance(output["FunctionResult"], int)
            assert int(args["fst"]) <= output["FunctionResult"] < int(args["snd"])
        else:
            assert matches(expected["output"], output), json.dumps(output)
    else:
        assert error == expected.get("error")
        assert matches(expected.get("cause", ""), cause or ""), cause


VALIDATION = load("api", "api_validation", "credentials", kinds=("create_error", "validate_definition")) \
    if CORPUS.is_dir() else []


@pytest.mark.parametrize("case", VALIDATION, ids=ids(VALIDATION))
def test_invalid_definitions_give_aws_diagnostics(case: dict) -> None:
    diags = validate_definition(case["definition_raw"], case.get("state_machine_type", "STANDARD"))
    if case["kind"] == "create_error":
        assert case["expected"]["error"] == "InvalidDefinition"
        assert definition_error_message(diags) == case["expected"]["cause"]
    else:
        assert validation_result(diags) == case["expected"]["validation"]


ALL_EXECUTIONS = load(*GROUPS) if CORPUS.is_dir() else []


@pytest.mark.parametrize("case", ALL_EXECUTIONS, ids=ids(ALL_EXECUTIONS))
def test_definitions_aws_ran_are_valid(case: dict) -> None:
    diags = validate_definition(json.dumps(case["definition"]), case.get("state_machine_type", "STANDARD"))
    assert diags == []
