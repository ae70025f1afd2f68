"""KeyConditionExpression to key ranges, and legacy KeyConditions translated to the same AST."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.ddb.expr.validate import compile_expression
from onceflow.ddb.keys import encode_key
from onceflow.ddb.legacy import translate
from onceflow.ddb.reads import check_key_condition_shape, key_range
from onceflow.errors import ServiceError

H, R = [("pk", "S")], [("sk", "S")]


def rng(text: str, values: dict[str, Any]) -> tuple[bytes, Any, Any]:
    return key_range(compile_expression("KeyConditionExpression", text, None).tree, H, R, values)


def test_bounds() -> None:
    p, a, b = {"S": "p"}, {"S": "a"}, {"S": "b"}
    assert rng("pk = :p", {":p": p}) == (b"p", None, None)
    assert rng("pk = :p AND sk < :a", {":p": p, ":a": a}) == (b"p", None, (b"a", False))
    assert rng("sk >= :a AND pk = :p", {":p": p, ":a": a}) == (b"p", (b"a", True), None)
    assert rng("pk = :p AND sk BETWEEN :a AND :b", {":p": p, ":a": a, ":b": b}) == (b"p", (b"a", True), (b"b", True))
    assert rng("pk = :p AND begins_with(sk, :a)", {":p": p, ":a": {"S": "a\xff"}})[1:] == (
        (encode_key({"S": "a\xff"}), True), (b"a\xc3\xc0", False))


@pytest.mark.parametrize(("text", "message"), [
    ("sk = :a", "Query condition missed key schema element: pk"),
    ("pk <> :p", "Query key condition not supported"),
    ("pk = :p OR sk = :a", "Query key condition not supported"),
    ("begins_with(pk, :p)", "Query key condition not supported"),
    # Recorded from real DynamoDB by paritysuite/dynamodb-conformance (tier3 queryKeyConditionOperands).
    ("pk = :p AND pk = :p", "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one "
                            "condition per key"),
    ("pk = :p AND sk > :a AND extra = :a",
     "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)"),
    ("pk = :p AND sk < :t", "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                            "operator or function: <, operand type: BOOL"),
    (":t >= sk AND pk = :p", "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
                             "operator or function: >=, operand type: BOOL"),
    ("pk = :p AND sk BETWEEN :t AND :t", "Invalid KeyConditionExpression: Incorrect operand type for operator or "
                                         "function; operator or function: BETWEEN, operand type: BOOL"),
    ("pk = :p AND begins_with(sk, :t)", "Invalid KeyConditionExpression: Incorrect operand type for operator or "
                                        "function; operator or function: begins_with, operand type: BOOL"),
    ("pk = :p AND sk = :t", "One or more parameter values were invalid: Condition parameter type does not match "
                            "schema type"),
    ("pk = :p AND extra = :a", "Query condition missed key schema element: sk"),
    ("pk = :p AND sk BETWEEN pk AND :a", "Query key condition not supported"),
    ("pk = :n", "One or more parameter values were invalid: Condition parameter type does not match schema type"),
    # Recorded from real DynamoDB by nubo-db/dynamodb-conformance.
    ("pk = :p AND sk.foo = :a", "KeyConditionExpressions cannot have conditions on nested attributes"),
])
def test_errors(text: str, message: str) -> None:
    with pytest.raises(ServiceError) as e:
        rng(text, {":p": {"S": "p"}, ":a": {"S": "a"}, ":n": {"N": "1"}, ":t": {"BOOL": True}})
    assert e.value.message == message


def test_parentheses_around_key_conditions() -> None:
    """A KeyConditionExpression takes parentheses, doubled too, where a filter would call them redundant
    (recorded from real DynamoDB by nubo-db/dynamodb-conformance)."""
    p, a = {"S": "p"}, {"S": "a"}
    for text in ("(pk = :p) AND (sk = :a)", "(pk = :p AND sk = :a)", "((pk = :p)) AND ((sk = :a))"):
        assert rng(text, {":p": p, ":a": a}) == (b"p", (b"a", True), (b"a", True))
    assert rng("pk = :p AND :a <= sk", {":p": p, ":a": a}) == (b"p", (b"a", True), None)


def test_legacy_key_conditions_make_the_same_ranges() -> None:
    trees, values = translate({"KeyConditions": {
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
        "sk": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "ab"}]}}})
    assert key_range(trees["KeyConditionExpression"], H, R, values) == (b"p", (b"ab", True), (b"ac", False))


def test_multi_attribute_keys_order_as_their_tuples() -> None:
    from onceflow.ddb.keys import encode_keys

    def key(*vs: Any) -> bytes:
        return encode_keys([{"N": str(v)} if isinstance(v, int) else {"S": v} for v in vs])
    tuples = [("", 5), ("a", -10), ("a", 0), ("a", 2), ("a", 10), ("a\x00", 0), ("ab", -1), ("b", 0)]
    assert sorted(reversed(tuples), key=lambda t: key(*t)) == tuples
    assert key("a", "b") != key("ab", "")  # no two tuples share bytes


def test_multi_attribute_sort_key_bounds_keep_to_the_equalities_prefix() -> None:
    from onceflow.ddb.keys import encode_keys
    hs, rs = [("t", "S"), ("r", "S")], [("x", "S"), ("y", "N")]
    values = {":t": {"S": "t"}, ":r": {"S": "r"}, ":x": {"S": "semi"}, ":y": {"N": "2"}}
    tree = compile_expression("KeyConditionExpression", "t = :t AND r = :r AND x = :x AND y > :y", None).tree
    hk, lo, hi = key_range(tree, hs, rs, values)
    assert hk == encode_keys([{"S": "t"}, {"S": "r"}])
    inside, below, beyond = (encode_keys([{"S": x}, {"N": y}]) for x, y in (("semi", "3"), ("semi", "2"),
                                                                             ("semiz", "0")))
    assert lo is not None and hi is not None
    assert lo[0] <= inside < hi[0] and not below >= lo[0] and beyond >= hi[0]


@pytest.mark.parametrize(("text", "message"), [
    # architect/dynalite test/query.js, run against DynamoDB: refused before the table is looked up.
    ("a > b and size(b) > c or a > c", "Invalid operator used in KeyConditionExpression: OR"),
    ("a in (b, size(c), d)", "Invalid operator used in KeyConditionExpression: IN"),
    ("not a > b", "Invalid operator used in KeyConditionExpression: NOT"),
    ("a <> b", "Invalid operator used in KeyConditionExpression: <>"),
    ("attribute_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_exists"),
    ("attribute_not_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_not_exists"),
    ("contains(a.d, b)", "Invalid operator used in KeyConditionExpression: contains"),
    ("attribute_type(a, :s)", "Invalid operator used in KeyConditionExpression: attribute_type"),
    (":a between size(b) and size(a) and b > :b",
     "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"),
    ("begins_with(:a, b) and a > :b", "Invalid condition in KeyConditionExpression: begins_with operator must have "
                                      "the key attribute as its first operand"),
    ("size(b) > a AND a.b > b AND b > c", "KeyConditionExpressions cannot contain nested operations"),
    ("a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"),
    ("b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
    ("b between c[1] and d", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
                             "condition"),
    ("begins_with(a, b)", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
                          "condition"),
    ("a.d > c", "KeyConditionExpressions cannot have conditions on nested attributes"),
    ("b[0] > a", "KeyConditionExpressions cannot have conditions on nested attributes"),
    (":b > :a AND a < :b", "Invalid condition in KeyConditionExpression: No key attribute specified"),
    # paritysuite/dynamodb-conformance records this one with the Invalid KeyConditionExpression prefix.
    ("(a > :a and b > :a) and (b > :a and c > :a)",
     "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"),
])
def test_shapes_refused_before_the_table(text: str, message: str) -> None:
    tree = compile_expression("KeyConditionExpression", text, None).tree
    with pytest.raises(ServiceError) as e:
        check_key_condition_shape(tree)
    assert e.value.message == message


def test_shapes_a_key_condition_takes() -> None:
    for text in ("pk = :p", ":p = pk AND sk BETWEEN :a AND :b", "(pk = :p) AND begins_with(sk, :a)",
                 "pk = :p AND sk < :a"):
        check_key_condition_shape(compile_expression("KeyConditionExpression", text, None).tree)
