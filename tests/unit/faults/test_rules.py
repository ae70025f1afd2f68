"""The rule model: fields checked against the botocore models, defaults, index and decisions."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.context import Principal, RequestContext
from onceflow.faults.engine import Faults
from onceflow.faults.rules import RuleError, parse_rules
from onceflow.ports import Ports


def one(rule: dict[str, Any]) -> Any:
    return parse_rules({"rules": [rule]})[0]


@pytest.mark.parametrize(("rule", "field"), [
    ({"service": "kinesis"}, "rules[0].service"),
    ({"service": "dynamodb", "operation": "PutItems"}, "rules[0].operation"),
    ({"operation": "PutItem"}, "rules[0].operation"),
    ({"service": "dynamodb", "operation": "PutItem", "error": {"code": "ServiceException"}}, "rules[0].error.code"),
    ({"service": "dynamodb", "operation": "GetItem", "error": {"code": "ConditionalCheckFailedException"}},
     "rules[0].error.code"),
    ({"service": "dynamodb", "resource": ""}, "rules[0].resource"),
    ({"service": "dynamodb", "caller": "arn:\x01*"}, "rules[0].caller"),
    ({"service": "dynamodb", "probability": 1.5}, "rules[0].probability"),
    ({"service": "dynamodb", "probability": -0.1}, "rules[0].probability"),
    ({"service": "dynamodb", "probability": True}, "rules[0].probability"),
    ({"service": "dynamodb", "when": "during"}, "rules[0].when"),
    ({"service": "dynamodb", "skip": -1}, "rules[0].skip"),
    ({"service": "dynamodb", "times": 0}, "rules[0].times"),
    ({"service": "dynamodb", "kind": "crash"}, "rules[0].kind"),
    ({"service": "lambda", "kind": "explode"}, "rules[0].kind"),
    ({"service": "dynamodb", "error": {"code": "ThrottlingException", "statusCode": 200}}, "rules[0].error.statusCode"),
    ({"service": "dynamodb", "colour": "red"}, "rules[0].colour"),
    ({"service": "dynamodb", "region": "moon"}, "rules[0].region"),
    ({"service": "dynamodb", "account": "123"}, "rules[0].account"),
])
def test_bad_fields_are_named(rule: dict[str, Any], field: str) -> None:
    with pytest.raises(RuleError) as err:
        one(rule)
    assert err.value.field == field
    assert err.value.message.startswith(field + ":")


def test_generic_and_modeled_codes_with_aws_defaults() -> None:
    ddb = one({"service": "dynamodb", "operation": "PutItem",
               "error": {"code": "ProvisionedThroughputExceededException"}})
    assert (ddb.error.code, ddb.error.status) == ("ProvisionedThroughputExceededException", 400)
    assert ddb.error.message.startswith("The level of configured provisioned throughput for the table was exceeded")
    internal = one({"service": "dynamodb", "operation": "GetItem", "error": {"code": "InternalServerError"}})
    assert internal.error.status == 500
    lam = one({"service": "lambda", "operation": "Invoke", "error": {"code": "TooManyRequestsException"}})
    assert (lam.error.code, lam.error.status, lam.error.message) == ("TooManyRequestsException", 429, "Rate Exceeded.")
    # The query protocol's wire code is accepted by the shape's name too.
    assert one({"service": "iam", "operation": "GetRole", "error": {"code": "NoSuchEntityException"}}).error.code == \
        "NoSuchEntity"
    # Step Functions by its signing name.
    assert one({"service": "states", "operation": "StartExecution"}).service == "stepfunctions"


def test_localstack_defaults() -> None:
    rule = one({"service": "dynamodb", "region": "us-east-1"})
    assert (rule.error.code, rule.error.status, rule.when, rule.probability) == ("ServiceUnavailable", 503, "before", 1)
    assert one({"service": "dynamodb", "latency_ms": 50}).error is None  # a delay only
    custom = one({"service": "dynamodb", "error": {"statusCode": 500, "code": "InternalServerError", "message": "x"}})
    assert (custom.error.status, custom.error.message) == (500, "x")


def test_lambda_kinds() -> None:
    assert one({"service": "lambda", "kind": "invoke_error"}).error.code == "ServiceException"
    assert one({"service": "lambda", "kind": "invoke_error"}).when == "after"
    assert one({"service": "lambda", "kind": "duplicate"}).error is None
    with pytest.raises(RuleError) as err:
        one({"service": "lambda", "kind": "duplicate", "error": {"code": "ServiceException"}})
    assert err.value.field == "rules[0].error"
    with pytest.raises(RuleError):
        one({"service": "lambda", "kind": "invoke_error", "when": "before"})


def test_a_bare_list_is_a_chaos_api_body() -> None:
    rules = parse_rules([{"service": "dynamodb", "operation": "GetItem", "probability": 0.5,
                          "error": {"statusCode": 500, "code": "InternalServerError"}}])
    assert rules[0].probability == 0.5


class _Store:
    def __init__(self) -> None:
        self.counts: list[Any] = []

    def all(self) -> list[Any]:
        return []

    def replace(self, rules: Any) -> None: ...

    def add(self, rules: Any) -> None: ...

    def count(self, counts: Any) -> None:
        self.counts.append(counts)


def _ctx(operation: str = "GetItem", principal: Principal | None = None) -> RequestContext:
    who = principal or Principal.root("000000000000")
    return RequestContext("dynamodb", operation, "000000000000", "us-east-1", who)


def test_skip_times_probability_and_globs() -> None:
    faults = Faults(_Store(), Ports.of({}), {})  # type: ignore[arg-type]
    faults.replace([{"service": "dynamodb", "operation": "GetItem", "resource": "orders-*", "skip": 1, "times": 2}])
    assert not faults.watches("dynamodb", "PutItem") and faults.watches("dynamodb", "GetItem")
    fired = [faults.decide(_ctx(), {"TableName": "orders-a"}) is not None for _ in range(5)]
    assert fired == [False, True, True, False, False]
    assert faults.decide(_ctx(), {"TableName": "other"}) is None
    assert faults.views()[0]["matched"] == 5 and faults.views()[0]["fired"] == 2

    seeded = [{"service": "dynamodb", "operation": "GetItem", "probability": 0.5, "seed": 42}]
    runs = []
    for _ in range(2):
        faults.replace(seeded)
        runs.append([faults.decide(_ctx(), {"TableName": "t"}) is not None for _ in range(40)])
    assert runs[0] == runs[1] and 5 < sum(runs[0]) < 35

    session = Principal("000000000000", "assumed-role", "arn:aws:sts::000000000000:assumed-role/worker-role/fn",
                        "fn", "arn:aws:iam::000000000000:role/worker-role", "fn")
    faults.replace([{"service": "dynamodb", "caller": "arn:aws:sts::*:assumed-role/worker-role/*"}])
    assert faults.decide(_ctx("PutItem", session), {}) is not None
    assert faults.decide(_ctx("PutItem"), {}) is None
