"""A YAML template's nesting bound is the parser's own rule, not where Python's recursion runs out:
the JSONata library raises the process's recursion limit to 10,000 on first use, which let a
3,000-deep template through in one test order and not in another."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from onceflow.cloudformation.template import MAX_DEPTH, TemplateError, parse


def nested(depth: int) -> str:
    return ("Resources:\n  Q:\n    Type: AWS::SQS::Queue\n    Properties:\n      Tags: "
            + "[" * depth + "]" * depth + "\n")


@pytest.fixture(params=[1000, 10_000], ids=["default-limit", "jsonata-limit"])
def recursion_limit(request: pytest.FixtureRequest) -> Iterator[int]:
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(request.param)
    yield request.param
    sys.setrecursionlimit(before)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 10, 3000])
def test_a_template_nested_past_the_bound_is_refused_whatever_the_recursion_limit(recursion_limit: int,
                                                                                   depth: int) -> None:
    with pytest.raises(TemplateError, match="YAML not well-formed"):
        parse(nested(depth))


def test_a_template_nested_within_the_bound_is_read(recursion_limit: int) -> None:
    doc = parse(nested(MAX_DEPTH - 10))
    assert doc["Resources"]["Q"]["Type"] == "AWS::SQS::Queue"
