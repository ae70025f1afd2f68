"""Tokenizer, parser, validator, evaluator and updater, driven by the case files in cases/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from onceflow.ddb.expr.evaluate import condition, project
from onceflow.ddb.expr.parser import tokenize
from onceflow.ddb.expr.update import apply_update
from onceflow.ddb.expr.validate import check_unused, check_values, compile_expression
from onceflow.ddb.values import dumps, loads, normalize_item
from onceflow.errors import ServiceError

CASES = Path(__file__).parent / "cases"


def load(name: str) -> list[Any]:
    return json.loads((CASES / name).read_text())  # type: ignore[no-any-return]


def typed(d: dict[str, Any] | None) -> dict[str, Any]:
    """Case files write binaries as base64 strings, as they are stored."""
    return normalize_item(loads(json.dumps(d or {})))


@pytest.mark.parametrize("case", load("syntax.json"), ids=lambda c: c["text"])
def test_syntax(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(ServiceError) as e:
            c = compile_expression(case["kind"], case["text"], case.get("names"))
            # Overlapping paths and a function's operands are found here but answered per request.
            check_values(c, {name: {"N": "1"} for name in c.values_used})
        assert e.value.message == case["error"]
        assert e.value.code == "ValidationException"
    else:
        compile_expression(case["kind"], case["text"], case.get("names"))


@pytest.mark.parametrize("case", load("conditions.json"), ids=lambda c: c["text"])
def test_conditions(case: dict[str, Any]) -> None:
    values = typed(case.get("values"))
    try:
        c = compile_expression("ConditionExpression", case["text"], case.get("names"))
        check_values(c, values)
    except ServiceError as e:
        assert e.message == case.get("error")
        return
    assert "error" not in case, "expected an error"
    assert condition(c.tree, typed(case["item"]), values) is case["expected"]


@pytest.mark.parametrize("case", load("updates.json"), ids=lambda c: c["text"])
def test_updates(case: dict[str, Any]) -> None:
    values = typed(case.get("values"))
    item = typed(case["item"])
    before = dumps(item)
    try:
        c = compile_expression("UpdateExpression", case["text"], case.get("names"))
        check_values(c, values)
        got = apply_update(c.tree, item, values)
    except ServiceError as e:
        assert e.message == case.get("error")
        assert dumps(item) == before, "a failed update must not touch the item"
        return
    assert "error" not in case, "expected an error"
    assert got == typed(case["expected"])
    assert dumps(item) == before


def test_tokenizer_keywords_functions_and_names() -> None:
    toks = [(t.type, str(t)) for t in tokenize("SET #a = if_not_exists(a, :z) and b[10]")]
    assert toks == [("SET", "SET"), ("NAME_REF", "#a"), ("EQ", "="), ("FUNC", "if_not_exists"), ("LPAR", "("),
                    ("NAME", "a"), ("COMMA", ","), ("VALUE_REF", ":z"), ("RPAR", ")"), ("AND", "and"),
                    ("NAME", "b"), ("LBRACK", "["), ("INDEX", "10"), ("RBRACK", "]")]


def test_compiled_once_per_text() -> None:
    a = compile_expression("ConditionExpression", "x = :v", None)
    b = compile_expression("ConditionExpression", "x = :v", None)
    assert a is b


def test_unused_placeholders() -> None:
    c = compile_expression("ConditionExpression", "#a = :v", {"#a": "a"})
    with pytest.raises(ServiceError) as e:
        check_unused({"#a": "a", "#b": "b"}, {":v": {"S": "x"}}, [c])
    assert e.value.message == "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}"
    with pytest.raises(ServiceError) as e:
        check_unused({"#a": "a"}, {":v": {"S": "x"}, ":w": {"S": "y"}}, [c])
    assert e.value.message == "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"


def test_projection_nests_like_dynamodb() -> None:
    item = typed({"a": {"M": {"b": {"L": [{"N": "0"}, {"N": "1"}, {"N": "2"}]}, "c": {"S": "x"}}}, "d": {"S": "y"}})
    c = compile_expression("ProjectionExpression", "a.b[2], a.b[0], d, zz", None)
    assert project(item, c.tree.paths) == {"a": {"M": {"b": {"L": [{"N": "0"}, {"N": "2"}]}}}, "d": {"S": "y"}}


@pytest.mark.parametrize(("text", "values", "error"), [
    # architect/dynalite test/updateItem.js, run against DynamoDB: every pair is checked for an overlap
    # before any for a conflict, each named in the order written ...
    ("set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", {},
     "Two document paths overlap with each other; must remove or rewrite one of these paths; "
     "path one: [c, [1], a], path two: [c]"),
    ("remove c, #c.a, #d", {}, "Two document paths overlap with each other; must remove or rewrite one of these "
                               "paths; path one: [c], path two: [c, a]"),
    ("remove a.#c set a[1] = #d", {}, "Two document paths conflict with each other; must remove or rewrite one of "
                                      "these paths; path one: [a, c], path two: [a, [1]]"),
    ("set #c[3].#d = a, #c.#d[3] = if_not_exists(a)", {},
     "Two document paths conflict with each other; must remove or rewrite one of these paths; "
     "path one: [c, [3], [3]], path two: [c, [3], [3]]"),
    # ... an unknown function before a repeated section; an undefined value before an operand count, ADD's
    # operand type before it too.
    ("set #c = if_not_exist(:x) set c = d", {}, "Invalid function name; function: if_not_exist"),
    ("SET #c = if_not_exists(:x)", {}, "An expression attribute value used in expression is not defined; "
                                       "attribute value: :x"),
    ("set b = if_not_exists(a) add a.b :s", {":s": {"S": "a"}},
     "Incorrect operand type for operator or function; operator: ADD, operand type: STRING, "
     "typeSet: ALLOWED_FOR_ADD_OPERAND"),
    ("set a = if_not_exists(:s, c)", {":s": {"S": "a"}},
     "Operator or function requires a document path; operator or function: if_not_exists"),
])
def test_update_errors_in_dynamodbs_order(text: str, values: dict[str, Any], error: str) -> None:
    with pytest.raises(ServiceError) as e:
        c = compile_expression("UpdateExpression", text, {"#c": "c", "#d": "[3]"})
        check_values(c, typed(values))
    assert e.value.message == "Invalid UpdateExpression: " + error
