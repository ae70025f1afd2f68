"""One lexer and one LALR grammar (lark) for ConditionExpression, FilterExpression,
KeyConditionExpression, UpdateExpression and ProjectionExpression.

The lexer is ours so that keywords, functions and reserved words are decided the way DynamoDB
decides them (a bare name starts with a letter: `_a` is a syntax error), and so syntax errors can
name the token and its neighbourhood like AWS does: `Syntax error; token: "<tok>", near: "<prev tok
next>"`, the source text from the token before the offending one through the token after it; at the
end of input, `token: "<EOF>"` and `near:` the last token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.lexer import Lexer

from onceflow.ddb.expr import ast
from onceflow.ddb.expr.reserved import RESERVED_WORDS

KEYWORDS = {"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"}

_TOKEN = re.compile(
    r"""(?P<WS>\s+)
      | (?P<NAME_REF>\#[A-Za-z0-9_]+)
      | (?P<VALUE_REF>:[A-Za-z0-9_]+)
      | (?P<WORD>[A-Za-z][A-Za-z0-9_]*)
      | (?P<INDEX>[0-9]+)
      | (?P<OP><>|<=|>=|[=<>()\[\],.+-])""",
    re.VERBOSE,
)
_OPS = {"=": "EQ", "<>": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "(": "LPAR", ")": "RPAR",
        "[": "LBRACK", "]": "RBRACK", ",": "COMMA", ".": "DOT", "+": "PLUS", "-": "MINUS"}


class ExpressionError(Exception):
    """A problem in an expression; the caller prefixes `Invalid <Kind>: `."""


def tokenize(text: str) -> list[Token]:
    out: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ExpressionError(_syntax(text, out, text[pos], pos, pos + 1))
        kind, value = m.lastgroup or "", m.group()
        if kind == "WORD":
            upper = value.upper()
            rest = text[m.end():].lstrip()
            if upper in KEYWORDS:
                kind = upper
            elif rest.startswith("("):
                kind = "FUNC"
            else:
                kind = "NAME"
        elif kind == "OP":
            kind = _OPS[value]
        if kind != "WS":
            out.append(Token(kind, value, start_pos=pos, end_pos=m.end()))
        pos = m.end()
    return out


def _syntax(text: str, toks: list[Token], token: str, start: int, end: int) -> str:
    """AWS names the offending token and the text from the token before it to the one after it."""
    before = [t for t in toks if (t.end_pos or 0) <= start]
    lo = before[-1].start_pos if before else start
    nxt = _TOKEN.match(text, end)
    hi = end
    while nxt is not None and nxt.lastgroup == "WS":
        nxt = _TOKEN.match(text, nxt.end())
    if nxt is not None:
        hi = nxt.end()
    elif hi < len(text):
        hi += 1  # a character no token starts with counts as a token of its own: near: "!!"
    return f'Syntax error; token: "{token}", near: "{text[lo:hi]}"'


class _Lexer(Lexer):
    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, text: str) -> Iterator[Token]:  # type: ignore[override]
        # lark hands a custom lexer the whole text.
        yield from tokenize(text)


GRAMMAR = r"""
%declare NAME NAME_REF VALUE_REF INDEX FUNC AND OR NOT BETWEEN IN SET REMOVE ADD DELETE
%declare EQ NE LT LE GT GE LPAR RPAR LBRACK RBRACK COMMA DOT PLUS MINUS

condition: cond
projection: path (COMMA path)*
update: clause+

?cond: cond OR conj -> or_
     | conj
?conj: conj AND neg -> and_
     | neg
?neg: NOT neg -> not_
    | pred
?pred: operand comp operand -> compare
     | operand BETWEEN operand AND operand -> between
     | operand IN LPAR operand (COMMA operand)* RPAR -> in_
     | call -> function_condition
     | LPAR cond RPAR -> paren
!comp: EQ | NE | LT | LE | GT | GE

?operand: path | value | call
value: VALUE_REF
call: FUNC LPAR operand (COMMA operand)* RPAR

path: name (DOT name | LBRACK INDEX RBRACK)*
name: NAME | NAME_REF

clause: SET set_action (COMMA set_action)* -> set_clause
      | REMOVE path (COMMA path)* -> remove_clause
      | ADD path value (COMMA path value)* -> add_clause
      | DELETE path value (COMMA path value)* -> delete_clause
set_action: path EQ set_value
?set_value: operand
          | operand PLUS operand -> plus
          | operand MINUS operand -> minus
          | LPAR set_value RPAR -> paren
"""


class _Build(Transformer[Token, Any]):
    def condition(self, c: list[Any]) -> Any:
        return c[0]

    def projection(self, c: list[Any]) -> ast.Projection:
        return ast.Projection(tuple(x for x in c if isinstance(x, ast.Path)))

    def or_(self, c: list[Any]) -> ast.Or:
        return ast.Or(c[0], c[2])

    def and_(self, c: list[Any]) -> ast.And:
        return ast.And(c[0], c[2])

    def not_(self, c: list[Any]) -> ast.Not:
        return ast.Not(c[1])

    def compare(self, c: list[Any]) -> ast.Compare:
        return ast.Compare(c[1], c[0], c[2])

    def comp(self, c: list[Token]) -> str:
        return str(c[0])

    def between(self, c: list[Any]) -> ast.Between:
        return ast.Between(c[0], c[2], c[4])

    def in_(self, c: list[Any]) -> ast.In:
        return ast.In(c[0], tuple(x for x in c[3:] if not isinstance(x, Token)))

    def function_condition(self, c: list[Any]) -> ast.FunctionCondition:
        return ast.FunctionCondition(c[0])

    def paren(self, c: list[Any]) -> Any:
        return c[1]

    def value(self, c: list[Token]) -> ast.ValueRef:
        return ast.ValueRef(str(c[0]))

    def call(self, c: list[Any]) -> ast.Call:
        return ast.Call(str(c[0]), tuple(x for x in c[2:] if not isinstance(x, Token)))

    def name(self, c: list[Token]) -> str | ast.NameRef:
        tok = c[0]
        if tok.type == "NAME_REF":
            return ast.NameRef(str(tok))
        if tok.upper() in RESERVED_WORDS:
            raise ExpressionError(f"Attribute name is a reserved keyword; reserved keyword: {tok}")
        return str(tok)

    def path(self, c: list[Any]) -> ast.Path:
        elems: list[str | int | ast.NameRef] = []
        for x in c:
            if isinstance(x, Token):
                if x.type == "INDEX":
                    elems.append(int(x))
            else:
                elems.append(x)
        return ast.Path(tuple(elems))

    def plus(self, c: list[Any]) -> ast.Arith:
        return ast.Arith("+", c[0], c[2])

    def minus(self, c: list[Any]) -> ast.Arith:
        return ast.Arith("-", c[0], c[2])

    def set_action(self, c: list[Any]) -> ast.SetAction:
        return ast.SetAction(c[0], c[2])

    def set_clause(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("SET", [x for x in c if isinstance(x, ast.SetAction)])

    def remove_clause(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("REMOVE", [x for x in c if isinstance(x, ast.Path)])

    def add_clause(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("ADD", _pairs(c, ast.AddAction))

    def delete_clause(self, c: list[Any]) -> tuple[str, list[Any]]:
        return ("DELETE", _pairs(c, ast.DeleteAction))

    def update(self, c: list[tuple[str, list[Any]]]) -> ast.Update:
        # An unknown function is refused before a repeated section (architect/dynalite test/updateItem.js).
        for _, actions in c:
            for a in actions:
                unknown = _unknown_function(a.value) if isinstance(a, ast.SetAction) else None
                if unknown:
                    raise ExpressionError(f"Invalid function name; function: {unknown}")
        sections: dict[str, list[Any]] = {}
        for kind, actions in c:
            if kind in sections:
                raise ExpressionError(f'The "{kind}" section can only be used once in an update expression;')
            sections[kind] = actions
        written = tuple(a if isinstance(a, ast.Path) else a.path for _, actions in c for a in actions)
        return ast.Update(
            tuple(sections.get("SET", ())), tuple(sections.get("REMOVE", ())),
            tuple(sections.get("ADD", ())), tuple(sections.get("DELETE", ())), written,
        )


def _unknown_function(x: Any) -> str | None:
    """The first function in a SET value that is none of DynamoDB's."""
    if isinstance(x, ast.Arith):
        return _unknown_function(x.left) or _unknown_function(x.right)
    if isinstance(x, ast.Call):
        if x.name not in ast.CONDITION_FUNCS and x.name not in ast.OPERAND_FUNCS and x.name not in ast.UPDATE_FUNCS:
            return x.name
        return next((n for n in map(_unknown_function, x.args) if n), None)
    return None


def _pairs(c: list[Any], cls: Any) -> list[Any]:
    items = [x for x in c if not isinstance(x, Token)]
    return [cls(items[i], items[i + 1]) for i in range(0, len(items), 2)]


@lru_cache(maxsize=1)
def _parser() -> Lark:
    # Built on first use, not at import: the LALR tables cost more than the rest of server start-up.
    return Lark(GRAMMAR, parser="lalr", lexer=_Lexer, start=["condition", "update", "projection"])


_BUILD = _Build()


def parse(text: str, start: str, redundant: bool = True) -> Any:
    """Parse `text` as `start` (condition, update or projection); raises ExpressionError.

    redundant: reject a group wrapped twice, `((a = :v))`, as condition and filter expressions do; a
    KeyConditionExpression accepts `((#pk = :pk)) AND ((#sk = :sk))`."""
    if not text.strip():
        raise ExpressionError("The expression can not be empty;")
    _count_operators(text, start)
    try:
        tree = _parser().parse(text, start=start)
        if redundant:
            _redundant_parentheses(tokenize(text))
        return _BUILD.transform(tree)
    except UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            raise ExpressionError(_syntax_eof(text)) from None
        raise ExpressionError(_syntax(text, tokenize(text), str(tok), tok.start_pos, tok.end_pos)) from None
    except UnexpectedEOF:
        raise ExpressionError(_syntax_eof(text)) from None
    except (UnexpectedCharacters, UnexpectedInput) as e:
        raise ExpressionError(f"Syntax error; {e}") from None
    except VisitError as e:
        if isinstance(e.orig_exc, ExpressionError):
            raise e.orig_exc from None
        raise


MAX_OPERATORS = 300  # DynamoDB's limit per expression (it also keeps the recursive tree walks shallow)
_OPERATORS = {"AND", "OR", "NOT", "BETWEEN", "IN", "FUNC", "PLUS", "MINUS", "NE", "LT", "LE", "GT", "GE"}


def _count_operators(text: str, start: str) -> None:
    toks = tokenize(text)
    counted = _OPERATORS if start == "update" else _OPERATORS | {"EQ"}  # SET's `=` is no operator
    n = sum(1 for t in toks if t.type in counted)
    if n > MAX_OPERATORS:
        # Wording not recorded from AWS (tests/unit/ddb/cases/UNCONFIRMED.md).
        raise ExpressionError(f"The expression contains too many operators; operator count: {n}")


def _redundant_parentheses(toks: list[Token]) -> None:
    """DynamoDB rejects a parenthesised group wrapped again with nothing else inside: ((a = :v))."""
    stack: list[int] = []
    close: dict[int, int] = {}
    for i, t in enumerate(toks):
        if t.type == "LPAR" and not (i and toks[i - 1].type == "FUNC"):
            stack.append(i)
        elif t.type == "LPAR":
            stack.append(-1)
        elif t.type == "RPAR" and stack:
            opened = stack.pop()
            if opened >= 0:
                close[opened] = i
    for i, j in close.items():
        if close.get(i + 1) == j - 1:
            raise ExpressionError("The expression has redundant parentheses;")


def _syntax_eof(text: str) -> str:
    toks = tokenize(text)
    near = text[toks[-1].start_pos:] if toks else ""
    return f'Syntax error; token: "<EOF>", near: "{near.strip()}"'
