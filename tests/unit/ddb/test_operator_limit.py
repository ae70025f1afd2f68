"""DynamoDB's 300-operator limit per expression, which also keeps deep NOT chains from overflowing."""

from __future__ import annotations

import pytest

from onceflow.ddb.expr.evaluate import condition
from onceflow.ddb.prepare import prepare
from onceflow.errors import ServiceError

V = {":v": {"N": "1"}}


def test_299_nots_still_evaluate() -> None:
    prep = prepare({"ConditionExpression": "NOT " * 299 + "a = :v", "ExpressionAttributeValues": V},
                   ("ConditionExpression",))
    assert condition(prep.get("ConditionExpression"), {"a": {"N": "1"}}, prep.values) is False


@pytest.mark.parametrize(("expr", "count"), [("NOT " * 1000 + "a = :v", 1001),
                                             (" OR ".join(["a = :v"] * 151), 301)])
def test_more_than_300_operators_are_refused(expr: str, count: int) -> None:
    with pytest.raises(ServiceError) as e:
        prepare({"ConditionExpression": expr, "ExpressionAttributeValues": V}, ("ConditionExpression",))
    assert e.value.message == ("Invalid ConditionExpression: The expression contains too many operators; "
                               f"operator count: {count}")


def test_set_assignments_are_not_operators() -> None:
    update = "SET " + ", ".join(f"a{i} = :v" for i in range(350))
    prep = prepare({"UpdateExpression": update, "ExpressionAttributeValues": V}, ("UpdateExpression",))
    assert len(prep.get("UpdateExpression").sets) == 350
