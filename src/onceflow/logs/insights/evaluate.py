"""Insights expressions compiled once into Python closures over a row (a dict of field -> value).

Values are what the fields hold: str, int, float, bool, None for a field the row lacks, and the
structure types jsonParse makes (MAP a dict, LIST a list), whose members `a.b.0.c` reaches. A
comparison with a missing field is false; a number compares with a numeric string as numbers (values
that `parse` extracted are strings). Regexes run on RE2 (onceflow.patterns.regex), linear in the text.
"""

from __future__ import annotations

import ipaddress
import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from onceflow.logs.insights.query import Binary, Call, Duration, Field, In, Like, ListOf, Literal, Not, Regex
from onceflow.patterns.regex import UnsupportedRegex, compile_linear

Row = dict[str, Any]
Fn = Callable[[Row], Any]


class Time(int):
    """Milliseconds since the epoch that results show as a timestamp (@timestamp, bin(), datefloor())."""


class QueryError(ValueError):
    """A query that parses but cannot run (an unknown function, a bad regex, a misplaced aggregate)."""


AGGREGATES = {"count", "count_distinct", "sum", "avg", "min", "max", "earliest", "latest", "pct", "stddev",
              "sortsfirst", "sortslast"}


def number(v: Any) -> float | int | None:
    """A value as a number, or None when it is not one."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return v
    if isinstance(v, str):
        try:
            f = float(v)
        except ValueError:
            return None
        return int(f) if f.is_integer() and "." not in v and "e" not in v.lower() else f
    return None


def text(v: Any) -> str:
    """A value as the string GetQueryResults shows (a MAP or LIST as compact JSON: UNCONFIRMED spacing)."""
    if isinstance(v, dict | list):
        return json_text(v)
    if isinstance(v, Time):
        return timestamp_text(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e16 else repr(v)
    return str(v)


def json_text(v: Any) -> str:
    try:
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_plain)
    except (RecursionError, ValueError):  # nested deeper than Python recurses: nothing to show
        return ""


def _plain(v: Any) -> Any:
    return int(v) if isinstance(v, Time) else str(v)


def hashable(v: Any) -> Any:
    """A value fit for a set or a dict key (stats groups, count_distinct, dedup): a MAP or LIST by its JSON."""
    return ("\0json", json_text(v)) if isinstance(v, dict | list) else v


def lookup(row: Row, name: str) -> Any:
    """A field's value: the row's own field of that name, else a member of a structure the row holds
    (`js.events.0.name` inside the MAP `js` that jsonParse made; a LIST's items by index)."""
    if name in row:
        return row[name]
    dot = name.rfind(".")
    while dot > 0:
        head = row.get(name[:dot])
        if isinstance(head, dict | list):
            return member(head, name[dot + 1:].split("."))
        dot = name.rfind(".", 0, dot)
    return None


def member(v: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(v, dict):
            v = v.get(part)
        elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
            v = v[int(part)]
        else:
            return None
    return v


def json_parse(v: Any) -> Any:
    """jsonParse(field): the MAP or LIST (or scalar) a JSON string holds; None for a value that is not
    JSON (UNCONFIRMED: what AWS gives for one)."""
    if v is None or isinstance(v, dict | list):
        return v
    try:
        return json.loads(text(v))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python recurses
        return None


def json_stringify(v: Any) -> str | None:
    """jsonStringify(structure): the JSON string of a MAP or LIST (a scalar as JSON too: UNCONFIRMED)."""
    return None if v is None else json_text(v)


def timestamp_text(ms: int) -> str:
    """@timestamp as Insights shows it: `2024-01-31 12:00:00.000` (UTC)."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def regex(r: Regex) -> Any:
    try:
        return compile_linear(r.pattern, ignore_case=r.ignore_case)
    except UnsupportedRegex as e:
        raise QueryError(f"Invalid regular expression /{r.pattern}/: {e}") from None


def _compare(op: str) -> Callable[[Any, Any], bool]:
    def cmp(a: Any, b: Any) -> bool:
        if a is None or b is None:  # a field the row lacks meets no comparison, not even !=
            return False
        if not (isinstance(a, str) and isinstance(b, str)):
            na, nb = number(a), number(b)
            if na is not None and nb is not None:
                a, b = na, nb
            else:
                a, b = text(a), text(b)
        if op == "=":
            return bool(a == b)
        if op == "!=":
            return bool(a != b)
        if op == "<":
            return bool(a < b)
        if op == "<=":
            return bool(a <= b)
        if op == ">":
            return bool(a > b)
        return bool(a >= b)
    return cmp


def _arith(op: str) -> Callable[[Any, Any], Any]:
    def calc(a: Any, b: Any) -> Any:
        na, nb = number(a), number(b)
        if na is None or nb is None:
            return None
        if op == "+":
            return na + nb
        if op == "-":
            return na - nb
        if op == "*":
            return na * nb
        if op == "^":
            try:
                out = na ** nb
            except (OverflowError, ZeroDivisionError):
                return None
            return None if isinstance(out, complex) else out
        if nb == 0:
            return None
        return na / nb if op == "/" else na % nb
    return calc


def truthy(v: Any) -> bool:
    return v is not None and v is not False and v != 0 and v != ""


def _s(f: Callable[..., Any]) -> Callable[..., Any]:
    """A string function: None in, None out."""
    return lambda *a: None if a and a[0] is None else f(*[text(x) if x is not None else None for x in a])


def _n(f: Callable[..., Any]) -> Callable[..., Any]:
    """A numeric function: a non-number in, None out."""
    def call(*a: Any) -> Any:
        nums = [number(x) for x in a]
        return None if any(n is None for n in nums) else f(*nums)
    return call


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "ispresent": lambda v: v is not None,
    "isempty": lambda v: v is None or v == "",
    "isblank": lambda v: v is None or (isinstance(v, str) and not v.strip()),
    "strlen": _s(len),
    "toupper": _s(str.upper),
    "tolower": _s(str.lower),
    "trim": _s(str.strip),
    "ltrim": _s(str.lstrip),
    "rtrim": _s(str.rstrip),
    "concat": lambda *a: "".join(text(x) for x in a if x is not None),
    "strcontains": lambda a, b: None if a is None or b is None else int(text(b) in text(a)),  # 1 or 0, a number
    "substr": lambda s, start, n=None: None if s is None or number(start) is None else (
        text(s)[int(number(start) or 0):] if n is None else
        text(s)[int(number(start) or 0):int(number(start) or 0) + int(number(n) or 0)]),
    "replace": lambda s, a, b: None if s is None else text(s).replace(text(a), text(b)),
    "abs": _n(abs),
    "ceil": _n(math.ceil),
    "floor": _n(math.floor),
    "sqrt": _n(lambda x: math.sqrt(x) if x >= 0 else None),
    "log": _n(lambda x: math.log(x) if x > 0 else None),
    "pow": _n(lambda x, y: x ** y),
    "greatest": lambda *a: max((n for n in map(number, a) if n is not None), default=None),
    "least": lambda *a: min((n for n in map(number, a) if n is not None), default=None),
    "coalesce": lambda *a: next((x for x in a if x is not None), None),
    "tonumber": number,
    "tostring": lambda v: None if v is None else text(v),
    "frommillis": _n(lambda ms: Time(int(ms))),  # a timestamp, shown as @timestamp is
    "tomillis": lambda t: to_millis(t),
    "isvalidip": lambda v: _ip(v) is not None,
    "isvalidipv4": lambda v: _ip(v, 4) is not None,
    "isvalidipv6": lambda v: _ip(v, 6) is not None,
    "isipinsubnet": lambda v, net: _in_subnet(v, net),
    "isipv4insubnet": lambda v, net: _in_subnet(v, net, 4),
    "isipv6insubnet": lambda v, net: _in_subnet(v, net, 6),
    "jsonparse": json_parse,
    "jsonstringify": json_stringify,
    # onceflow stores events unmasked (policies.py), so unmask(field) shows the value as it is
    # (UNCONFIRMED: AWS also wants logs:Unmask of the caller; not checked here).
    "unmask": lambda v: v,
}


def to_millis(v: Any) -> int | None:
    """toMillis(timestamp): the milliseconds of a timestamp value, or of a timestamp written as
    Insights shows one (`2024-01-31 12:00:00.000`) or in ISO 8601 form (UNCONFIRMED which text forms AWS reads)."""
    if isinstance(v, Time):
        return int(v)
    n = number(v)
    if n is not None:
        return int(n)
    if not isinstance(v, str):
        return None
    try:
        when = datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def _ip(v: Any, version: int | None = None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not isinstance(v, str):
        return None
    try:
        addr = ipaddress.ip_address(v.strip())
    except ValueError:
        return None
    return addr if version is None or addr.version == version else None


def _in_subnet(v: Any, net: Any, version: int | None = None) -> bool:
    """isIpInSubnet(ip, "10.0.0.0/8"): false for a value that is no address of the version asked."""
    addr = _ip(v, version)
    if addr is None or not isinstance(net, str):
        return False
    try:
        network = ipaddress.ip_network(net.strip(), strict=False)
    except ValueError:
        return False
    return addr.version == network.version and addr in network


def compile_expr(node: Any) -> Fn:
    """A closure computing the node's value for a row."""
    if isinstance(node, Field):
        name = node.name
        if "." not in name:
            return lambda row: row.get(name)
        return lambda row: lookup(row, name)
    if isinstance(node, Literal):
        value = node.value
        return lambda row: value
    if isinstance(node, Duration):
        ms = node.ms
        return lambda row: ms
    if isinstance(node, Not):
        inner = compile_expr(node.operand)
        return lambda row: not truthy(inner(row))
    if isinstance(node, Binary):
        return _binary(node)
    if isinstance(node, Like):
        return _like(node)
    if isinstance(node, In):
        subject = compile_expr(node.subject)
        options = [compile_expr(o) for o in node.options]
        eq = _compare("=")
        return lambda row: any(eq(subject(row), o(row)) for o in options)
    if isinstance(node, ListOf):
        items = [compile_expr(i) for i in node.items]
        return lambda row: [i(row) for i in items]
    if isinstance(node, Call):
        return _call(node)
    raise QueryError(f"unsupported expression {node!r}")


def _binary(node: Binary) -> Fn:
    left, right = compile_expr(node.left), compile_expr(node.right)
    if node.op == "and":
        return lambda row: truthy(left(row)) and truthy(right(row))
    if node.op == "or":
        return lambda row: truthy(left(row)) or truthy(right(row))
    if node.op in "+-*/%^":
        calc = _arith(node.op)
        return lambda row: calc(left(row), right(row))
    cmp = _compare(node.op)
    return lambda row: cmp(left(row), right(row))


_META = set(".^$*+?{}[]\\|()")


def _like(node: Like) -> Fn:
    subject = compile_expr(node.subject)
    if isinstance(node.pattern, Regex) and not _META & set(node.pattern.pattern) and not node.pattern.ignore_case:
        node = Like(node.subject, Literal(node.pattern.pattern))  # a plain word: a substring test, same answer
    if isinstance(node.pattern, Regex):
        rx = regex(node.pattern)
        search = rx.search

        def matches(row: Row) -> bool:
            v = subject(row)
            return v is not None and search(v if isinstance(v, str) else text(v)) is not None
        return matches
    needle = str(node.pattern.value)

    def contains(row: Row) -> bool:
        v = subject(row)
        return v is not None and needle in (v if isinstance(v, str) else text(v))
    return contains


def _call(node: Call) -> Fn:
    if node.name in AGGREGATES:
        raise QueryError(f"Aggregate function {node.name} is only allowed in a stats command")
    if node.name == "bin":
        return bin_of(node)
    if node.name in ("datefloor", "dateceil"):
        if len(node.args) != 2 or not isinstance(node.args[1], Duration):
            raise QueryError(f"{node.name} takes a field and a period such as 5m")
        value, ms, up = compile_expr(node.args[0]), node.args[1].ms, node.name == "dateceil"

        def rounded(row: Row) -> Any:
            t = number(value(row))
            return None if t is None else Time((-(-int(t) // ms) if up else int(t) // ms) * ms)
        return rounded
    fn = FUNCTIONS.get(node.name)
    if fn is None:
        raise QueryError(f"Unrecognized function name: {node.name}")
    args = [compile_expr(a) for a in node.args]
    try_fn = fn

    def call(row: Row) -> Any:
        try:
            return try_fn(*[a(row) for a in args])
        except (TypeError, ValueError, OverflowError):
            return None
    return call


def bin_of(node: Call) -> Fn:
    """bin(period): @timestamp rounded down to the period (a number of ms, shown as a timestamp)."""
    if len(node.args) != 1 or not isinstance(node.args[0], Duration) or node.args[0].ms <= 0:
        raise QueryError("bin() takes one period such as 5m")
    ms = node.args[0].ms
    return lambda row: Time(row["@timestamp"] // ms * ms)
