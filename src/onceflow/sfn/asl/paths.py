"""JSONPath as Step Functions evaluates it (InputPath, OutputPath, ResultPath, ItemsPath, `.$` values).

AWS evaluates paths with Jayway JsonPath semantics, and its runtime messages quote Jayway's
("No results for path: $['x']", "Missing property in path $['a']"), so this is a small evaluator
written to those rules rather than a general-purpose JSONPath library:
- a *definite* path (only names and single indexes) yields one value or fails;
- an indefinite path (wildcards, slices, index lists, filters, deep scan) yields a list, skipping
  whatever is missing (so `$.items[*].x` on `{}` is `[]`);
- `$$...` reads the context object, `$name...` a workflow variable (the caller passes them).
Paths are compiled once per text (lru_cache) and evaluated many times.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from onceflow.patterns.regex import UnsupportedRegex, compile_linear
from onceflow.sfn.asl.errors import PathNotFound, StateDataError
from onceflow.sfn.asl.json_text import dumps

_NAME_END = re.compile(r"[.\[\s(]")
_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PathSyntaxError(ValueError):
    """The text is not a JSONPath this evaluator (and AWS) accepts."""


@dataclass(frozen=True)
class Tok:
    kind: str  # name | index | slice | wild | deep | filter | func
    names: tuple[str, ...] = ()
    indexes: tuple[int, ...] = ()
    slice: tuple[int | None, int | None, int | None] = (None, None, None)
    filter: Any = None
    deep: Tok | None = None  # for kind == "deep": the token applied at every level

    @property
    def definite(self) -> bool:
        return (self.kind == "name" and len(self.names) == 1) or (
            self.kind == "index" and len(self.indexes) == 1) or self.kind == "func"

    def fragment(self) -> str:
        if self.kind == "name":
            return "[" + ", ".join(f"'{n}'" for n in self.names) + "]"
        if self.kind == "index":
            return "[" + ",".join(str(i) for i in self.indexes) + "]"
        if self.kind == "wild":
            return "[*]"
        return ""


@dataclass(frozen=True)
class Path:
    text: str
    root: str  # "$" (data), "$$" (context) or "$<name>" (a variable)
    tokens: tuple[Tok, ...]

    @property
    def definite(self) -> bool:
        return all(t.definite for t in self.tokens)

    @property
    def variable(self) -> str | None:
        return self.root[1:] if self.root not in ("$", "$$") else None


# --------------------------------------------------------------------------- parsing
@lru_cache(maxsize=4096)
def compile_path(text: str) -> Path:
    if not isinstance(text, str) or not text.startswith("$"):
        raise PathSyntaxError(f"path must start with '$': {text!r}")
    if text.startswith("$$"):
        root, pos = "$$", 2
    elif len(text) > 1 and text[1] not in ".[":
        m = _VAR_NAME.match(text, 1)
        if not m:
            raise PathSyntaxError(f"invalid variable reference: {text!r}")
        root, pos = "$" + m.group(0), m.end()
    else:
        root, pos = "$", 1
    parser = _Parser(text, pos)
    return Path(text, root, tuple(parser.tokens()))


class _Parser:
    def __init__(self, text: str, pos: int) -> None:
        self.s, self.i = text, pos

    def fail(self, why: str) -> PathSyntaxError:
        return PathSyntaxError(f"{why} at position {self.i} in {self.s!r}")

    def tokens(self) -> list[Tok]:
        out: list[Tok] = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "." and self.s.startswith("..", self.i):
                self.i += 2
                inner = self._bracket() if self._peek("[") else self._dot_member(allow_func=False)
                out.append(Tok("deep", deep=inner))
            elif c == "." and self._peek(".["):  # Jayway accepts `$.[...]` for `$[...]`
                self.i += 1
                out.append(self._bracket())
            elif c == ".":
                self.i += 1
                out.append(self._dot_member(allow_func=True))
            elif c == "[":
                out.append(self._bracket())
            else:
                raise self.fail(f"unexpected character {c!r}")
        return out

    def _peek(self, s: str) -> bool:
        return self.s.startswith(s, self.i)

    def _dot_member(self, allow_func: bool) -> Tok:
        if self._peek("*"):
            self.i += 1
            return Tok("wild")
        m = _NAME_END.search(self.s, self.i)
        end = m.start() if m else len(self.s)
        name = self.s[self.i:end]
        if not name:
            raise self.fail("empty property name")
        self.i = end
        if self._peek("()"):
            if not allow_func or name not in _FUNCS:
                raise self.fail(f"unknown function {name}()")
            self.i += 2
            return Tok("func", names=(name,))
        return Tok("name", names=(name,))

    def _bracket(self) -> Tok:
        close = self._find_close()
        body = self.s[self.i + 1:close].strip()
        self.i = close + 1
        if body == "*":
            return Tok("wild")
        if body.startswith("?"):
            f = body[1:].strip()
            if not (f.startswith("(") and f.endswith(")")):
                raise self.fail("filter must be ?(...)")
            return Tok("filter", filter=_FilterParser(f[1:-1]).parse())
        if body[:1] in "'\"":
            return Tok("name", names=tuple(_split_quoted(body, self)))
        if ":" in body:
            parts = [p.strip() for p in body.split(":")]
            if len(parts) > 3:
                raise self.fail("bad slice")
            try:
                nums = [int(p) if p else None for p in parts] + [None] * (3 - len(parts))
            except ValueError as e:
                raise self.fail("bad slice") from e
            return Tok("slice", slice=(nums[0], nums[1], nums[2]))
        try:
            return Tok("index", indexes=tuple(int(p) for p in body.split(",")))
        except ValueError as e:
            raise self.fail(f"bad array index [{body}]") from e

    def _find_close(self) -> int:
        depth, quote, j = 0, None, self.i
        while j < len(self.s):
            c = self.s[j]
            if quote:
                if c == "\\":
                    j += 1
                elif c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c == "[":
                depth += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    return j
            j += 1
        raise self.fail("unclosed '['")


def _split_quoted(body: str, p: _Parser) -> list[str]:
    names, j = [], 0
    while j < len(body):
        q = body[j]
        if q not in "'\"":
            raise p.fail("expected a quoted name")
        k, buf = j + 1, []
        while k < len(body) and body[k] != q:
            if body[k] == "\\" and k + 1 < len(body):
                k += 1
            buf.append(body[k])
            k += 1
        if k >= len(body):
            raise p.fail("unterminated quoted name")
        names.append("".join(buf))
        j = k + 1
        while j < len(body) and body[j] in " ,":
            j += 1
    return names


# --------------------------------------------------------------------------- filters
_FILTER_TOKEN = re.compile(r"""\s*(?:
    (?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<op>==|!=|<=|>=|<|>|=~|&&|\|\||!|\(|\))
  | (?P<regex>/(?:[^/\\]|\\.)*/i?)
  | (?P<kw>true|false|null)\b
  | (?P<path>[@$](?:\.\.?[^\s.\[()=!<>&|]+|\[[^\]]*\])*)
)""", re.X)


class _FilterParser:
    def __init__(self, text: str) -> None:
        self.toks: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _FILTER_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise PathSyntaxError(f"bad filter expression: {text!r}")
            kind = m.lastgroup or ""
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.k = 0

    def parse(self) -> Any:
        node = self._or()
        if self.k != len(self.toks):
            raise PathSyntaxError("trailing tokens in filter")
        return node

    def _next_is(self, value: str) -> bool:
        return self.k < len(self.toks) and self.toks[self.k] == ("op", value)

    def _or(self) -> Any:
        node = self._and()
        while self._next_is("||"):
            self.k += 1
            node = ("or", node, self._and())
        return node

    def _and(self) -> Any:
        node = self._unary()
        while self._next_is("&&"):
            self.k += 1
            node = ("and", node, self._unary())
        return node

    def _unary(self) -> Any:
        if self._next_is("!"):
            self.k += 1
            return ("not", self._unary())
        if self._next_is("("):
            self.k += 1
            node = self._or()
            if not self._next_is(")"):
                raise PathSyntaxError("missing ')' in filter")
            self.k += 1
            return node
        left = self._operand()
        if self.k < len(self.toks) and self.toks[self.k][0] == "op" and \
                self.toks[self.k][1] in ("==", "!=", "<", "<=", ">", ">=", "=~"):
            op = self.toks[self.k][1]
            self.k += 1
            return ("cmp", op, left, self._operand())
        return ("exists", left)

    def _operand(self) -> Any:
        if self.k >= len(self.toks):
            raise PathSyntaxError("filter ends early")
        kind, text = self.toks[self.k]
        self.k += 1
        if kind == "num":
            return ("lit", float(text) if any(c in text for c in ".eE") else int(text))
        if kind == "str":
            return ("lit", re.sub(r"\\(.)", r"\1", text[1:-1]))
        if kind == "kw":
            return ("lit", {"true": True, "false": False, "null": None}[text])
        if kind == "regex":  # on RE2: a user's regex runs in linear time
            try:
                return ("lit", compile_linear(text[1:text.rindex("/")], ignore_case=text.endswith("i")))
            except UnsupportedRegex as exc:
                raise PathSyntaxError(f"invalid regular expression {text}: {exc}") from None
        if kind == "path":
            rel = compile_path("$" + text[1:])
            return ("path", text[0], rel)
        raise PathSyntaxError(f"unexpected {text!r} in filter")


def _filter_value(node: Any, current: Any, root: Any) -> tuple[bool, Any]:
    """(found, value) of a filter operand."""
    if node[0] == "lit":
        return True, node[1]
    base = current if node[1] == "@" else root
    path: Path = node[2]
    try:
        return True, _evaluate(path, base)
    except PathNotFound:
        return False, None


def _test(node: Any, current: Any, root: Any) -> bool:
    op = node[0]
    if op == "or":
        return _test(node[1], current, root) or _test(node[2], current, root)
    if op == "and":
        return _test(node[1], current, root) and _test(node[2], current, root)
    if op == "not":
        return not _test(node[1], current, root)
    if op == "exists":
        if node[1][0] == "lit":
            return bool(node[1][1])
        return _filter_value(node[1], current, root)[0]
    found_l, left = _filter_value(node[2], current, root)
    found_r, right = _filter_value(node[3], current, root)
    if not (found_l and found_r):
        return node[1] == "!=" and found_l != found_r
    return _compare(node[1], left, right)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _compare(op: str, left: Any, right: Any) -> bool:
    if op == "=~":
        return isinstance(left, str) and hasattr(right, "fullmatch") and bool(right.fullmatch(left))
    same = (_is_num(left) and _is_num(right)) or (type(left) is type(right))
    if op == "==":
        return same and left == right
    if op == "!=":
        return not (same and left == right)
    if not same or not (_is_num(left) or isinstance(left, str)):
        return False
    ordered: bool = {"<": left < right, "<=": left <= right, ">": left > right, ">=": left >= right}[op]
    return ordered


# --------------------------------------------------------------------------- evaluation
_FUNCS = {"length": len, "size": len}


def _normal(tokens: tuple[Tok, ...] | list[Tok]) -> str:
    return "$" + "".join(t.fragment() for t in tokens)


def _evaluate(path: Path, data: Any) -> Any:
    if path.definite:
        return _evaluate_definite(path, data)
    results = [data]
    for tok in path.tokens:
        results = [v for node in results for v in _step(tok, node, data)]
    return results


def _evaluate_definite(path: Path, data: Any) -> Any:
    node = data
    toks = path.tokens
    for n, tok in enumerate(toks):
        last = n == len(toks) - 1
        if tok.kind == "name":
            key = tok.names[0]
            if not isinstance(node, dict):
                raise PathNotFound(path.text, _not_an_object(key, toks[:n], node))
            if key not in node:
                if last:
                    raise PathNotFound(path.text, f"No results for path: {_normal(toks)}")
                raise PathNotFound(path.text, f"Missing property in path {_normal(toks[:n + 1])}")
            node = node[key]
        elif tok.kind == "func":
            if not isinstance(node, (list, dict, str)):
                raise PathNotFound(path.text, f"No results for path: {_normal(toks)}")
            node = _FUNCS[tok.names[0]](node)
        else:
            idx = tok.indexes[0]
            if not isinstance(node, list) or not -len(node) <= idx < len(node):
                raise PathNotFound(path.text, f"No results for path: {_normal(toks)}")
            node = node[idx]
    return node


def _not_an_object(key: str, upstream: tuple[Tok, ...], node: Any) -> str:
    # Jayway's wording when a property is asked of a non-object (AWS surfaces it verbatim).
    java = "null" if node is None else {bool: "java.lang.Boolean", int: "java.lang.Integer",
                                        float: "java.lang.Double", str: "java.lang.String",
                                        list: "java.util.ArrayList"}.get(type(node), "unknown")
    return (f"Expected to find an object with property ['{key}'] in path {_normal(upstream)} "
            f"but found '{java}'. This is not a json object according to the JsonProvider: "
            f"'com.jayway.jsonpath.spi.json.JsonSmartJsonProvider'.")


def _step(tok: Tok, node: Any, root: Any) -> list[Any]:
    kind = tok.kind
    if kind == "name":
        return [node[k] for k in tok.names if isinstance(node, dict) and k in node]
    if kind == "index":
        if not isinstance(node, list):
            return []
        return [node[i] for i in tok.indexes if -len(node) <= i < len(node)]
    if kind == "slice":
        return node[slice(*tok.slice)] if isinstance(node, list) else []
    if kind == "wild":
        if isinstance(node, dict):
            return list(node.values())
        return list(node) if isinstance(node, list) else []
    if kind == "filter":
        if isinstance(node, list):
            return [v for v in node if _test(tok.filter, v, root)]
        return [node] if isinstance(node, dict) and _test(tok.filter, node, root) else []
    if kind == "func":
        return [_FUNCS[tok.names[0]](node)] if isinstance(node, (list, dict, str)) else []
    return _deep_scan(tok.deep, node, root)  # type: ignore[arg-type]  # a "deep" token always has one


def _deep_scan(inner: Tok, node: Any, root: Any) -> list[Any]:
    out = list(_step(inner, node, root)) if isinstance(node, (dict, list)) else []
    children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
    for child in children:
        if isinstance(child, (dict, list)):
            out.extend(_deep_scan(inner, child, root))
    return out


# --------------------------------------------------------------------------- public API
def read_path(path: str, data: Any) -> Any:
    """Evaluate a `$...` path on `data`; raises PathNotFound (cause in InputPath/OutputPath wording).

    `$$...` and `$var...` are evaluated on `data` as if they were `$...`: the caller passes the
    context object or the variable's value (or use `resolve_path`, which dispatches itself).
    """
    return _evaluate(_compile_or_fail(path), data)


def resolve_path(path: str, data: Any, context: Any = None, variables: dict[str, Any] | None = None) -> Any:
    """Evaluate a path against the state input (`$`), the context object (`$$`) or a variable (`$x`)."""
    compiled = _compile_or_fail(path)
    if compiled.root == "$":
        return _evaluate(compiled, data)
    if compiled.root == "$$":
        return _evaluate(compiled, context)
    name = compiled.root[1:]
    if variables is None or name not in variables:
        raise PathNotFound(path, f"The variable '{name}' is not defined")
    return _evaluate(compiled, variables[name])


def _compile_or_fail(path: str) -> Path:
    try:
        return compile_path(path)
    except PathSyntaxError as e:
        raise StateDataError("States.Runtime", f"Invalid path '{path}' : {e}") from None


def is_valid_path(text: Any) -> bool:
    """True for any JSONPath AWS accepts in InputPath/OutputPath/`.$` (including `$$` and `$var`)."""
    if not isinstance(text, str):
        return False
    try:
        compile_path(text)
    except PathSyntaxError:
        return False
    return True


def is_reference_path(text: Any) -> bool:
    """A path that identifies a single node: only names and single indexes (ResultPath's kind)."""
    if not isinstance(text, str):
        return False
    try:
        p = compile_path(text)
    except PathSyntaxError:
        return False
    return p.definite and not any(t.kind == "func" for t in p.tokens)


def apply_result_path(result_path: str | None, state_input: Any, result: Any) -> Any:
    """Combine a state's input with its result as ResultPath says (the input is not mutated).

    null discards the result; "$" replaces the input; "$.a.b" sets the node, creating missing
    objects on the way. Walking into a node that is not an object fails as AWS records it:
    States.ReferencePathConflict "Unable to apply ReferencePath $.x to input <json>".
    """
    if result_path is None:
        return state_input
    path = _compile_or_fail(result_path)
    if not path.tokens:
        return result
    conflict = StateDataError(
        "States.ReferencePathConflict",
        f"Unable to apply ReferencePath {result_path} to input {to_json(state_input)}")
    if not path.definite or path.root != "$":
        raise conflict
    out = copy.copy(state_input)
    node = out
    for n, tok in enumerate(path.tokens):
        last = n == len(path.tokens) - 1
        if tok.kind == "name":
            if not isinstance(node, dict):
                raise conflict
            key: Any = tok.names[0]
            child = node.get(key)
            nxt = result if last else (copy.copy(child) if isinstance(child, (dict, list)) else
                                       {} if child is None and key not in node else child)
        else:
            if not isinstance(node, list) or not -len(node) <= tok.indexes[0] < len(node):
                raise conflict
            key = tok.indexes[0]
            child = node[key]
            nxt = result if last else copy.copy(child)
        if not last and not isinstance(nxt, (dict, list)):
            raise conflict
        node[key] = nxt
        node = nxt
    return out


def to_json(value: Any) -> str:
    """Compact JSON as Step Functions writes it everywhere (no spaces, non-ASCII kept, Java's doubles)."""
    return dumps(value)
