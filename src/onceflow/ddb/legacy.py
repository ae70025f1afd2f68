"""DynamoDB's legacy parameters (Expected, AttributeUpdates, KeyConditions, QueryFilter, ScanFilter,
ConditionalOperator) translated into the same AST the expressions compile to, so there is still one
evaluator and one updater."""

from __future__ import annotations

from typing import Any

from onceflow.ddb import errors
from onceflow.ddb.expr import ast
from onceflow.ddb.values import normalize_value

ARITY = {"EQ": 1, "NE": 1, "LE": 1, "LT": 1, "GE": 1, "GT": 1, "NOT_NULL": 0, "NULL": 0, "CONTAINS": 1,
         "NOT_CONTAINS": 1, "BEGINS_WITH": 1, "BETWEEN": 2}
COMPARE = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}


class _Values:
    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def ref(self, v: dict[str, Any]) -> ast.ValueRef:
        name = f":legacy{len(self.values)}"
        self.values[name] = normalize_value(v)
        return ast.ValueRef(name)


def _condition(attr: str, op: str, args: list[dict[str, Any]], vals: _Values) -> Any:
    path = ast.Path((attr,))
    if op == "IN":
        if not args:
            raise errors.legacy_arguments(op)
        return ast.In(path, tuple(vals.ref(a) for a in args))
    if op not in ARITY or len(args) != ARITY[op]:
        raise errors.legacy_arguments(op)
    if op in COMPARE:
        return ast.Compare(COMPARE[op], path, vals.ref(args[0]))
    if op == "NOT_NULL":
        return ast.FunctionCondition(ast.Call("attribute_exists", (path,)))
    if op == "NULL":
        return ast.FunctionCondition(ast.Call("attribute_not_exists", (path,)))
    if op == "BETWEEN":
        return ast.Between(path, vals.ref(args[0]), vals.ref(args[1]))
    name = {"CONTAINS": "contains", "NOT_CONTAINS": "contains", "BEGINS_WITH": "begins_with"}[op]
    cond = ast.FunctionCondition(ast.Call(name, (path, vals.ref(args[0]))))
    return ast.Not(cond) if op == "NOT_CONTAINS" else cond


def _join(conds: list[Any], operator: str) -> Any:
    out = conds[0]
    for c in conds[1:]:
        out = ast.Or(out, c) if operator == "OR" else ast.And(out, c)
    return out


def expected(spec: dict[str, Any], operator: str | None, vals: _Values) -> Any:
    conds = []
    for attr, e in spec.items():
        if "ComparisonOperator" in e:
            conds.append(_condition(attr, e["ComparisonOperator"], e.get("AttributeValueList") or [], vals))
        elif e.get("Exists") is False:
            if "Value" in e:
                raise errors.legacy_exists(attr, exists=False)
            conds.append(_condition(attr, "NULL", [], vals))
        elif "Value" in e:
            conds.append(_condition(attr, "EQ", [e["Value"]], vals))
        else:
            raise errors.legacy_exists(attr, exists=True)
    return _join(conds, operator or "AND") if conds else None


def filters(spec: dict[str, Any], operator: str | None, vals: _Values) -> Any:
    conds = [_condition(a, c["ComparisonOperator"], c.get("AttributeValueList") or [], vals) for a, c in spec.items()]
    return _join(conds, operator or "AND") if conds else None


def attribute_updates(spec: dict[str, Any], vals: _Values) -> ast.Update:
    sets, removes, adds, deletes = [], [], [], []
    for attr, u in spec.items():
        action, path = u.get("Action", "PUT"), ast.Path((attr,))
        if action == "PUT":
            if "Value" not in u:
                raise errors.legacy_put_without_value(attr)
            sets.append(ast.SetAction(path, vals.ref(u["Value"])))
        elif action == "ADD":
            adds.append(ast.AddAction(path, vals.ref(u["Value"])))
        elif "Value" in u:
            deletes.append(ast.DeleteAction(path, vals.ref(u["Value"])))
        else:
            removes.append(path)
    return ast.Update(tuple(sets), tuple(removes), tuple(adds), tuple(deletes))


def translate(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """({expression kind: AST}, values) for the legacy parameters present in a request."""
    vals = _Values()
    trees: dict[str, Any] = {}
    op = params.get("ConditionalOperator")
    if params.get("Expected"):
        trees["ConditionExpression"] = expected(params["Expected"], op, vals)
    if params.get("AttributeUpdates"):
        trees["UpdateExpression"] = attribute_updates(params["AttributeUpdates"], vals)
    if params.get("KeyConditions"):
        trees["KeyConditionExpression"] = filters(params["KeyConditions"], "AND", vals)
    for name in ("QueryFilter", "ScanFilter"):
        if params.get(name):
            trees["FilterExpression"] = filters(params[name], op, vals)
    return trees, vals.values
