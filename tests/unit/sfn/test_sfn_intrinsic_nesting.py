"""AWS's intrinsic functions page: "You can nest up to 10 intrinsic functions within a field" (its
example nests 9). A call nested deeper is no valid intrinsic function call."""

from __future__ import annotations

import pytest

from onceflow.sfn.asl.errors import StateDataError
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic, is_valid_intrinsic


def _nested(depth: int) -> str:
    return "States.Array(" * depth + "1" + ")" * depth


def test_ten_deep_is_valid_and_evaluates() -> None:
    assert is_valid_intrinsic(_nested(10))
    value = evaluate_intrinsic(_nested(10), {}, {})
    for _ in range(10):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == 1


def test_the_documented_example_is_valid() -> None:
    example = ("States.Format('{}.{}.{}', States.ArrayGetItem(States.StringSplit(States.ArrayGetItem("
               "States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 0), States.ArrayGetItem(States.StringSplit("
               "States.ArrayGetItem(States.StringSplit($.ImageRecipe.Arn, '/'), 2), '.'), 1))")
    assert is_valid_intrinsic(example)
    # (the page's template has three placeholders for two values; with two it evaluates)
    arn = {"ImageRecipe": {"Arn": "arn:aws:imagebuilder:us-east-1:123456789012:image-recipe/a.b/1.0.0"}}
    assert evaluate_intrinsic(example.replace("'{}.{}.{}'", "'{}.{}'"), arn, {}) == "1.0"


def test_eleven_deep_is_refused() -> None:
    assert not is_valid_intrinsic(_nested(11))
    with pytest.raises(StateDataError) as info:
        evaluate_intrinsic(_nested(11), {}, {})
    assert info.value.error == "States.IntrinsicFailure"
