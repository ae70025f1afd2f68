"""A PartiQL statement planned as the native operation it stands for: a keyed SELECT as GetItem,
one on a partition key as Query, any other as Scan; INSERT as a conditional PutItem; UPDATE, DELETE
and EXISTS as UpdateItem, DeleteItem and a ConditionCheck on the key the WHERE clause pins."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from onceflow.ddb import errors
from onceflow.ddb.expr import ast
from onceflow.ddb.expr.evaluate import resolve
from onceflow.ddb.expr.partiql import PARAMS_MISMATCH, Statement, StatementError, bind, parse
from onceflow.ddb.expr.validate import top_level_names
from onceflow.ddb.partiql.render import (
    RANGE_OPS,
    Render,
    conjuncts,
    finish,
    join,
    key_equality,
    mentions,
    range_condition,
)
from onceflow.ddb.schema import Table
from onceflow.ddb.service import DynamoDB
from onceflow.errors import ServiceError, validation_error


def refused(e: StatementError) -> ServiceError:
    return validation_error(str(e))


@dataclass
class Plan:
    """One statement as a native operation: `op` and its parameters `p`."""

    op: str  # GetItem (a keyed SELECT), Query, Scan, PutItem, UpdateItem, DeleteItem, ConditionCheck
    table: Table
    st: Statement
    p: dict[str, Any] = field(default_factory=dict)
    key: dict[str, Any] | None = None  # a keyed SELECT's whole primary key


class Planner:
    def __init__(self, svc: DynamoDB) -> None:
        self.svc = svc

    def plan(self, account: str, region: str, text: str, params: list[dict[str, Any]] | None,
             extra: dict[str, Any]) -> Plan:
        try:
            st = parse(text)
            if len(params or []) != st.params:
                raise StatementError(PARAMS_MISMATCH)
            values = {ref: bind(v, params or []) for ref, v in st.values.items()}
        except StatementError as e:
            raise refused(e) from None
        check_ordering(st.where, values)
        if st.kind == "INSERT" and st.index is not None:
            raise validation_error(errors.SINGLE_TABLE)
        t = self.svc.table(account, region, st.table)
        if st.index is not None and st.kind != "SELECT":
            raise validation_error(errors.ON_INDEX)
        base = {"TableName": t.name, **extra}
        if st.kind == "SELECT":
            return self._select(t, st, values, base)
        if st.kind == "INSERT":
            return self._insert(t, st, params or [], base)
        return self._keyed(t, st, values, base)

    def _select(self, t: Table, st: Statement, values: dict[str, Any], p: dict[str, Any]) -> Plan:
        r = Render()
        if st.index is not None:
            if st.index not in t.indexes:
                raise validation_error(errors.NO_SUCH_INDEX)
            ix = t.indexes[st.index]
            if ix.kind == "GSI" and p.get("ConsistentRead"):
                raise validation_error(errors.CONSISTENT_GSI_PARTIQL)
            check_projected(t, st)
            p["IndexName"] = st.index
            hash_kd, range_kd = ix.hash, ix.range
        else:
            hash_kd, range_kd = t.hash, t.range
        if st.projection is not None:
            # A nested path is answered under its last name (SELECT m.a gives {"a": ...}): projected here.
            if all(len(x.elements) == 1 for x in st.projection):
                p["ProjectionExpression"] = ", ".join(r.path(x) for x in st.projection)
        conj = conjuncts(st.where)
        hash_eq = next((c for c in conj if key_equality(c, (hash_kd[0],))), None)
        multi = st.index is not None and bool(t.indexes[st.index].more_hash or t.indexes[st.index].more_range)
        if hash_eq is None or multi:  # a multi-attribute index key is read by a Scan of the index
            if st.order is not None and hash_eq is None:
                raise validation_error(errors.ORDER_BY_WITHOUT_HASH)
            if st.order is not None:  # onceflow's own refusal: a Scan has no order to give
                raise validation_error(errors.MULTI_ATTRIBUTE_ORDER_BY)
            if st.where is not None:
                p["FilterExpression"] = r.cond(st.where)
            return Plan("Scan", t, st, finish(p, r, values))
        rest = [c for c in conj if c is not hash_eq]
        key = [hash_eq]
        range_cond = next((c for c in rest if range_kd and range_condition(c, range_kd[0])), None)
        if range_cond is not None:
            key.append(range_cond)
            rest.remove(range_cond)
        keys = {hash_kd[0]} | ({range_kd[0]} if range_kd else set())
        if any(mentions(c, keys) for c in rest):
            # A second condition on a key attribute: Query may not filter on keys, a Scan may.
            p["FilterExpression"] = r.cond(st.where)
            return Plan("Scan", t, st, finish(p, r, values))
        p["KeyConditionExpression"] = r.cond(join(key))
        if rest:
            p["FilterExpression"] = r.cond(join(rest))
        if st.order is not None:
            path, ascending = st.order
            if not (len(path.elements) == 1 and path.elements[0] in keys):
                raise errors.order_by_not_key(path.show()[1:-1])
            p["ScanIndexForward"] = ascending
        full = (range_kd is None or (range_cond is not None and key_equality(range_cond, (range_kd[0],))))
        if not full or st.index is not None:
            return Plan("Query", t, st, finish(p, r, values))
        pairs = [key_equality(c, (hash_kd[0],) + ((range_kd[0],) if range_kd else ())) for c in key]
        return Plan("GetItem", t, st, finish(p, r, values), {a: values[ref] for a, ref in filter(None, pairs)})

    def _insert(self, t: Table, st: Statement, params: list[dict[str, Any]], p: dict[str, Any]) -> Plan:
        try:
            item = bind(st.item, params)["M"]
        except StatementError as e:
            raise refused(e) from None
        r = Render()
        p["Item"] = item
        p["ConditionExpression"] = f"attribute_not_exists({r.name(t.hash[0])})"
        p.pop("ReturnValuesOnConditionCheckFailure", None)
        return Plan("PutItem", t, st, finish(p, r, {}))

    def _keyed(self, t: Table, st: Statement, values: dict[str, Any], p: dict[str, Any]) -> Plan:
        """UPDATE, DELETE and EXISTS: the WHERE clause must pin the whole primary key with equalities."""
        names = t.key_names
        key: dict[str, Any] = {}
        rest = []
        for c in conjuncts(st.where):
            eq = key_equality(c, tuple(names))
            if eq is not None and eq[0] not in key:
                key[eq[0]] = values[eq[1]]
            else:
                rest.append(c)
        if set(key) != set(names):
            raise validation_error(errors.INCOMPLETE_KEY)
        p["Key"] = key
        r = Render()
        if st.kind == "UPDATE":
            assert st.update is not None
            p["UpdateExpression"] = r.update(st.update, st.set_ops)
            p["ConditionExpression"] = exists_and(r, t, rest)
            p["ReturnValues"] = st.returning or "NONE"
            return Plan("UpdateItem", t, st, finish(p, r, values))
        if st.kind == "DELETE":
            if rest:
                # A missing item is deleted without complaint; an existing one must meet the condition.
                p["ConditionExpression"] = (f"attribute_not_exists({r.name(t.hash[0])}) OR "
                                            f"({r.cond(join(rest))})")
            p["ReturnValues"] = st.returning or "NONE"
            return Plan("DeleteItem", t, st, finish(p, r, values))
        p["ConditionExpression"] = exists_and(r, t, rest)
        return Plan("ConditionCheck", t, st, finish(p, r, values))


def check_ordering(n: Any, values: dict[str, Any]) -> None:
    """An ordering operator refuses a value whose type has no order (a statement-level check)."""
    if isinstance(n, ast.And | ast.Or):
        check_ordering(n.left, values)
        check_ordering(n.right, values)
    elif isinstance(n, ast.Not):
        check_ordering(n.operand, values)
    elif isinstance(n, ast.Compare | ast.Between) and (isinstance(n, ast.Between) or n.op in RANGE_OPS - {"="}):
        operands = (n.left, n.right) if isinstance(n, ast.Compare) else (n.subject, n.low, n.high)
        for x in operands:
            if isinstance(x, ast.ValueRef):
                kind = next(iter(values[x.name]))
                if kind not in ("S", "N", "B"):
                    op = n.op if isinstance(n, ast.Compare) else "BETWEEN"
                    raise errors.partiql_operand(op, kind)


def check_projected(t: Table, st: Statement) -> None:
    """A read of an index may only name what the index holds."""
    ix = t.indexes[st.index or ""]
    proj = ix.projection
    if proj["ProjectionType"] == "ALL":
        return
    held = set(t.key_names) | set(ix.key_names) | set(proj.get("NonKeyAttributes", []))
    conj = conjuncts(st.where)
    # Only a read keyed on the index (its partition key by = or IN at the top level) refuses a filter on
    # what the index lacks; unkeyed, it scans the index, where such an attribute is simply missing.
    keyed = any(key_equality(c, (ix.hash[0],)) or (isinstance(c, ast.In) and c.subject == ast.Path((ix.hash[0],)))
                for c in conj)
    missing = sorted(top_level_names(st.where) - held) if keyed else []
    if missing:
        raise errors.index_misses_filter_attributes(ix.name, missing)
    asked = [str(x.elements[0]) for x in st.projection or () if x.elements[0] not in held]
    if asked and ix.kind == "GSI":  # a local index reads what it lacks from the table
        raise errors.gsi_misses_attributes(ix.name, asked)


def flatten(items: list[Any], paths: tuple[ast.Path, ...]) -> list[Any]:
    """SELECT's projection of nested paths: each value under the path's last attribute name."""
    out = []
    for item in items:
        row = {}
        for path in paths:
            v = resolve(path.elements, item)
            names = [e for e in path.elements if isinstance(e, str)]
            if v is not None:
                row[str(names[-1])] = v
        out.append(row)
    return out


def exists_and(r: Render, t: Table, rest: list[Any]) -> str:
    """The item must be there (UPDATE and EXISTS act on an existing item) and meet the rest of WHERE."""
    return " AND ".join([f"attribute_exists({r.name(t.hash[0])})"] + [r._wrap(c) for c in rest])
