"""CloudWatch Logs filter patterns: parse once, match many messages.

Three forms, chosen by the first character (AWS `FilterAndPatternSyntax`):
- terms: `ERROR "exact phrase" ?alt ?alt -excluded %regex%`. Case-sensitive substring matches; every
  plain term must appear, at least one `?` term must appear when there are any, no `-` term may.
- JSON: `{ $.a.b[0] = "v*" && ($.n > 5 || $.x IS NULL) }`; the message must be a JSON object.
- space-delimited: `[ip, user, ..., status = 4* && bytes > 1000]`; fields split on spaces, with
  `"..."` and `[...]` kept whole.
An empty pattern matches everything. `compile_pattern` caches by text; a bad pattern raises
FilterPatternError carrying AWS's message, which the service returns as InvalidParameterException.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)

from onceflow.logs.json_docs import json_object
from onceflow.patterns.glob import logs_glob
from onceflow.patterns.regex import UnsupportedRegex, compile_linear

Matcher = Callable[[str], bool]

_TERM_CHARS = re.compile(r"[A-Za-z0-9_]+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class FilterPatternError(ValueError):
    """A pattern AWS would reject; str(e) is AWS's message."""


def invalid_term(fragment: str) -> FilterPatternError:
    return FilterPatternError(f"Invalid character(s) in term '{fragment}'")


@lru_cache(maxsize=512)
def compile_pattern(text: str | None) -> Matcher:
    stripped = (text or "").strip()
    if not stripped:
        return _match_all
    if stripped.startswith("{"):
        return _JsonPattern(_parse(stripped, "json_pattern"))
    if stripped.startswith("["):
        return _DelimitedPattern(_parse(stripped, "delimited_pattern"))
    return _parse_terms(stripped)


def _match_all(message: str) -> bool:
    return True


# ---------------------------------------------------------------------------------------- values
@dataclass(frozen=True)
class Value:
    """A right-hand side: a number, a string with optional leading/trailing `*`, or a %regex%."""

    kind: str  # "number" | "string" | "regex" | "any"
    text: str
    number: float | None = None
    regex: Any = None  # an RE2 pattern (onceflow.patterns.regex)

    def matches_text(self, candidate: str) -> bool:
        if self.kind == "any":
            return True
        if self.kind == "regex":
            assert self.regex is not None
            return self.regex.search(candidate) is not None
        return logs_glob(self.text).matches(candidate)  # only an outer `*` is a wildcard (AWS docs: Ev*ent)


# AWS's regex syntax (FilterAndPatternSyntax, "Supported regular expressions"): ASCII letters and
# digits, the symbols : _ # = @ / ; , - and the operators ^ $ ? [ ] { } | \ * + . ; no parentheses,
# no multi-byte characters. UNCONFIRMED: a space is not in AWS's list, so it is refused too.
_REGEX_CHARS = frozenset(string.ascii_letters + string.digits + ":_#=@/;,-" + "^$?[]{}|\\*+.")


def _regex(body: str) -> Any:
    """A %regex% body on RE2: matching is linear in the message, whatever the pattern. RE2's `$` is
    the end of the message (UNCONFIRMED that AWS does not also match before a final newline)."""
    if not body or not _REGEX_CHARS.issuperset(body):
        raise invalid_term(f"%{body}%")
    try:
        return compile_linear(body)
    except UnsupportedRegex:
        raise invalid_term(f"%{body}%") from None


def bare_value(text: str) -> Value:
    if text == "*":
        return Value("any", text)
    if _NUMBER.fullmatch(text):
        return Value("number", text, float(text))
    return Value("string", text)


# ---------------------------------------------------------------------------------------- terms
@dataclass(frozen=True)
class _Term:
    kind: str  # "text" | "regex"
    text: str
    regex: Any = None  # an RE2 pattern (onceflow.patterns.regex)

    def found_in(self, message: str) -> bool:
        if self.regex is not None:
            return self.regex.search(message) is not None
        return self.text in message


class _TermPattern:
    def __init__(self, required: list[_Term], optional: list[_Term], excluded: list[_Term]) -> None:
        self.required, self.optional, self.excluded = required, optional, excluded

    def __call__(self, message: str) -> bool:
        if not all(t.found_in(message) for t in self.required):
            return False
        if self.optional and not any(t.found_in(message) for t in self.optional):
            return False
        return not any(t.found_in(message) for t in self.excluded)


def _parse_terms(text: str) -> _TermPattern:
    buckets: dict[str, list[_Term]] = {"": [], "?": [], "-": []}
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        prefix = ""
        if text[i] in "?-":
            prefix = text[i]
            i += 1
            while i < n and text[i].isspace():  # AWS's own example writes `"ERROR" - "Exiting"`
                i += 1
            if i == n:
                raise invalid_term(prefix)
        term, i = _read_term(text, i)
        buckets[prefix].append(term)
    return _TermPattern(buckets[""], buckets["?"], buckets["-"])


def _read_term(text: str, i: int) -> tuple[_Term, int]:
    if text[i] == '"':
        out, j = [], i + 1
        while j < len(text) and text[j] != '"':
            if text[j] == "\\" and j + 1 < len(text):
                j += 1
            out.append(text[j])
            j += 1
        if j >= len(text):
            raise invalid_term('"')
        return _Term("text", "".join(out)), j + 1
    if text[i] == "%":
        j = text.find("%", i + 1)
        if j < 0:
            raise invalid_term("%")
        return _Term("regex", text[i + 1 : j], _regex(text[i + 1 : j])), j + 1
    m = _TERM_CHARS.match(text, i)
    if not m:
        raise invalid_term(text[i])
    j = m.end()
    if j < len(text) and not text[j].isspace():
        raise invalid_term(text[j])
    return _Term("text", m.group()), j


# ---------------------------------------------------------------------------------------- grammar
_GRAMMAR = r"""
json_pattern: "{" _expr "}"
delimited_pattern: "[" field? (COMMA field?)* "]"

_expr: or_expr
?or_expr: and_expr ("||" and_expr)*
?and_expr: _atom ("&&" _atom)*
_atom: "(" or_expr ")" | compare | check

compare: operand OP rhs
check: operand "IS"i KEYWORD       -> is_check
     | operand "IS"i "NOT"i "NULL"i -> not_null
     | operand "EXISTS"i           -> exists
     | operand "NOT"i "EXISTS"i    -> not_exists

?operand: SELECTOR | NAME
?rhs: ESCAPED_STRING -> quoted
    | REGEX          -> regex
    | BARE           -> bare

?field: ELLIPSIS -> ellipsis
      | NAME     -> plain
      | or_expr  -> conditional

KEYWORD: /(?i:NULL|TRUE|FALSE)\b/
SELECTOR: /\$(\.[A-Za-z0-9_@\-]+|\[\d+\])*/
NAME: /[A-Za-z_][A-Za-z0-9_\-]*/
OP: "!=" | "<=" | ">=" | "=" | "<" | ">"
REGEX: /%[^%]+%/
BARE: /[^\s"{}()\[\],&|=<>!%]+/
ELLIPSIS: "..."
ESCAPED_STRING: /"(\\.|[^"\\])*"/
COMMA: ","

%ignore /\s+/
"""

@lru_cache(maxsize=1)
def _parser() -> Lark:
    # Built on first use: building the LALR tables costs more than the rest of server start-up.
    return Lark(_GRAMMAR, start=["json_pattern", "delimited_pattern"], parser="lalr", maybe_placeholders=False)


@dataclass(frozen=True)
class Compare:
    path: str
    op: str
    value: Value


@dataclass(frozen=True)
class Check:
    path: str
    what: str  # NULL | NOT NULL | TRUE | FALSE | EXISTS | NOT EXISTS


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" | "or"
    parts: tuple[Any, ...]


@v_args(inline=True)
class _Build(Transformer[Token, Any]):
    def json_pattern(self, expr: Any) -> Any:
        return expr

    def delimited_pattern(self, *items: Any) -> list[Any]:
        # An empty slot between commas is an unnamed field (AWS's `[..., status_code=4*,]` example).
        fields: list[Any] = []
        pending = True
        for item in items:
            if isinstance(item, Token) and item.type == "COMMA":
                if pending:
                    fields.append((f"${len(fields) + 1}", None))
                pending = True
            else:
                fields.append(item)
                pending = False
        if pending and items:
            fields.append((f"${len(fields) + 1}", None))
        return fields

    def or_expr(self, *parts: Any) -> BoolOp:
        return BoolOp("or", parts)

    def and_expr(self, *parts: Any) -> BoolOp:
        return BoolOp("and", parts)

    def compare(self, operand: Token, op: Token, value: Value) -> Compare:
        if op in ("<", ">", "<=", ">=") and value.kind != "number":
            raise invalid_term(value.text)
        return Compare(str(operand), str(op), value)

    def is_check(self, operand: Token, keyword: Token) -> Check:
        return Check(str(operand), keyword.upper())

    def not_null(self, operand: Token) -> Check:
        return Check(str(operand), "NOT NULL")

    def exists(self, operand: Token) -> Check:
        return Check(str(operand), "EXISTS")

    def not_exists(self, operand: Token) -> Check:
        return Check(str(operand), "NOT EXISTS")

    def quoted(self, token: Token) -> Value:
        return Value("string", json.loads(token))

    def regex(self, token: Token) -> Value:
        return Value("regex", str(token), regex=_regex(token[1:-1]))

    def bare(self, token: Token) -> Value:
        return bare_value(str(token))

    def ellipsis(self, _token: Token) -> tuple[str, None]:
        return ("...", None)

    def plain(self, name: Token) -> tuple[str, None]:
        return (str(name), None)

    def conditional(self, expr: Any) -> tuple[str, Any]:
        return (_first_operand(expr), expr)


def _operands(expr: Any) -> list[str]:
    if isinstance(expr, BoolOp):
        return [path for part in expr.parts for path in _operands(part)]
    return [expr.path]


def _first_operand(expr: Any) -> str:
    while isinstance(expr, BoolOp):
        expr = expr.parts[0]
    return str(expr.path)


def _parse(text: str, start: str) -> Any:
    try:
        return _Build().transform(_parser().parse(text, start=start))
    except FilterPatternError:
        raise
    except UnexpectedCharacters as exc:
        at = exc.pos_in_stream or 0
        raise invalid_term(text[at : at + 1]) from None
    except UnexpectedToken as exc:
        raise invalid_term(str(exc.token) or text[-1:]) from None
    except UnexpectedInput as exc:
        raise invalid_term(text[-1:]) from exc
    except VisitError as exc:  # a FilterPatternError raised inside the transformer arrives wrapped
        if isinstance(exc.orig_exc, FilterPatternError):
            raise exc.orig_exc from None
        raise invalid_term(text[:1]) from exc
    except LarkError as exc:
        raise invalid_term(text[:1]) from exc


# ---------------------------------------------------------------------------------------- evaluation
_MISSING = object()


def evaluate(expr: Any, lookup: Callable[..., Any]) -> bool:
    """Evaluate a JSON/delimited condition tree; `lookup(path)` returns the value or _MISSING."""
    if isinstance(expr, BoolOp):
        if expr.op == "and":
            return all(evaluate(p, lookup) for p in expr.parts)
        return any(evaluate(p, lookup) for p in expr.parts)
    found = lookup(expr.path)
    if isinstance(expr, Check):
        return _check(expr.what, found)
    return _compare(found, expr.op, expr.value)


def _check(what: str, found: Any) -> bool:
    if what == "EXISTS":
        return found is not _MISSING
    if what == "NOT EXISTS":
        return found is _MISSING
    if found is _MISSING:
        return False
    return {
        "NULL": found is None,
        "NOT NULL": found is not None,
        "TRUE": found is True,
        "FALSE": found is False,
    }[what]


def _compare(found: Any, op: str, value: Value) -> bool:
    # A selector on a missing field, an object or an array never matches, for = and != alike (AWS docs).
    if found is _MISSING or isinstance(found, dict | list):
        return False
    if value.kind == "number":
        number = _as_number(found)
        if number is None:
            return op == "!=" and found is not None
        assert value.number is not None
        return _ORDER_OPS[op](number, value.number)
    text = _as_text(found)
    equal = text is not None and value.matches_text(text)
    return equal if op == "=" else not equal if op == "!=" else False


def _as_number(found: Any) -> float | None:
    if isinstance(found, bool) or found is None:
        return None
    if isinstance(found, int | float):
        return float(found)
    # UNCONFIRMED: a numeric string field compared with a number; treated as its numeric value.
    if isinstance(found, str) and _NUMBER.fullmatch(found.strip()):
        return float(found)
    return None


def _as_text(found: Any) -> str | None:
    if isinstance(found, str):
        return found
    if found is None:
        return None
    return json.dumps(found)  # numbers and booleans compare as their JSON text (404, true)


_ORDER_OPS: dict[str, Callable[[float, float], bool]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
}

_STEP = re.compile(r"\.([A-Za-z0-9_@\-]+)|\[(\d+)\]")


@lru_cache(maxsize=1024)
def _steps(path: str) -> tuple[str | int, ...]:
    return tuple(name if name else int(index) for name, index in _STEP.findall(path[1:]))


def resolve(document: Any, path: str) -> Any:
    """The value at a `$.a[0].b` selector, or _MISSING."""
    node = document
    for step in _steps(path):
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return _MISSING
            node = node[step]
        else:
            if not isinstance(node, dict) or step not in node:
                return _MISSING
            node = node[step]
    return node


class _JsonPattern:
    def __init__(self, expr: Any) -> None:
        for path in _operands(expr):
            if not path.startswith("$"):
                raise invalid_term(path)
        self.expr = expr

    def __call__(self, message: str) -> bool:
        text = message.strip()
        if not text.startswith("{"):
            return False
        document = json_object(text)
        if document is None:
            return False
        return evaluate(self.expr, lambda path: resolve(document, path))


# ---------------------------------------------------------------------------------------- delimited
_SPACE = re.compile(r"\s*")
_WORD = re.compile(r"\S+")


def split_fields(message: str) -> list[str]:
    """Space-delimited fields; text inside a pair of double quotes or square brackets is one field.

    A `"` or `[` opening a field without its closer is part of a plain word. Each search for a
    closer starts past the last one found, and a closer not found is never looked for again, so
    the split is linear in the message (a regex alternation rescanned to the end from every
    unclosed `[`: 17 s for 80 KB of `[ [ [`)."""
    out: list[str] = []
    closers: dict[str, tuple[int, int]] = {}  # closer -> (searched from, found at or -1)
    i, n = 0, len(message)
    while True:
        i = _SPACE.match(message, i).end()  # type: ignore[union-attr]
        if i >= n:
            return out
        if message[i] in '"[':
            j = _closer(message, '"' if message[i] == '"' else "]", i + 1, closers)
            if j >= 0:
                out.append(message[i + 1 : j])
                i = j + 1
                continue
        word = _WORD.match(message, i)
        assert word is not None
        out.append(word.group())
        i = word.end()


def _closer(text: str, char: str, start: int, memo: dict[str, tuple[int, int]]) -> int:
    since, found = memo.get(char, (-1, -1))
    if 0 <= since <= start and (found < 0 or found >= start):
        return found
    found = text.find(char, start)
    memo[char] = (start, found)
    return found


class _DelimitedPattern:
    def __init__(self, fields: list[tuple[str, Any]]) -> None:
        self.fields = fields
        self.names = [name for name, _ in fields]
        self.conditions = [cond for _, cond in fields if cond is not None]
        named = [name for name in self.names if name != "..."]
        # When no name repeats and each condition reads only its own field, the pattern's fields
        # can be aligned with the message's one position at a time (linear in fields x values);
        # otherwise every binding is tried, which grows fast with several `...`.
        self.aligned = len(set(named)) == len(named) and all(
            set(_operands(cond)) == {name} for name, cond in fields if cond is not None)

    def __call__(self, message: str) -> bool:
        values = split_fields(message)
        if self.aligned:
            return self._align(values)
        return any(self._satisfied(binding) for binding in _bindings(self.names, values))

    def _align(self, values: list[str]) -> bool:
        n = len(values)
        reach = [True] + [False] * n  # reach[j]: the fields so far take exactly values[:j]
        for name, cond in self.fields:
            if name == "...":
                seen = False
                for j in range(n + 1):
                    seen = reach[j] = seen or reach[j]
                continue
            step = [False] * (n + 1)
            for j in range(n):
                if reach[j] and (cond is None or evaluate(cond, lambda _path, v=values[j]: v)):
                    step[j + 1] = True
            reach = step
        return reach[n]

    def _satisfied(self, binding: dict[str, str]) -> bool:
        lookup = lambda name: binding.get(name, _MISSING)  # noqa: E731
        return all(evaluate(cond, lookup) for cond in self.conditions)


def _bindings(names: list[str], values: list[str]) -> Any:
    """Every way to map the pattern's fields onto the message's fields (`...` takes zero or more)."""
    if not names:
        if not values:
            yield {}
        return
    head, rest = names[0], names[1:]
    if head == "...":
        for skip in range(len(values) + 1):
            yield from _bindings(rest, values[skip:])
        return
    if not values:
        return
    for tail in _bindings(rest, values[1:]):
        yield {head: values[0], **tail}
