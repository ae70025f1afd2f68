"""JSONata failures and numbers end to end: an execution's cause carries jsonata-js's error code and
message (as AWS, running jsonata-js 2.0.6, writes them), and its output numbers are doubles."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from sfn_setup import finished, states_role


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return states_role(aws, "sfnjs")


def _run(aws: Callable[..., Any], role: str, output: str, data: str) -> dict[str, Any]:
    sfn = aws("stepfunctions")
    definition = {"QueryLanguage": "JSONata", "StartAt": "P",
                  "States": {"P": {"Type": "Pass", "Output": output, "End": True}}}
    arn = sfn.create_state_machine(name=f"js-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                   roleArn=role)["stateMachineArn"]
    ex = sfn.start_execution(stateMachineArn=arn, input=data)["executionArn"]
    return finished(sfn, ex)


@pytest.mark.parametrize(("expr", "message"), [
    ('$sort([1, "a"])', "D3070: The single argument form of the sort function can only be applied to an array "
                        "of strings or an array of numbers.  Use the second argument to specify a comparison function"),
    ("$power(10, 400)", "D3061: The power function has resulted in a value that cannot be represented as a JSON "
                        "number: base=10, exponent=400"),
    ('$abs("x")', 'T0410: Argument 1 of function "abs" does not match function signature'),
])
def test_the_cause_carries_jsonata_js_code_and_message(aws: Callable[..., Any], role: str, expr: str,
                                                       message: str) -> None:
    d = _run(aws, role, "{% " + expr + " %}", "{}")
    assert d["status"] == "FAILED" and d["error"] == "States.QueryEvaluationError"
    assert d["cause"] == ("An error occurred while executing the state 'P' (entered at the event id #2). "
                          f"The JSONata expression '{expr}' specified for the field 'Output' threw an error "
                          f"during evaluation. {message}")


def test_output_numbers_are_doubles(aws: Callable[..., Any], role: str) -> None:
    d = _run(aws, role, "{% [$states.input.n, $states.input.n + 1, $power(2, 60), 1e21, 2.0] %}",
             '{"n": 9007199254740993}')
    assert d["status"] == "SUCCEEDED"
    # jsonata-js's numbers reach the state's output as JSON text that Jackson reads and writes again:
    # JavaScript's digits for integers (2^60 as 1152921504606847000), a double left a double in
    # Java's form (1e+21 read as a double, written 1.0E21: sfn/asl/json_text.py, UNCONFIRMED).
    assert d["output"] == "[9007199254740992,9007199254740992,1152921504606847000,1.0E21,2]"
