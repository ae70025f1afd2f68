"""Compile an expression once per (kind, text, names): parse, resolve `#name` placeholders and check
the function usage and paths that need no values. `check_values` then does the per-request checks
against ExpressionAttributeValues. Every message is AWS's, prefixed `Invalid <Kind>: `."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from onceflow.ddb.expr import ast
from onceflow.ddb.expr.ast import CONDITION_FUNCS, OPERAND_FUNCS, UPDATE_FUNCS
from onceflow.ddb.expr.parser import ExpressionError, parse
from onceflow.ddb.values import check_text, type_of
from onceflow.errors import validation_error

TYPE_NAMES = {"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL", "M": "MAP",
              "L": "LIST", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}
START = {"ConditionExpression": "condition", "FilterExpression": "condition",
         "KeyConditionExpression": "condition", "UpdateExpression": "update",
         "ProjectionExpression": "projection"}


@dataclass(frozen=True)
class Compiled:
    kind: str
    tree: Any
    names_used: frozenset[str]
    values_used: tuple[str, ...]  # in order of appearance
    # Found at compile time but answered after the per-request undefined-value check, in DynamoDB's order
    # (architect/dynalite test/updateItem.js, run against DynamoDB): overlapping or conflicting paths, then
    # (after ADD/DELETE operand types) a function's operand count or missing document path.
    overlap: str | None = None
    shape: str | None = None


class _Resolver:
    def __init__(self, kind: str, names: dict[str, str]) -> None:
        self.kind, self.names = kind, names
        self.names_used: set[str] = set()
        self.values_used: list[str] = []
        self.shape: str | None = None  # the first function used with the wrong operands

    def error(self, msg: str) -> ExpressionError:
        return ExpressionError(msg)

    def path(self, p: ast.Path) -> ast.Path:
        out: list[str | int | ast.NameRef] = []
        for e in p.elements:
            if isinstance(e, ast.NameRef):
                if e.name not in self.names:
                    raise self.error("An expression attribute name used in the document path is not defined; "
                                     f"attribute name: {e.name}")
                self.names_used.add(e.name)
                out.append(self.names[e.name])
            else:
                out.append(e)
        return ast.Path(tuple(out))

    def operand(self, x: Any, where: str) -> Any:
        if isinstance(x, ast.Path):
            return self.path(x)
        if isinstance(x, ast.ValueRef):
            if x.name not in self.values_used:
                self.values_used.append(x.name)
            return x
        if isinstance(x, ast.Arith):
            return ast.Arith(x.op, self.operand(x.left, where), self.operand(x.right, where))
        return self.call(x, where)

    def call(self, c: ast.Call, where: str) -> ast.Call:
        """`where`: 'condition' (a function as a whole condition), 'operand' or 'update'."""
        name = c.name
        known = {**CONDITION_FUNCS, **OPERAND_FUNCS, **UPDATE_FUNCS}
        if name not in known:
            raise self.error(f"Invalid function name; function: {name}")
        if self.kind != "UpdateExpression" and name in UPDATE_FUNCS:
            raise self.error(f"The function is not allowed in a condition expression; function: {name}")
        if self.kind == "UpdateExpression" and name not in UPDATE_FUNCS:
            raise self.error(f"The function is not allowed in an update expression; function: {name}")
        if (where == "condition") != (name in CONDITION_FUNCS) and self.kind != "UpdateExpression":
            raise self.error(f"The function is not allowed to be used this way in an expression; function: {name}")
        if len(c.args) != known[name]:
            self.shape = self.shape or ("Incorrect number of operands for operator or function; "
                                        f"operator or function: {name}, number of operands: {len(c.args)}")
            return ast.Call(name, tuple(self.operand(a, "operand") for a in c.args))
        needs_path = name in ("attribute_exists", "attribute_not_exists", "attribute_type", "size",
                              "if_not_exists")
        if needs_path and not isinstance(c.args[0], ast.Path):
            self.shape = self.shape or f"Operator or function requires a document path; operator or function: {name}"
            return ast.Call(name, tuple(self.operand(a, "operand") for a in c.args))
        for a in c.args:
            if not isinstance(a, ast.Call) or (a.name in UPDATE_FUNCS) != (self.kind == "UpdateExpression"):
                continue  # a function of the wrong expression kind gets that error when it is resolved
            # list_append(if_not_exists(l, :empty), :v) is the common idiom; size() may be compared.
            allowed = (name == "list_append" and a.name in UPDATE_FUNCS) or (
                a.name == "size" and name in ("begins_with", "contains"))
            if not allowed:
                raise self.error("The function is not allowed to be used this way in an expression; "
                                 f"function: {a.name}")
        args = tuple(self.operand(a, "operand") for a in c.args)
        if name == "contains" and isinstance(args[0], ast.Path) and args[0] == args[1]:
            raise self.error("The first operand must be distinct from the remaining operands for this operator or "
                             f"function; operator: {name}, first operand: {args[0].show()}")
        return ast.Call(name, args)

    def condition(self, n: Any) -> Any:
        if isinstance(n, ast.And | ast.Or):
            return type(n)(self.condition(n.left), self.condition(n.right))
        if isinstance(n, ast.Not):
            return ast.Not(self.condition(n.operand))
        if isinstance(n, ast.FunctionCondition):
            return ast.FunctionCondition(self.call(n.call, "condition"))
        if isinstance(n, ast.Compare):
            return ast.Compare(n.op, self.operand(n.left, "operand"), self.operand(n.right, "operand"))
        if isinstance(n, ast.Between):
            return ast.Between(*(self.operand(x, "operand") for x in (n.subject, n.low, n.high)))
        if len(n.options) > 100:
            raise self.error("The IN operator is provided with too many operands; "
                             f"number of operands: {len(n.options)}")
        return ast.In(self.operand(n.subject, "operand"), tuple(self.operand(x, "operand") for x in n.options))

    def update(self, u: ast.Update) -> ast.Update:
        out = ast.Update(
            tuple(ast.SetAction(self.path(a.path), self.set_value(a.value)) for a in u.sets),
            tuple(self.path(p) for p in u.removes),
            tuple(ast.AddAction(self.path(a.path), self.operand(a.value, "operand")) for a in u.adds),
            tuple(ast.DeleteAction(self.path(a.path), self.operand(a.value, "operand")) for a in u.deletes),
            tuple(self.path(p) for p in u.written),
        )
        return out

    def set_value(self, v: Any) -> Any:
        if isinstance(v, ast.Arith):
            for side in (v.left, v.right):
                if isinstance(side, ast.Call) and side.name != "if_not_exists":
                    raise self.error("The function is not allowed to be used this way in an expression; "
                                     f"function: {side.name}")
        return self.operand(v, "update")


def top_level_names(n: Any) -> set[str]:
    """The attribute names a condition's document paths start with."""
    if isinstance(n, ast.Path):
        return {n.elements[0]} if isinstance(n.elements[0], str) else set()
    if isinstance(n, ast.And | ast.Or | ast.Compare | ast.Arith):
        return top_level_names(n.left) | top_level_names(n.right)
    if isinstance(n, ast.Not):
        return top_level_names(n.operand)
    if isinstance(n, ast.FunctionCondition):
        return top_level_names(n.call)
    if isinstance(n, ast.Call):
        return set().union(*(top_level_names(a) for a in n.args))
    if isinstance(n, ast.Between):
        return top_level_names(n.subject) | top_level_names(n.low) | top_level_names(n.high)
    if isinstance(n, ast.In):
        return top_level_names(n.subject).union(*(top_level_names(o) for o in n.options))
    return set()


def _relation(p: ast.Path, q: ast.Path) -> str | None:
    """'overlap' when one path is the other or inside it, 'conflict' when they part at a list index
    against a map key, None when they part at two keys or two indexes."""
    for a, b in zip(p.elements, q.elements, strict=False):
        if a == b and type(a) is type(b):
            continue
        return "conflict" if isinstance(a, int) != isinstance(b, int) else None
    return "overlap"


def overlap_error(paths: list[ast.Path]) -> str | None:
    """Every pair is checked for an overlap before any for a conflict, each pair in the order written
    (architect/dynalite test/updateItem.js, run against DynamoDB)."""
    for relation in ("overlap", "conflict"):
        for i, p in enumerate(paths):
            for q in paths[i + 1:]:
                if _relation(p, q) == relation:
                    return (f"Two document paths {relation} with each other; must remove or rewrite one of these "
                            f"paths; path one: {p.show()}, path two: {q.show()}")
    return None


def check_overlap(paths: list[ast.Path]) -> None:
    found = overlap_error(paths)
    if found:
        raise ExpressionError(found)


@lru_cache(maxsize=8192)
def _compile(kind: str, text: str, names: tuple[tuple[str, str], ...]) -> Compiled:
    tree = parse(text, START[kind], redundant=kind != "KeyConditionExpression")
    r = _Resolver(kind, dict(names))
    if kind == "UpdateExpression":
        tree = r.update(tree)
    elif kind == "ProjectionExpression":
        paths = [r.path(p) for p in tree.paths]
        check_overlap(paths)
        tree = ast.Projection(tuple(paths))
    else:
        tree = r.condition(tree)
    overlap = overlap_error(list(tree.written)) if kind == "UpdateExpression" else None
    return Compiled(kind, tree, frozenset(r.names_used), tuple(r.values_used), overlap, r.shape)


def compile_expression(kind: str, text: str, names: dict[str, str] | None) -> Compiled:
    """The cached compiled form, or ValidationException `Invalid <kind>: <reason>`."""
    key = tuple(sorted(names.items())) if names else ()
    try:
        return _compile(kind, text, key)
    except ExpressionError as e:
        raise validation_error(f"Invalid {kind}: {e}") from None


def check_values(c: Compiled, values: dict[str, Any]) -> None:
    """Per request: every value placeholder is defined, and constant operands have usable types."""
    if c.kind == "KeyConditionExpression":
        try:
            _check_key_condition(c.tree, values)
        except ExpressionError as e:
            raise validation_error(f"Invalid {c.kind}: {e}") from None
    for name in c.values_used:
        if name not in values:
            raise validation_error(f"Invalid {c.kind}: An expression attribute value used in expression "
                                   f"is not defined; attribute value: {name}")
    try:
        if c.overlap:
            raise ExpressionError(c.overlap)
        if c.kind == "UpdateExpression":
            _check_add_delete_types(c.tree, values)
        if c.shape:
            raise ExpressionError(c.shape)
        if c.kind == "UpdateExpression":
            _check_set_types(c.tree, values)
        elif c.kind != "ProjectionExpression":
            _check_condition_types(c.tree, values)
    except ExpressionError as e:
        raise validation_error(f"Invalid {c.kind}: {e}") from None


def _check_key_condition(n: Any, values: dict[str, Any]) -> None:
    """A key condition is read clause by clause as written, each clause's values looked up and typed before
    the next clause's: an operand no key could match (a non-string/binary in begins_with, a non-scalar in an
    ordering or BETWEEN) is refused in the order it comes."""
    if isinstance(n, ast.And):
        _check_key_condition(n.left, values)
        _check_key_condition(n.right, values)
        return
    operands: list[Any]
    allowed: tuple[str, ...]
    if isinstance(n, ast.Compare):
        operands, op, allowed = [n.left, n.right], n.op, ("S", "N", "B")
    elif isinstance(n, ast.Between):
        operands, op, allowed = [n.subject, n.low, n.high], "BETWEEN", ("S", "N", "B")
    elif isinstance(n, ast.FunctionCondition) and n.call.name == "begins_with":
        operands, op, allowed = list(n.call.args), "begins_with", ("S", "B")
    else:
        return
    refs = [r for r in operands if isinstance(r, ast.ValueRef)]
    for r in refs:
        if r.name not in values:
            raise ExpressionError(f"An expression attribute value used in expression is not defined; "
                                  f"attribute value: {r.name}")
    if op in ("=", "<>"):
        return  # an equality's operand type is the schema's to judge
    for r in refs:
        kind = type_of(values[r.name])
        if kind not in allowed:
            raise _bad_type(op, kind)


def _bad_type(op: str, kind: str) -> ExpressionError:
    """Functions and arithmetic name the operand by its type tag (S, N, L, SS, ...); only the ADD and
    DELETE actions spell the type out (STRING, MAP, ...) with a typeSet."""
    return ExpressionError(f"Incorrect operand type for operator or function; operator or function: {op}, "
                           f"operand type: {kind}")


def _const_type(x: Any, values: dict[str, Any]) -> str | None:
    return type_of(values[x.name]) if isinstance(x, ast.ValueRef) else None


def _check_condition_types(n: Any, values: dict[str, Any]) -> None:
    if isinstance(n, ast.And | ast.Or):
        _check_condition_types(n.left, values)
        _check_condition_types(n.right, values)
    elif isinstance(n, ast.Not):
        _check_condition_types(n.operand, values)
    elif isinstance(n, ast.FunctionCondition):
        c = n.call
        if c.name == "attribute_type":
            t = values.get(c.args[1].name) if isinstance(c.args[1], ast.ValueRef) else None
            if t is not None and (type_of(t) != "S" or t["S"] not in TYPE_NAMES):
                shown = t.get("S", t)
                raise ExpressionError(f"Invalid attribute type name found; type: {shown}, "
                                      "valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }")
        if c.name == "begins_with":
            for a in c.args:
                k = _const_type(a, values)
                if k is not None and k not in ("S", "B"):
                    raise _bad_type("begins_with", k)
    elif isinstance(n, ast.Between):
        from onceflow.ddb.values import compare

        lo, hi = (values.get(x.name) if isinstance(x, ast.ValueRef) else None for x in (n.low, n.high))
        if lo is not None and hi is not None and type_of(lo) != type_of(hi):
            # architect/dynalite test/query.js and test/deleteItem.js, run against DynamoDB.
            raise ExpressionError(
                "The BETWEEN operator requires same data type for lower and upper bounds; "
                f"lower bound operand: AttributeValue: {_show(lo)}, upper bound operand: AttributeValue: {_show(hi)}")
        if lo is not None and hi is not None and compare(lo, hi) == 1:
            raise ExpressionError(
                "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
                f"lower bound operand: AttributeValue: {_show(lo)}, upper bound operand: AttributeValue: {_show(hi)}")


def _show(v: dict[str, Any]) -> str:
    (k, x), = v.items()
    return "{" + f"{k}:{x}" + "}"


def _check_add_delete_types(u: ast.Update, values: dict[str, Any]) -> None:
    for a in u.adds:
        k = type_of(values[a.value.name])
        if k not in ("N", "SS", "NS", "BS"):
            raise ExpressionError(f"Incorrect operand type for operator or function; operator: ADD, "
                                  f"operand type: {TYPE_NAMES[k]}, typeSet: ALLOWED_FOR_ADD_OPERAND")
    for d in u.deletes:
        k = type_of(values[d.value.name])
        if k not in ("SS", "NS", "BS"):
            raise ExpressionError(f"Incorrect operand type for operator or function; operator: DELETE, "
                                  f"operand type: {TYPE_NAMES[k]}, typeSet: ALLOWED_FOR_DELETE_OPERAND")


def _check_set_types(u: ast.Update, values: dict[str, Any]) -> None:
    for s in u.sets:
        v = s.value
        if isinstance(v, ast.Arith):
            for side in (v.left, v.right):
                found = _const_type(side, values)
                if found is not None and found != "N":
                    raise _bad_type(v.op, found)
        if isinstance(v, ast.Call) and v.name == "list_append":
            for side in v.args:
                found = _const_type(side, values)
                if found is not None and found != "L":
                    raise _bad_type("list_append", found)


def check_unused(names: dict[str, str] | None, values: dict[str, Any] | None,
                 compiled: list[Compiled]) -> None:
    """After every expression of a request compiled: no placeholder may be left unused."""
    if names:
        used = set().union(*(c.names_used for c in compiled)) if compiled else set()
        unused = sorted(set(names) - used)
        if unused:
            raise validation_error("Value provided in ExpressionAttributeNames unused in expressions: "
                                   "keys: {" + ", ".join(unused) + "}")
    if values:
        used_v = {v for c in compiled for v in c.values_used}
        unused = sorted(set(values) - used_v)
        if unused:
            raise validation_error("Value provided in ExpressionAttributeValues unused in expressions: "
                                   "keys: {" + ", ".join(unused) + "}")


def check_placeholders(names: dict[str, str] | None, values: dict[str, Any] | None) -> None:
    if names is not None:
        if not names:
            raise validation_error("ExpressionAttributeNames must not be empty")
        for k, v in names.items():
            if not k.startswith("#") or len(k) < 2:
                raise validation_error(f'ExpressionAttributeNames contains invalid key: Syntax error; key: "{k}"')
            check_text(v)
    if values is not None:
        if not values:
            raise validation_error("ExpressionAttributeValues must not be empty")
        for k in values:
            if not k.startswith(":") or len(k) < 2:
                raise validation_error(f'ExpressionAttributeValues contains invalid key: Syntax error; key: "{k}"')
