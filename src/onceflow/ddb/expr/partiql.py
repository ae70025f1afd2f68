"""DynamoDB's PartiQL: one LALR grammar (lark) for SELECT, INSERT, UPDATE, DELETE and a
transaction's EXISTS(SELECT ...) check.

Conditions, paths and update actions come out as the expression AST of `ast.py` (paths with their
names resolved, values as `ValueRef(":pN")`), so the statement runs through the same evaluation as
ConditionExpression/UpdateExpression. A value is a small tree of literals and `?` parameters
(`Lit`, `Param`, `ListOf`, `MapOf`, `SetOf`), bound to AttributeValues per request by `bind`.
Messages are DynamoDB's: `Statement wasn't well formed, can't be processed: <detail>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from onceflow.ddb.expr import ast

MALFORMED = "Statement wasn't well formed, can't be processed: "
PARAMS_MISMATCH = "Number of parameters in request and statement don't match."

GRAMMAR = r"""
?start: statement ";"?
?statement: select | insert | update | delete | exists

select: SELECT projection FROM source [where] [order]
projection: STAR | path ("," path)*
source: name ("." name)*
insert: INSERT INTO source VALUE value
update: UPDATE source action+ where [returning]
delete: DELETE FROM source where [returning]
exists: EXISTS "(" select ")"

action: SET assign ("," assign)* -> set_action
      | REMOVE path ("," path)* -> remove_action
assign: path COMP rhs
?rhs: operand
    | operand PLUS operand -> plus
    | operand MINUS operand -> minus

where: WHERE cond
order: ORDER BY path [ASC | DESC]
returning: RETURNING (ALL | MODIFIED) (OLD | NEW) STAR

?cond: cond OR conj -> or_
     | conj
?conj: conj AND neg -> and_
     | neg
?neg: NOT neg -> not_
    | pred
?pred: operand COMP operand -> compare
     | operand BETWEEN operand AND operand -> between
     | operand IN "[" operand ("," operand)* "]" -> in_
     | operand IN "(" operand ("," operand)* ")" -> in_
     | operand IS [NOT] is_type -> is_
     | call -> function_condition
     | "(" cond ")"
!is_type: MISSING | NULL | NAME

?operand: path | value | call
call: NAME "(" [operand ("," operand)*] ")"
path: name ("." name | "[" INT "]")*
name: NAME | QUOTED

?value: literal | param
param: "?"
literal: STRING -> string
       | [MINUS] NUMBER -> number
       | TRUE -> true
       | FALSE -> false
       | NULL -> null
       | MISSING -> missing
       | "[" [value ("," value)*] "]" -> list_of
       | "{" [pair ("," pair)*] "}" -> map
       | LBAG [value ("," value)*] RBAG -> set_of
pair: STRING ":" value

SELECT.2: /SELECT\b/i
FROM.2: /FROM\b/i
INSERT.2: /INSERT\b/i
INTO.2: /INTO\b/i
VALUE.2: /VALUE\b/i
UPDATE.2: /UPDATE\b/i
DELETE.2: /DELETE\b/i
EXISTS.2: /EXISTS\b/i
SET.2: /SET\b/i
REMOVE.2: /REMOVE\b/i
WHERE.2: /WHERE\b/i
ORDER.2: /ORDER\b/i
BY.2: /BY\b/i
ASC.2: /ASC\b/i
DESC.2: /DESC\b/i
RETURNING.2: /RETURNING\b/i
ALL.2: /ALL\b/i
MODIFIED.2: /MODIFIED\b/i
OLD.2: /OLD\b/i
NEW.2: /NEW\b/i
OR.2: /OR\b/i
AND.2: /AND\b/i
NOT.2: /NOT\b/i
BETWEEN.2: /BETWEEN\b/i
IN.2: /IN\b/i
IS.2: /IS\b/i
MISSING.2: /MISSING\b/i
NULL.2: /NULL\b/i
TRUE.2: /TRUE\b/i
FALSE.2: /FALSE\b/i
COMP: "<>" | "!=" | "<=" | ">=" | "=" | "<" | ">"
LBAG.3: "<<"
RBAG.3: ">>"
STAR: "*"
PLUS: "+"
MINUS: "-"
NAME: /[A-Za-z_][A-Za-z0-9_$]*/i
QUOTED: /"([^"]|"")*"/
STRING: /'([^']|'')*'/
NUMBER: /(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/
INT: /\d+/
%ignore /\s+/
%ignore /--[^\n]*/
"""

KEYWORD_TOKENS = {"SELECT", "FROM", "INSERT", "INTO", "VALUE", "UPDATE", "DELETE", "EXISTS", "SET", "REMOVE",
                  "WHERE", "ORDER", "BY", "ASC", "DESC", "RETURNING", "ALL", "MODIFIED", "OLD", "NEW", "OR",
                  "AND", "NOT", "BETWEEN", "IN", "IS", "MISSING", "NULL", "TRUE", "FALSE"}
IS_TYPES = {"MISSING": None, "NULL": "NULL", "BOOLEAN": "BOOL", "BLOB": "B", "STRING": "S", "NUMERIC": "N",
            "STRUCT": "M", "TUPLE": "M", "LIST": "L"}
FUNCTIONS = {"begins_with": 2, "contains": 2, "attribute_type": 2, "size": 1, "exists": 1, "missing": 1,
             "list_append": 2, "set_add": 2, "set_delete": 2, "if_not_exists": 2}


class StatementError(Exception):
    """A statement DynamoDB refuses; the message is the whole ValidationException text."""


# ------------------------------------------------------------------ values
@dataclass(frozen=True)
class Param:
    index: int


@dataclass(frozen=True)
class Lit:
    value: dict[str, Any] | None  # None: MISSING


@dataclass(frozen=True)
class ListOf:
    items: tuple[Any, ...]


@dataclass(frozen=True)
class MapOf:
    pairs: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class SetOf:
    items: tuple[Any, ...]


def bind(v: Any, params: list[dict[str, Any]]) -> dict[str, Any]:
    """The AttributeValue a value tree stands for, with `?` parameters filled in."""
    if isinstance(v, Param):
        return params[v.index]
    if isinstance(v, Lit):
        if v.value is None:
            raise StatementError("MISSING must be compared using IS operator")
        return v.value
    if isinstance(v, ListOf):
        return {"L": [bind(x, params) for x in v.items]}
    if isinstance(v, MapOf):
        return {"M": {k: bind(x, params) for k, x in v.pairs}}
    members = [bind(x, params) for x in v.items]
    if not members:
        raise StatementError("Empty bags are not supported")
    kinds = {next(iter(m)) for m in members}
    if len(kinds) != 1 or not kinds <= {"S", "N", "B"}:
        raise StatementError("Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags")
    kind = kinds.pop()
    return {kind + "S": [m[kind] for m in members]}


# ------------------------------------------------------------------ statements
@dataclass
class Statement:
    kind: str  # SELECT, INSERT, UPDATE, DELETE, EXISTS
    table: str
    index: str | None = None
    where: Any = None  # a condition AST, or None
    values: dict[str, Any] = field(default_factory=dict)  # ":pN" -> value tree
    params: int = 0  # how many `?` the statement has
    projection: tuple[ast.Path, ...] | None = None  # SELECT a, b (None: *)
    order: tuple[ast.Path, bool] | None = None  # ORDER BY path, ascending?
    item: Any = None  # INSERT's value tree
    update: ast.Update | None = None
    set_ops: tuple[tuple[str, ast.Path, str], ...] = ()  # (ADD|DELETE, path, ":pN") from SET_ADD/SET_DELETE
    returning: str | None = None  # ReturnValues: ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW


class _Build(Transformer[Token, Any]):
    """Bottom-up: values are numbered in order of appearance, `?` in the order written."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, Any] = {}
        self.params = 0

    def _ref(self, v: Any) -> ast.ValueRef:
        ref = f":p{len(self.values)}"
        self.values[ref] = v
        return ast.ValueRef(ref)

    # values (kept as trees; a value in a condition or assignment becomes a ValueRef in `operand`)
    def param(self, c: list[Any]) -> Param:
        self.params += 1
        return Param(self.params - 1)

    def string(self, c: list[Token]) -> Lit:
        return Lit({"S": _unquote(str(c[0]), "'")})

    def number(self, c: list[Any]) -> Lit:
        text = str(c[1])
        return Lit({"N": ("-" + text) if c[0] is not None else text})

    def true(self, c: list[Any]) -> Lit:
        return Lit({"BOOL": True})

    def false(self, c: list[Any]) -> Lit:
        return Lit({"BOOL": False})

    def null(self, c: list[Any]) -> Lit:
        return Lit({"NULL": True})

    def missing(self, c: list[Any]) -> Lit:
        return Lit(None)

    def list_of(self, c: list[Any]) -> ListOf:
        return ListOf(tuple(x for x in c if x is not None))

    def map(self, c: list[Any]) -> MapOf:
        pairs = tuple(x for x in c if x is not None)
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise StatementError(f"Duplicate keys in tuple. Key: {k} under item")
        return MapOf(pairs)

    def set_of(self, c: list[Any]) -> SetOf:
        return SetOf(tuple(x for x in c if x is not None and not isinstance(x, Token)))

    def pair(self, c: list[Any]) -> tuple[str, Any]:
        return (_unquote(str(c[0]), "'"), c[1])

    # names and paths
    def name(self, c: list[Token]) -> str:
        tok = c[0]
        if tok.type == "QUOTED":
            text = _unquote(str(tok), '"')
            if not text:
                raise StatementError("Path component cannot be an empty string")
            return text
        return str(tok)

    def path(self, c: list[Any]) -> ast.Path:
        return ast.Path(tuple(int(x) if isinstance(x, Token) else x for x in c))

    def source(self, c: list[str]) -> tuple[str, str | None]:
        if len(c) > 2:
            raise StatementError("A path may contain at most 2 components in the FROM clause")
        return (c[0], c[1] if len(c) > 1 else None)

    # conditions
    def _operand(self, x: Any) -> Any:
        return self._ref(x) if isinstance(x, Param | Lit | ListOf | MapOf | SetOf) else x

    def compare(self, c: list[Any]) -> ast.Compare:
        for x in (c[0], c[2]):
            if isinstance(x, Lit) and x.value is None:
                raise StatementError("MISSING must be compared using IS operator")
        op = "<>" if str(c[1]) == "!=" else str(c[1])
        return ast.Compare(op, self._operand(c[0]), self._operand(c[2]))

    def between(self, c: list[Any]) -> ast.Between:
        return ast.Between(self._operand(c[0]), self._operand(c[2]), self._operand(c[4]))

    def in_(self, c: list[Any]) -> ast.In:
        if not isinstance(c[0], ast.Path):
            raise StatementError("IN operator must have a left hand argument of type Variable Reference and right "
                                 "hand argument of type Seq with at least one member")
        return ast.In(c[0], tuple(self._operand(x) for x in c[2:] if not isinstance(x, Token)))

    def is_(self, c: list[Any]) -> Any:
        subject, negated, kind = c[1 - 1], c[2] is not None, c[3]
        if not isinstance(subject, ast.Path):
            raise StatementError("The left hand side argument to IS must be a Variable Reference, Literal, or Path")
        upper = kind.upper()
        if upper not in IS_TYPES:
            raise StatementError(f"Unsupported data type for IS operator: {upper}. Supported data types are "
                                 "[MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]")
        if IS_TYPES[upper] is None:
            call = ast.Call("attribute_exists" if negated else "attribute_not_exists", (subject,))
            return ast.FunctionCondition(call)
        cond: Any = ast.FunctionCondition(ast.Call("attribute_type", (subject, self._ref(Lit({"S": IS_TYPES[upper]})))))
        return ast.Not(cond) if negated else cond

    def is_type(self, c: list[Token]) -> str:
        return str(c[0])

    def call(self, c: list[Any]) -> ast.Call:
        name = str(c[0]).lower()
        args = tuple(self._operand(x) for x in c[1:] if x is not None)
        if name not in FUNCTIONS:
            raise StatementError(f"Unrecognized function: {c[0]}")
        return ast.Call(name, args)

    def function_condition(self, c: list[Any]) -> ast.FunctionCondition:
        return ast.FunctionCondition(c[0])

    def or_(self, c: list[Any]) -> ast.Or:
        return ast.Or(c[0], c[2])

    def and_(self, c: list[Any]) -> ast.And:
        return ast.And(c[0], c[2])

    def not_(self, c: list[Any]) -> ast.Not:
        return ast.Not(c[1])

    # clauses
    def where(self, c: list[Any]) -> tuple[str, Any]:
        return ("where", c[1])

    def order(self, c: list[Any]) -> tuple[str, Any]:
        return ("order", (c[2], not (c[3] is not None and str(c[3]).upper() == "DESC")))

    def returning(self, c: list[Token]) -> tuple[str, str]:
        which, age = str(c[1]).upper(), str(c[2]).upper()
        return ("returning", ("ALL_" if which == "ALL" else "UPDATED_") + age)

    def projection(self, c: list[Any]) -> tuple[str, Any]:
        if isinstance(c[0], Token):
            return ("projection", None)
        return ("projection", tuple(c))

    def assign(self, c: list[Any]) -> tuple[ast.Path, Any]:
        # COMP, not a "=" of its own: two terminals for "=" made the lexer take a quoted name's
        # comparison in WHERE ("b" = ?) for an assignment.
        if c[1] != "=":
            raise StatementError(MALFORMED + "Unexpected token")
        return (c[0], c[2])

    def plus(self, c: list[Any]) -> ast.Arith:
        return ast.Arith("+", self._operand(c[0]), self._operand(c[2]))

    def minus(self, c: list[Any]) -> ast.Arith:
        return ast.Arith("-", self._operand(c[0]), self._operand(c[2]))

    def set_action(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("SET", [x for x in c if isinstance(x, tuple)])

    def remove_action(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("REMOVE", [x for x in c if isinstance(x, ast.Path)])

    # statements
    def _new(self, kind: str, source: tuple[str, str | None], clauses: list[Any]) -> Statement:
        st = Statement(kind, source[0], source[1])
        for cl in clauses:
            if isinstance(cl, tuple) and cl and cl[0] == "where":
                st.where = cl[1]
            elif isinstance(cl, tuple) and cl and cl[0] == "order":
                st.order = cl[1]
            elif isinstance(cl, tuple) and cl and cl[0] == "returning":
                st.returning = cl[1]
        return st

    def select(self, c: list[Any]) -> Statement:
        st = self._new("SELECT", c[3], c[4:])
        st.projection = c[1][1]
        if st.order is not None and st.where is None:
            raise StatementError("Must have WHERE clause in the statement when using ORDER BY clause.")
        return st

    def insert(self, c: list[Any]) -> Statement:
        st = self._new("INSERT", c[2], [])
        if not isinstance(c[4], MapOf):
            raise StatementError("Unsupported format in item expression. Please use struct format {...} to express "
                                 "item values for insert statement.")
        st.item = c[4]
        return st

    def update(self, c: list[Any]) -> Statement:
        st = self._new("UPDATE", c[1], c[2:])
        sets: list[ast.SetAction] = []
        removes: list[ast.Path] = []
        ops: list[tuple[str, ast.Path, str]] = []
        for x in c[2:]:
            if not (isinstance(x, tuple) and x and x[0] in ("SET", "REMOVE")):
                continue
            if x[0] == "REMOVE":
                removes.extend(x[1])
                continue
            for path, rhs in x[1]:
                op = _set_function(path, rhs)
                if op is not None:
                    ops.append(op)
                else:
                    sets.append(ast.SetAction(path, self._operand(rhs)))
        st.update = ast.Update(tuple(sets), tuple(removes))
        st.set_ops = tuple(ops)
        return st

    def delete(self, c: list[Any]) -> Statement:
        st = self._new("DELETE", c[2], c[3:])
        if st.returning is not None and st.returning != "ALL_OLD":
            shown = st.returning.replace("UPDATED", "MODIFIED").replace("_", " ")
            raise StatementError(f"Invalid returning clause: RETURNING {shown} *. Only RETURNING ALL OLD * is "
                                 "allowed in DELETE statements.")
        return st

    def exists(self, c: list[Any]) -> Statement:
        st: Statement = c[1]
        st.kind = "EXISTS"
        return st


def _set_function(path: ast.Path, rhs: Any) -> tuple[str, ast.Path, str] | None:
    """`SET s = set_add(s, <<...>>)` is an ADD action, `set_delete` a DELETE one."""
    if not (isinstance(rhs, ast.Call) and rhs.name in ("set_add", "set_delete")):
        return None
    fn = rhs.name.upper()
    if len(rhs.args) != 2:
        raise StatementError(f"{fn} must have exactly two arguments")
    if rhs.args[0] != path:
        raise StatementError(f"The first argument to {fn} must equal the assignment value")
    if not isinstance(rhs.args[1], ast.ValueRef):
        raise StatementError(f"The second argument to {fn} must be a value with type SET")
    return ("ADD" if fn == "SET_ADD" else "DELETE", path, rhs.args[1].name)


def _unquote(text: str, q: str) -> str:
    return text[1:-1].replace(q + q, q)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    # Built on first use, not at import: the LALR tables cost more than the rest of server start-up.
    return Lark(GRAMMAR, parser="lalr", maybe_placeholders=True)


@lru_cache(maxsize=1024)
def _parse(text: str) -> Statement:
    try:
        tree = _parser().parse(text)
    except UnexpectedToken as e:
        raise StatementError(MALFORMED + _unexpected(e.token, set(e.accepts or e.expected), text)) from None
    except UnexpectedEOF:
        raise StatementError(MALFORMED + "Unexpected end of statement") from None
    except (UnexpectedCharacters, UnexpectedInput):
        raise StatementError(MALFORMED + "Unexpected token") from None
    b = _Build()
    try:
        st: Statement = b.transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, StatementError):
            raise e.orig_exc from None
        raise
    st.values, st.params = b.values, b.params
    return st


def _unexpected(tok: Token, expected: set[str], text: str) -> str:
    if tok.type == "$END":
        return "Unexpected end of statement"
    if tok.start_pos == _first_token_start(text):
        return "Expected data manipulation"
    if tok.type in KEYWORD_TOKENS:
        return "Unexpected keyword"
    return "Unexpected token after expression" if "$END" in expected else "Unexpected token"


def _first_token_start(text: str) -> int:
    return len(text) - len(text.lstrip())


MAX_DEPTH = 100  # nested brackets and parentheses: far past DynamoDB's 32 levels of values
MAX_OPERATORS = 200  # AND, OR and NOT: each nests the condition tree one level deeper
_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_OPERATOR = re.compile(r"\b(?:not|and|or)\b", re.IGNORECASE)


def _too_deep(text: str) -> bool:
    """Whether the statement nests deeper than the limits (its tree is walked recursively)."""
    bare = _QUOTED.sub("''", text)
    if len(_OPERATOR.findall(bare)) > MAX_OPERATORS:
        return True
    depth = 0
    for ch in bare:
        if ch in "([{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in ")]}":
            depth -= 1
    return False


def parse(text: str) -> Statement:
    """The statement `text` says (cached by text; the result must not be changed)."""
    if not text.strip():
        raise StatementError(MALFORMED + "Unexpected end of statement")
    if _too_deep(text):
        raise StatementError(MALFORMED + "Statement nests too deeply")  # unconfirmed wording
    return _parse(text)


__all__ = ["MALFORMED", "PARAMS_MISMATCH", "ListOf", "Lit", "MapOf", "Param", "SetOf", "Statement",
           "StatementError", "bind", "parse"]
