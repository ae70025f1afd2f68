"""The per-request expression step shared by every item operation: check the placeholder maps,
compile each expression (cached by text), and reject unused or undefined placeholders."""

from __future__ import annotations

from typing import Any

from onceflow.ddb import errors
from onceflow.ddb.expr.validate import Compiled, check_placeholders, check_unused, check_values, compile_expression
from onceflow.ddb.legacy import translate
from onceflow.ddb.values import normalize_value
from onceflow.errors import ServiceError, validation_error

LEGACY = ("Expected", "AttributeUpdates", "AttributesToGet", "KeyConditions", "QueryFilter", "ScanFilter",
          "ConditionalOperator")
MAX_EXPRESSION_BYTES = 4096
# The order AWS lists missing expressions in "ExpressionAttributeValues can only be specified ..."
NULL_ORDER = ("UpdateExpression", "ConditionExpression", "FilterExpression", "KeyConditionExpression")


class Prepared:
    __slots__ = ("compiled", "values")

    def __init__(self, compiled: dict[str, Compiled], values: dict[str, Any]) -> None:
        self.compiled = compiled
        self.values = values

    def get(self, kind: str) -> Any:
        c = self.compiled.get(kind)
        return c.tree if c is not None else None


def _values(raw: dict[str, Any] | None) -> dict[str, Any]:
    if not raw:
        return {}
    out = {}
    for k, v in raw.items():
        try:
            out[k] = normalize_value(v)
        except ServiceError as e:
            raise errors.invalid_attribute_value(e.message, k) from None
    return out


def prepare(params: dict[str, Any], kinds: tuple[str, ...]) -> Prepared:
    """Compile the expressions among `kinds` present in `params`; AWS's checks in AWS's order."""
    names = params.get("ExpressionAttributeNames")
    raw_values = params.get("ExpressionAttributeValues")
    present = [k for k in kinds if params.get(k) is not None]
    legacy = [k for k in LEGACY if params.get(k) is not None]
    if legacy and present:
        raise errors.mixed_parameters(", ".join(legacy), ", ".join(present))
    if legacy and names is None and raw_values is None:
        trees, legacy_values = translate(params)
        return Prepared({k: Compiled(k, v, frozenset(), ()) for k, v in trees.items() if v is not None},
                        legacy_values)
    if names is not None and not present:
        raise validation_error(errors.NAMES_WITHOUT_EXPRESSIONS)
    value_kinds = [k for k in kinds if k != "ProjectionExpression"]
    if raw_values is not None and not any(params.get(k) is not None for k in value_kinds):
        if not value_kinds:
            raise validation_error(errors.VALUES_WITHOUT_EXPRESSIONS)
        # AWS names them in a fixed order (Query: "FilterExpression and KeyConditionExpression").
        raise errors.values_with_null_expressions([k for k in NULL_ORDER if k in value_kinds])
    check_placeholders(names, raw_values)
    values = _values(raw_values)
    compiled = {}
    for k in present:
        if not params[k]:
            raise errors.empty_expression(k)
        size = len(params[k].encode("utf-8", "surrogatepass"))  # as sent: names not substituted
        if size > MAX_EXPRESSION_BYTES:
            # AWS gives the size of every expression but an UpdateExpression.
            tail = "" if k == "UpdateExpression" else f" expression size: {size}"
            raise errors.expression_too_large(k, tail)
        compiled[k] = compile_expression(k, params[k], names)
    for c in compiled.values():
        check_values(c, values)
    check_unused(names, raw_values, list(compiled.values()))
    return Prepared(compiled, values)
