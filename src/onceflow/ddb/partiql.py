"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: a parsed PartiQL statement
(expr/partiql.py) becomes the parameters of the item operation it stands for - GetItem-like reads
as a Query on the key, other reads as a Scan, INSERT as a conditional PutItem, UPDATE and DELETE as
UpdateItem/DeleteItem on the key the WHERE clause pins - and runs through that operation, so
conditions, capacity, sizes and errors are the same rules as the native API's."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from onceflow.ddb.batch import Batches
from onceflow.ddb.errors import ddb_error, invalid, transaction_canceled
from onceflow.ddb.expr import ast
from onceflow.ddb.expr.evaluate import resolve
from onceflow.ddb.expr.partiql import PARAMS_MISMATCH, Statement, StatementError, bind, parse
from onceflow.ddb.expr.validate import top_level_names
from onceflow.ddb.reads import Reader
from onceflow.ddb.schema import Table
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.values import dumps, loads
from onceflow.errors import ServiceError, validation_error

INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
DUPLICATE = "Duplicate primary key exists in table"
ON_INDEX = "This operation is not supported on an index"
# Not confirmed against AWS (see tests/unit/ddb/cases/UNCONFIRMED.md).
BATCH_KEY = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
MIXED_BATCH = "Batch statements must contain either all reads or all writes"
MIXED_TRANSACTION = "Transactions must contain either all reads or all writes"
BATCH_CODES = {"ConditionalCheckFailedException": "ConditionalCheckFailed", "DuplicateItemException": "DuplicateItem",
               "ValidationException": "ValidationError", "ResourceNotFoundException": "ResourceNotFound",
               "ItemCollectionSizeLimitExceededException": "ItemCollectionSizeLimitExceeded",
               "TransactionConflictException": "TransactionConflict",
               "ProvisionedThroughputExceededException": "ProvisionedThroughputExceeded",
               "RequestLimitExceeded": "RequestLimitExceeded", "AccessDeniedException": "AccessDenied"}
# The IAM action each statement kind needs on its table or index (developer guide, "IAM security policies
# with PartiQL for DynamoDB"). EXISTS reads the item it checks: PartiQLSelect (not confirmed against AWS).
STATEMENT_ACTIONS = {"SELECT": "dynamodb:PartiQLSelect", "EXISTS": "dynamodb:PartiQLSelect",
                     "INSERT": "dynamodb:PartiQLInsert", "UPDATE": "dynamodb:PartiQLUpdate",
                     "DELETE": "dynamodb:PartiQLDelete"}
PARTIQL_OPERATIONS = ("ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction")
AuthRequests = list[tuple[str, str, dict[str, list[str]]]]  # (action, resource ARN, condition keys)
_REF = re.compile(r":p\d+")
_RANGE_OPS = {"=", "<", "<=", ">", ">="}


def _refused(e: StatementError) -> ServiceError:
    return validation_error(str(e))


_KIND_PREFIX = re.compile(r"^Invalid (KeyConditionExpression|FilterExpression|ConditionExpression|UpdateExpression|"
                          r"ProjectionExpression): ")


def _as_statement_error(e: ServiceError) -> ServiceError:
    """The native operations name the expression a problem is in; a statement has none of them."""
    if e.code == "ValidationException" and _KIND_PREFIX.match(e.message):
        return validation_error(_KIND_PREFIX.sub("", e.message))
    return e


# ------------------------------------------------------------------ rendering to expression text
class _Render:
    """Render AST nodes back to expression text with `#nK` names, for the native operations."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # attribute name -> "#nK"

    def name(self, n: str) -> str:
        if n not in self.names:
            self.names[n] = f"#n{len(self.names)}"
        return self.names[n]

    def path(self, p: ast.Path) -> str:
        out = ""
        for e in p.elements:
            if isinstance(e, int):
                out += f"[{e}]"
            else:
                out += ("." if out else "") + self.name(str(e))
        return out

    def operand(self, x: Any) -> str:
        if isinstance(x, ast.Path):
            return self.path(x)
        if isinstance(x, ast.ValueRef):
            return x.name
        if isinstance(x, ast.Arith):
            return f"{self.operand(x.left)} {x.op} {self.operand(x.right)}"
        return f"{x.name}({', '.join(self.operand(a) for a in x.args)})"

    def cond(self, n: Any) -> str:
        if isinstance(n, ast.Compare):
            return f"{self.operand(n.left)} {n.op} {self.operand(n.right)}"
        if isinstance(n, ast.Between):
            return f"{self.operand(n.subject)} BETWEEN {self.operand(n.low)} AND {self.operand(n.high)}"
        if isinstance(n, ast.In):
            return f"{self.operand(n.subject)} IN ({', '.join(self.operand(o) for o in n.options)})"
        if isinstance(n, ast.FunctionCondition):
            return self.operand(n.call)
        if isinstance(n, ast.Not):
            return f"NOT {self._wrap(n.operand)}"
        op = "AND" if isinstance(n, ast.And) else "OR"
        return f"{self._wrap(n.left)} {op} {self._wrap(n.right)}"

    def _wrap(self, n: Any) -> str:
        text = self.cond(n)
        return f"({text})" if isinstance(n, ast.And | ast.Or | ast.Not) else text

    def update(self, u: ast.Update, ops: tuple[tuple[str, ast.Path, str], ...]) -> str:
        parts = []
        if u.sets:
            parts.append("SET " + ", ".join(f"{self.path(a.path)} = {self.operand(a.value)}" for a in u.sets))
        if u.removes:
            parts.append("REMOVE " + ", ".join(self.path(p) for p in u.removes))
        for kind in ("ADD", "DELETE"):
            mine = [f"{self.path(p)} {ref}" for k, p, ref in ops if k == kind]
            if mine:
                parts.append(f"{kind} " + ", ".join(mine))
        return " ".join(parts)


def _conjuncts(n: Any) -> list[Any]:
    if n is None:
        return []
    if isinstance(n, ast.And):
        return _conjuncts(n.left) + _conjuncts(n.right)
    return [n]


def _join(conds: list[Any]) -> Any:
    out = None
    for c in conds:
        out = c if out is None else ast.And(out, c)
    return out


def _key_equality(c: Any, names: tuple[str, ...]) -> tuple[str, str] | None:
    """(attribute, ":pN") when `c` is `key = value` (either way round) on one of `names`."""
    if not isinstance(c, ast.Compare) or c.op != "=":
        return None
    for a, b in ((c.left, c.right), (c.right, c.left)):
        if isinstance(a, ast.Path) and len(a.elements) == 1 and a.elements[0] in names and isinstance(b, ast.ValueRef):
            return str(a.elements[0]), b.name
    return None


def _mentions(n: Any, names: set[str]) -> bool:
    if isinstance(n, ast.Path):
        return bool(n.elements) and n.elements[0] in names
    if isinstance(n, tuple):
        return any(_mentions(x, names) for x in n)
    if hasattr(n, "__dataclass_fields__"):
        return any(_mentions(getattr(n, f), names) for f in n.__dataclass_fields__)
    return False


# ------------------------------------------------------------------ planning
@dataclass
class Plan:
    """One statement as a native operation: `op` and its parameters `p`."""

    op: str  # GetItem (a keyed SELECT), Query, Scan, PutItem, UpdateItem, DeleteItem, ConditionCheck
    table: Table
    st: Statement
    p: dict[str, Any] = field(default_factory=dict)
    key: dict[str, Any] | None = None  # a keyed SELECT's whole primary key


def _finish(p: dict[str, Any], r: _Render, values: dict[str, Any]) -> dict[str, Any]:
    """Attach the names and the values that the rendered expressions use (no more: unused ones are refused)."""
    text = " ".join(str(v) for k, v in p.items() if k.endswith("Expression"))
    used = dict.fromkeys(_REF.findall(text))
    if r.names:
        p["ExpressionAttributeNames"] = {v: k for k, v in r.names.items()}
    if used:
        p["ExpressionAttributeValues"] = {k: values[k] for k in used}
    return p


class PartiQL:
    def __init__(self, svc: DynamoDB, reads: Reader, batches: Batches) -> None:
        self.svc = svc
        self.reads = reads
        self.batches = batches

    # -------------------------------------------------------------- planning
    def plan(self, account: str, region: str, text: str, params: list[dict[str, Any]] | None,
             extra: dict[str, Any]) -> Plan:
        try:
            st = parse(text)
            if len(params or []) != st.params:
                raise StatementError(PARAMS_MISMATCH)
            values = {ref: bind(v, params or []) for ref, v in st.values.items()}
        except StatementError as e:
            raise _refused(e) from None
        _check_ordering(st.where, values)
        if st.kind == "INSERT" and st.index is not None:
            raise validation_error("FROM clause may only contain a single table name in data manipulation statements")
        t = self.svc.table(account, region, st.table)
        if st.index is not None and st.kind != "SELECT":
            raise validation_error(ON_INDEX)
        base = {"TableName": t.name, **extra}
        if st.kind == "SELECT":
            return self._select(t, st, values, base)
        if st.kind == "INSERT":
            return self._insert(t, st, params or [], base)
        return self._keyed(t, st, values, base)

    def _select(self, t: Table, st: Statement, values: dict[str, Any], p: dict[str, Any]) -> Plan:
        r = _Render()
        if st.index is not None:
            if st.index not in t.indexes:
                raise validation_error("The table does not have the specified index")
            ix = t.indexes[st.index]
            if ix.kind == "GSI" and p.get("ConsistentRead"):
                raise validation_error("Strongly consistent read is not supported on Global Secondary Indexes")
            _check_projected(t, st)
            p["IndexName"] = st.index
            hash_kd, range_kd = ix.hash, ix.range
        else:
            hash_kd, range_kd = t.hash, t.range
        if st.projection is not None:
            # A nested path is answered under its last name (SELECT m.a gives {"a": ...}): projected here.
            if all(len(x.elements) == 1 for x in st.projection):
                p["ProjectionExpression"] = ", ".join(r.path(x) for x in st.projection)
        conj = _conjuncts(st.where)
        hash_eq = next((c for c in conj if _key_equality(c, (hash_kd[0],))), None)
        if hash_eq is None:
            if st.order is not None:
                raise validation_error("Must have at least one non-optional hash key condition in WHERE clause "
                                       "when using ORDER BY clause.")
            if st.where is not None:
                p["FilterExpression"] = r.cond(st.where)
            return Plan("Scan", t, st, _finish(p, r, values))
        rest = [c for c in conj if c is not hash_eq]
        key = [hash_eq]
        range_cond = next((c for c in rest if range_kd and _range_condition(c, range_kd[0])), None)
        if range_cond is not None:
            key.append(range_cond)
            rest.remove(range_cond)
        keys = {hash_kd[0]} | ({range_kd[0]} if range_kd else set())
        if any(_mentions(c, keys) for c in rest):
            # A second condition on a key attribute: Query may not filter on keys, a Scan may.
            p["FilterExpression"] = r.cond(st.where)
            return Plan("Scan", t, st, _finish(p, r, values))
        p["KeyConditionExpression"] = r.cond(_join(key))
        if rest:
            p["FilterExpression"] = r.cond(_join(rest))
        if st.order is not None:
            path, ascending = st.order
            if not (len(path.elements) == 1 and path.elements[0] in keys):
                raise validation_error(f"Variable reference {path.show()[1:-1]} in ORDER BY clause must be part "
                                       "of the primary key")
            p["ScanIndexForward"] = ascending
        full = (range_kd is None or (range_cond is not None and _key_equality(range_cond, (range_kd[0],))))
        if not full or st.index is not None:
            return Plan("Query", t, st, _finish(p, r, values))
        pairs = [_key_equality(c, (hash_kd[0],) + ((range_kd[0],) if range_kd else ())) for c in key]
        return Plan("GetItem", t, st, _finish(p, r, values), {a: values[ref] for a, ref in filter(None, pairs)})

    def _insert(self, t: Table, st: Statement, params: list[dict[str, Any]], p: dict[str, Any]) -> Plan:
        try:
            item = bind(st.item, params)["M"]
        except StatementError as e:
            raise _refused(e) from None
        r = _Render()
        p["Item"] = item
        p["ConditionExpression"] = f"attribute_not_exists({r.name(t.hash[0])})"
        p.pop("ReturnValuesOnConditionCheckFailure", None)
        return Plan("PutItem", t, st, _finish(p, r, {}))

    def _keyed(self, t: Table, st: Statement, values: dict[str, Any], p: dict[str, Any]) -> Plan:
        """UPDATE, DELETE and EXISTS: the WHERE clause must pin the whole primary key with equalities."""
        names = t.key_names
        key: dict[str, Any] = {}
        rest = []
        for c in _conjuncts(st.where):
            eq = _key_equality(c, tuple(names))
            if eq is not None and eq[0] not in key:
                key[eq[0]] = values[eq[1]]
            else:
                rest.append(c)
        if set(key) != set(names):
            raise validation_error(INCOMPLETE_KEY)
        p["Key"] = key
        r = _Render()
        if st.kind == "UPDATE":
            assert st.update is not None
            p["UpdateExpression"] = r.update(st.update, st.set_ops)
            p["ConditionExpression"] = _exists_and(r, t, rest)
            p["ReturnValues"] = st.returning or "NONE"
            return Plan("UpdateItem", t, st, _finish(p, r, values))
        if st.kind == "DELETE":
            if rest:
                # A missing item is deleted without complaint; an existing one must meet the condition.
                p["ConditionExpression"] = (f"attribute_not_exists({r.name(t.hash[0])}) OR "
                                            f"({r.cond(_join(rest))})")
            p["ReturnValues"] = st.returning or "NONE"
            return Plan("DeleteItem", t, st, _finish(p, r, values))
        p["ConditionExpression"] = _exists_and(r, t, rest)
        return Plan("ConditionCheck", t, st, _finish(p, r, values))

    # -------------------------------------------------------------- IAM
    def authorization(self, account: str, region: str, operation: str,
                      p: dict[str, Any]) -> AuthRequests:
        """(action, table or index ARN, condition keys) for each statement of a PartiQL call. A statement
        that does not parse is left out: its call refuses it with a ValidationException and does nothing."""
        statements = [p] if "Statement" in p else p.get("Statements") or p.get("TransactStatements") or []
        out: AuthRequests = []
        for s in statements:
            try:
                st = parse(s["Statement"])
            except StatementError:
                continue
            arn = f"arn:aws:dynamodb:{region}:{account}:table/{st.table}"
            keys: dict[str, list[str]] = {}
            if st.index is not None:
                arn += f"/index/{st.index}"
            if st.kind == "SELECT":  # dynamodb:FullTableScan: whether the read scans instead of using a key
                keys["dynamodb:fulltablescan"] = ["true" if self._scans(account, region, s) else "false"]
            if operation == "ExecuteTransaction":
                keys["dynamodb:enclosingoperation"] = [operation]
            out.append((STATEMENT_ACTIONS[st.kind], arn, keys))
        return out

    def _scans(self, account: str, region: str, s: dict[str, Any]) -> bool:
        try:
            return self.plan(account, region, s["Statement"], s.get("Parameters"), {}).op == "Scan"
        except ServiceError:  # refused when it runs, having read nothing
            return False

    # -------------------------------------------------------------- ExecuteStatement
    def execute(self, account: str, region: str, p: dict[str, Any], raw: bool = False) -> dict[str, Any]:
        extra = {k: p[k] for k in ("ConsistentRead", "ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure")
                 if p.get(k) is not None}
        plan = self.plan(account, region, p["Statement"], p.get("Parameters"), extra)
        if plan.op == "ConditionCheck":
            raise validation_error("EXISTS can only be used in ExecuteTransaction write requests.")
        if plan.op in ("GetItem", "Query", "Scan"):
            return self._read(plan, p, raw)
        return self._write(account, region, plan)

    def _read(self, plan: Plan, p: dict[str, Any], raw: bool) -> dict[str, Any]:
        q = dict(plan.p)
        q.pop("ReturnValuesOnConditionCheckFailure", None)
        digest = hashlib.sha256(p["Statement"].encode()).hexdigest()[:16]
        if p.get("NextToken"):
            q["ExclusiveStartKey"] = _unpack_token(p["NextToken"], digest)
        if p.get("Limit") is not None:
            q["Limit"] = p["Limit"]
        got = self._run_read(plan, q, raw)
        out: dict[str, Any] = {"Items": got.get("Items", [])}
        if "LastEvaluatedKey" in got:
            out["NextToken"] = _pack_token(got["LastEvaluatedKey"], digest)
            out["LastEvaluatedKey"] = got["LastEvaluatedKey"]
        if "ConsumedCapacity" in got:
            out["ConsumedCapacity"] = got["ConsumedCapacity"]
        return out

    def _run_read(self, plan: Plan, q: dict[str, Any], raw: bool = False) -> dict[str, Any]:
        account, region = plan.table.account, plan.table.region
        nested = plan.st.projection is not None and "ProjectionExpression" not in q
        try:
            got = (self.reads.scan(account, region, q, raw=raw and not nested) if plan.op == "Scan"
                   else self.reads.query(account, region, q, raw=raw and not nested))
        except ServiceError as e:
            raise _as_statement_error(e) from None
        if nested and "Items" in got:
            assert plan.st.projection is not None
            got["Items"] = _flatten(got["Items"], plan.st.projection)
        return got

    def _write(self, account: str, region: str, plan: Plan) -> dict[str, Any]:
        ops: dict[str, Callable[[str, str, dict[str, Any]], dict[str, Any]]] = {
            "PutItem": self.svc.put_item, "UpdateItem": self.svc.update_item, "DeleteItem": self.svc.delete_item}
        try:
            got = ops[plan.op](account, region, plan.p)
        except ServiceError as e:
            if plan.op == "PutItem" and e.code == "ConditionalCheckFailedException":
                raise ddb_error("DuplicateItemException", DUPLICATE) from None
            raise _as_statement_error(e) from None
        out: dict[str, Any] = {"Items": [got["Attributes"]] if got.get("Attributes") else []}
        if "ConsumedCapacity" in got:
            out["ConsumedCapacity"] = got["ConsumedCapacity"]
        return out

    # -------------------------------------------------------------- BatchExecuteStatement
    def batch(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        planned: list[Plan | ServiceError] = []
        for s in p["Statements"]:
            # ReturnValuesOnConditionCheckFailure has no effect on a batch member (no Item comes back).
            extra = {"ConsistentRead": s["ConsistentRead"]} if s.get("ConsistentRead") is not None else {}
            if p.get("ReturnConsumedCapacity"):
                extra["ReturnConsumedCapacity"] = p["ReturnConsumedCapacity"]
            try:
                pl = self.plan(account, region, s["Statement"], s.get("Parameters"), extra)
                if pl.op == "ConditionCheck":
                    raise validation_error("EXISTS can only be used in ExecuteTransaction write requests.")
                if pl.op in ("Query", "Scan") or (pl.op == "GetItem" and pl.st.index is not None):
                    raise validation_error(BATCH_KEY)
                planned.append(pl)
            except ServiceError as e:
                planned.append(e)
        kinds = {each.op == "GetItem" for each in planned if isinstance(each, Plan)}
        if len(kinds) > 1:
            raise validation_error(MIXED_BATCH)
        responses, consumed = [], _Capacity()
        for entry in planned:
            if isinstance(entry, ServiceError):  # refused before it ran: no TableName
                responses.append({"Error": _batch_error(entry)})
                continue
            pl = entry
            one: dict[str, Any] = {"TableName": pl.table.name}
            try:
                if pl.op == "GetItem":
                    got = self._run_read(pl, dict(pl.p))
                    if got.get("Items"):
                        one["Item"] = got["Items"][0]
                else:
                    got = self._write(account, region, pl)
                    if got["Items"]:
                        one["Item"] = got["Items"][0]
                consumed.add(got.get("ConsumedCapacity"))
            except ServiceError as e:
                one = {"Error": _batch_error(e), **one}
            responses.append(one)
        return consumed.report({"Responses": responses}, p)

    # -------------------------------------------------------------- ExecuteTransaction
    def transaction(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        plans = []
        for i, s in enumerate(p["TransactStatements"]):
            extra = {k: s[k] for k in ("ReturnValuesOnConditionCheckFailure",) if s.get(k) is not None}
            try:
                pl = self.plan(account, region, s["Statement"], s.get("Parameters"), extra)
                if pl.st.returning is not None:
                    raise validation_error("RETURNING clause is not supported in ExecuteTransaction.")
                if pl.op in ("GetItem", "Query", "Scan") and pl.st.index is not None:
                    raise validation_error("Reads on indices are not supported within transactions.")
                if pl.op in ("Query", "Scan"):
                    raise validation_error("Select statements within ExecuteTransaction must specify the primary "
                                           "key in the where clause.")
            except ServiceError as e:
                if e.code != "ValidationException":
                    raise
                raise validation_error(f"Validation failed in TransactStatements[{i}]: {e.message}") from None
            plans.append(pl)
        reads = [pl.op == "GetItem" for pl in plans]
        if any(reads) and not all(reads):
            raise validation_error(MIXED_TRANSACTION)
        cc = {"ReturnConsumedCapacity": p["ReturnConsumedCapacity"]} if p.get("ReturnConsumedCapacity") else {}
        if all(reads):
            got = self.batches.transact_get(account, region, {"TransactItems": [{"Get": _get_action(pl)}
                                                                                for pl in plans], **cc})
            for pl, r in zip(plans, got["Responses"], strict=True):
                if "Item" in r and pl.st.projection is not None and "ProjectionExpression" not in pl.p:
                    r["Item"] = _flatten([r["Item"]], pl.st.projection)[0]
            return {"Responses": got["Responses"], **_split_capacity(got)}
        actions = [_write_action(pl) for pl in plans]
        q: dict[str, Any] = {"TransactItems": actions, **cc}
        if p.get("ClientRequestToken"):
            q["ClientRequestToken"] = p["ClientRequestToken"]
        try:
            got = self.batches.transact_write(account, region, q)
        except ServiceError as e:
            if e.code != "TransactionCanceledException":
                raise _as_statement_error(e) from None
            raise transaction_canceled([_inserted(r, pl) for r, pl in
                                        zip(e.extra["CancellationReasons"], plans, strict=True)]) from None
        return _split_capacity(got)


def _split_capacity(got: dict[str, Any]) -> dict[str, Any]:
    """ExecuteTransaction gives each table's read and write units beside its total."""
    if "ConsumedCapacity" not in got:
        return {}
    out = []
    for cc in got["ConsumedCapacity"]:
        detail = cc.get("Table") or {}
        out.append({**cc, **{k: detail[k] for k in ("ReadCapacityUnits", "WriteCapacityUnits") if k in detail}})
    return {"ConsumedCapacity": out}


def _check_ordering(n: Any, values: dict[str, Any]) -> None:
    """An ordering operator refuses a value whose type has no order (a statement-level check)."""
    if isinstance(n, ast.And | ast.Or):
        _check_ordering(n.left, values)
        _check_ordering(n.right, values)
    elif isinstance(n, ast.Not):
        _check_ordering(n.operand, values)
    elif isinstance(n, ast.Compare | ast.Between) and (isinstance(n, ast.Between) or n.op in _RANGE_OPS - {"="}):
        operands = (n.left, n.right) if isinstance(n, ast.Compare) else (n.subject, n.low, n.high)
        for x in operands:
            if isinstance(x, ast.ValueRef):
                kind = next(iter(values[x.name]))
                if kind not in ("S", "N", "B"):
                    op = n.op if isinstance(n, ast.Compare) else "BETWEEN"
                    raise validation_error(f"Incorrect operand type for operator or function; operator or "
                                           f"function: {op}, operand type: {kind}")


def _check_projected(t: Table, st: Statement) -> None:
    """A read of an index may only name what the index holds."""
    ix = t.indexes[st.index or ""]
    proj = ix.projection
    if proj["ProjectionType"] == "ALL":
        return
    held = set(t.key_names) | set(ix.key_names) | set(proj.get("NonKeyAttributes", []))
    conj = _conjuncts(st.where)
    # Only a read keyed on the index (its partition key by = or IN at the top level) refuses a filter on
    # what the index lacks; unkeyed, it scans the index, where such an attribute is simply missing.
    keyed = any(_key_equality(c, (ix.hash[0],)) or (isinstance(c, ast.In) and c.subject == ast.Path((ix.hash[0],)))
                for c in conj)
    missing = sorted(top_level_names(st.where) - held) if keyed else []
    if missing:
        raise invalid(f"Secondary index {ix.name} does not project one or more filter attributes: "
                      f"[{', '.join(missing)}]")
    asked = [str(x.elements[0]) for x in st.projection or () if x.elements[0] not in held]
    if asked and ix.kind == "GSI":  # a local index reads what it lacks from the table
        raise invalid(f"Global secondary index {ix.name} does not project [{', '.join(asked)}]")


def _flatten(items: list[Any], paths: tuple[ast.Path, ...]) -> list[Any]:
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


def _exists_and(r: _Render, t: Table, rest: list[Any]) -> str:
    """The item must be there (UPDATE and EXISTS act on an existing item) and meet the rest of WHERE."""
    return " AND ".join([f"attribute_exists({r.name(t.hash[0])})"] + [r._wrap(c) for c in rest])


def _range_condition(c: Any, name: str) -> bool:
    """A condition a KeyConditionExpression may put on the sort key."""
    def on_key(x: Any) -> bool:
        return isinstance(x, ast.Path) and x.elements == (name,)
    if isinstance(c, ast.Compare) and c.op in _RANGE_OPS:
        return (on_key(c.left) and isinstance(c.right, ast.ValueRef))
    if isinstance(c, ast.Between):
        return on_key(c.subject) and isinstance(c.low, ast.ValueRef) and isinstance(c.high, ast.ValueRef)
    if isinstance(c, ast.FunctionCondition) and c.call.name == "begins_with":
        return on_key(c.call.args[0]) and isinstance(c.call.args[1], ast.ValueRef)
    return False


def _no_return_on_failure(p: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in p.items() if k != "ReturnValuesOnConditionCheckFailure"}


def _get_action(pl: Plan) -> dict[str, Any]:
    """A keyed SELECT as a TransactGetItems Get: its key from the KeyConditionExpression's values."""
    names = pl.p.get("ExpressionAttributeNames", {})
    g: dict[str, Any] = {"TableName": pl.table.name, "Key": pl.key}
    if "ProjectionExpression" in pl.p:
        g["ProjectionExpression"] = pl.p["ProjectionExpression"]
        used = set(re.findall(r"#n\d+", pl.p["ProjectionExpression"]))
        g["ExpressionAttributeNames"] = {k: v for k, v in names.items() if k in used}
    return g


def _write_action(pl: Plan) -> dict[str, Any]:
    keep = ("TableName", "Key", "Item", "UpdateExpression", "ConditionExpression", "ExpressionAttributeNames",
            "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure")
    a = {k: v for k, v in pl.p.items() if k in keep}
    kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}.get(pl.op, "ConditionCheck")
    return {kind: a}


def _inserted(reason: dict[str, Any], pl: Plan) -> dict[str, Any]:
    """An INSERT whose key exists is cancelled as a duplicate, not as a failed condition."""
    if pl.op == "PutItem" and reason.get("Code") == "ConditionalCheckFailed":
        return {"Code": "DuplicateItem", "Message": DUPLICATE}
    return reason


def _batch_error(e: ServiceError) -> dict[str, Any]:
    err: dict[str, Any] = {"Code": BATCH_CODES.get(e.code, e.code), "Message": e.message}
    if e.extra and e.extra.get("Item"):
        err["Item"] = e.extra["Item"]
    return err


class _Capacity:
    """ConsumedCapacity of a batch's statements, summed per table."""

    def __init__(self) -> None:
        self.by_table: dict[str, float] = {}

    def add(self, cc: dict[str, Any] | None) -> None:
        if cc:
            self.by_table[cc["TableName"]] = self.by_table.get(cc["TableName"], 0.0) + cc["CapacityUnits"]

    def report(self, out: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        mode = p.get("ReturnConsumedCapacity") or "NONE"
        if mode != "NONE":
            out["ConsumedCapacity"] = [{"TableName": n, "CapacityUnits": u, **({"Table": {"CapacityUnits": u}}
                                        if mode == "INDEXES" else {})} for n, u in self.by_table.items()]
        return out


def _pack_token(key: dict[str, Any], digest: str) -> str:
    return base64.b64encode(json.dumps({"s": digest, "k": dumps(key)}).encode()).decode()


def _unpack_token(token: str, digest: str) -> dict[str, Any]:
    try:
        body = json.loads(base64.b64decode(token, validate=True))
        key = loads(body["k"])
        sent = body["s"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise validation_error("Invalid NextToken") from None
    if sent != digest:
        raise validation_error("NextToken does not match request")
    return key


def statement_tables(p: dict[str, Any]) -> list[str]:
    """The tables a PartiQL request names (for IAM); statements that do not parse name none."""
    texts = [p["Statement"]] if "Statement" in p else [s["Statement"] for s in
                                                         p.get("Statements") or p.get("TransactStatements") or []]
    out = []
    for text in texts:
        try:
            name = parse(text).table
        except StatementError:
            continue
        if name not in out:
            out.append(name)
    return out


__all__ = ["PARTIQL_OPERATIONS", "AuthRequests", "PartiQL", "statement_tables"]
