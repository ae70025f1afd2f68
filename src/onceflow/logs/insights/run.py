"""A parsed Insights query run over log events: each command a stage of a pipeline of rows.

Row-at-a-time stages (fields, filter, parse, unnest) stream; stats, sort and dedup consume what
reaches them. An event's row holds @timestamp, @message, @logStream, @log, @ingestionTime and @ptr, and the
fields discovered in a JSON message (nested keys joined with `.`, list items by index), parsed only
when the query may need them. Pure: the caller hands in the events and reads the results.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, NamedTuple

from onceflow.logs.insights.evaluate import (
    AGGREGATES,
    QueryError,
    Row,
    Time,
    compile_expr,
    hashable,
    lookup,
    number,
    regex,
    text,
    truthy,
)
from onceflow.logs.insights.query import (
    Binary,
    Call,
    Dedup,
    Display,
    Field,
    Fields,
    Filter,
    FilterIndex,
    In,
    Like,
    Limit,
    ListOf,
    Not,
    Parse,
    Query,
    Regex,
    Sort,
    Source,
    Stats,
    Unnest,
)
from onceflow.logs.insights.stats import sort_key, stats_stage

MAX_RESULTS = 10_000  # GetQueryResults' cap whatever the query asks
MAX_DISCOVERED = 200  # Insights discovers at most this many fields of a JSON event


class Event(NamedTuple):
    id: int
    group: str  # "<account>:<group name>", as @log shows it
    stream: str
    ts: int
    ingested: int
    message: str  # "" when the query reads no message (needs_message)
    size: int = -1  # the message's UTF-8 bytes, when the store measured them (else from `message`)


@dataclass
class Outcome:
    rows: list[list[dict[str, str]]]
    matched: int = 0
    scanned: int = 0
    bytes: int = 0
    skipped: int = 0  # events a leading filterIndex let the query skip (estimatedRecordsSkipped)
    skipped_bytes: int = 0
    fields: list[str] = field(default_factory=list)


def discover(message: str) -> dict[str, Any]:
    """The fields of a JSON object message (nothing for other messages, nor for one nested deeper
    than Python recurses: a query over it must not fail)."""
    if not message.startswith("{"):
        return {}
    try:
        return _discover(message)
    except RecursionError:
        return {}


def _discover(message: str) -> dict[str, Any]:
    try:
        doc = json.loads(message)
    except ValueError:
        return {}
    if not isinstance(doc, dict):
        return {}
    if len(doc) <= MAX_DISCOVERED and not any(isinstance(v, dict | list) for v in doc.values()):
        return {k: v for k, v in doc.items() if v is not None}  # a flat object, the usual log line
    out: dict[str, Any] = {}
    _flatten(doc, "", out)
    return out


def _flatten(v: Any, prefix: str, out: dict[str, Any]) -> None:
    if len(out) >= MAX_DISCOVERED:
        return
    pairs = v.items() if isinstance(v, dict) else enumerate(v)
    for k, x in pairs:
        if isinstance(x, dict | list):
            _flatten(x, f"{prefix}{k}.", out)
        elif x is not None and len(out) < MAX_DISCOVERED:
            out[f"{prefix}{k}"] = x


LAMBDA_LINES = ("REPORT RequestId: ", "START RequestId: ", "END RequestId: ")
_REPORT_FIELDS = {"Duration": ("@duration", 1), "Billed Duration": ("@billedDuration", 1),
                  "Memory Size": ("@memorySize", 1_000_000), "Max Memory Used": ("@maxMemoryUsed", 1_000_000),
                  "Init Duration": ("@initDuration", 1)}


def lambda_fields(message: str) -> dict[str, Any]:
    """What Insights discovers in Lambda's START/END/REPORT lines: @type, @requestId and the report's
    figures (@duration ms, @memorySize and @maxMemoryUsed in bytes, as AWS gives them)."""
    kind, _, rest = message.partition(" RequestId: ")
    parts = rest.rstrip().split("\t")
    out: dict[str, Any] = {"@type": kind, "@requestId": parts[0].split(" ")[0]}
    for part in parts[1:]:
        label, _, value = part.partition(": ")
        known = _REPORT_FIELDS.get(label)
        figure = number(value.split(" ")[0]) if known else None
        if known and figure is not None:
            out[known[0]] = figure * known[1]
    return out


def _mentions(node: Any) -> set[str]:
    """Every field an expression reads."""
    if isinstance(node, Field):
        return {node.name}
    if isinstance(node, tuple | list):
        return set().union(*(_mentions(x) for x in node)) if node else set()
    if isinstance(node, Binary):
        return _mentions(node.left) | _mentions(node.right)
    if isinstance(node, Not):
        return _mentions(node.operand)
    if isinstance(node, Like):
        return _mentions(node.subject)
    if isinstance(node, In):
        return _mentions(node.subject) | _mentions(node.options)
    if isinstance(node, ListOf):
        return _mentions(node.items)
    if isinstance(node, Call):
        return _mentions(node.args)
    return set()


def needs_message(q: Query) -> bool:
    """Whether the query reads @message or anything found in it (the store may then leave the text
    out: `stats count(*) by bin(1m)` needs only timestamps)."""
    names, shown = _reads(q)
    return not shown or any(n not in BASE_FIELDS for n in names)


BASE_FIELDS = {"@timestamp", "@logStream", "@log", "@ingestionTime", "@ptr"}


def _reads(q: Query) -> tuple[set[str], bool]:
    """Every field the commands read or show, and whether some command chooses what is shown."""
    out: set[str] = set()
    shown = False
    for c in q.commands:
        if isinstance(c, Fields):
            out |= _mentions([i.expr for i in c.items])
        elif isinstance(c, Display):
            out |= set(c.names)
        elif isinstance(c, Stats):
            out |= _mentions([i.expr for i in c.aggregates + c.groups])
        elif isinstance(c, Filter | FilterIndex):
            out |= _mentions(c.cond)
        elif isinstance(c, Sort):
            out |= _mentions([k for k, _, _ in c.keys])
        elif isinstance(c, Parse):
            out.add(c.source)
        elif isinstance(c, Dedup):
            out |= set(c.names)
        elif isinstance(c, Unnest):
            out.add(c.source)
        shown = shown or isinstance(c, Fields | Display | Stats)
    return out, shown


def _needs_json(q: Query) -> bool:
    """Whether any command reads a field that is not a built-in one (or shows every field)."""
    shown = False
    for c in q.commands:
        names: set[str] = set()
        if isinstance(c, Fields):
            shown = True
            names = _mentions([i.expr for i in c.items])
        elif isinstance(c, Display):
            shown = True
            names = set(c.names)
        elif isinstance(c, Stats):
            shown = True
            names = _mentions([i.expr for i in c.aggregates + c.groups])
        elif isinstance(c, Filter | FilterIndex):
            names = _mentions(c.cond)
        elif isinstance(c, Sort):
            names = _mentions([k for k, _, _ in c.keys])
        elif isinstance(c, Parse | Dedup | Unnest):
            names = set(c.names) if isinstance(c, Dedup) else {c.source}
        if any(not n.startswith("@") for n in names):
            return True
    return not shown


# ------------------------------------------------------------------ stages
Stage = Callable[[Iterator[Row]], Iterator[Row]]


def _fields(c: Fields) -> tuple[Stage, list[str]]:
    computed = [(i.name, compile_expr(i.expr)) for i in c.items]

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        for row in rows:
            for name, fn in computed:
                row[name] = fn(row)
            yield row
    return stage, [i.name for i in c.items]


def _filter(c: Filter | FilterIndex) -> Stage:
    cond = compile_expr(c.cond)
    return lambda rows: (r for r in rows if truthy(cond(r)))


def _parse(c: Parse) -> tuple[Stage, list[str]]:
    if c.regex is not None:
        rx = regex(c.regex)
        names = [n for n, _ in sorted(rx.groupindex.items(), key=lambda kv: kv[1])]
        if not names:
            raise QueryError("parse with a regular expression needs named capturing groups such as (?<name>...)")
    else:
        assert c.glob is not None
        stars = c.glob.count("*")
        if stars != len(c.names):
            raise QueryError(f"parse pattern has {stars} wildcards but {len(c.names)} fields were named")
        rx = regex_of_glob(c.glob)
        names = list(c.names)
    source = c.source
    search = rx.search

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        for row in rows:
            v = lookup(row, source)
            m = search(v if isinstance(v, str) else text(v)) if v is not None else None
            if m is not None:
                for i, name in enumerate(names, start=1):
                    row[name] = m.group(i)
            yield row
    return stage, names


def regex_of_glob(pattern: str) -> Any:
    """`parse`'s pattern: literal text around `*`s that each capture as little as they can, but a
    trailing `*` takes the rest of the value."""
    parts = [_quote(p) for p in pattern.split("*")]
    body = "(.*?)".join(parts)
    if pattern.endswith("*"):
        body = body[: -len("(.*?)")] + "(.*)"
    return regex(Regex(body))


def _quote(s: str) -> str:
    return "".join("\\" + c if not c.isalnum() and c != " " else c for c in s)


def _sort_value(expr: Any, name: str) -> Callable[[Row], Any]:
    """A sort key: a column by the name it was written as (`sort count(*) desc` after stats), else the
    expression's value."""
    if isinstance(expr, Call) and expr.name in AGGREGATES:
        return lambda row: row.get(name)
    fn = compile_expr(expr)
    return lambda row: row[name] if name in row else fn(row)


def _unnest(c: Unnest) -> Stage:
    """One row per item of the source's LIST, the item in `into`; any other value is a LIST of one.
    A row whose source is missing or an empty LIST gives no row (UNCONFIRMED)."""
    source, into = c.source, c.into

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        for row in rows:
            v = lookup(row, source)
            if v is None:
                continue
            for item in v if isinstance(v, list) else (v,):
                if item is not None:
                    yield {**row, into: item}
    return stage


def _sorting(fn: Callable[[Row], Any]) -> Callable[[Row], tuple[Any, ...]]:
    return lambda row: sort_key((fn(row),))


def _sort(c: Sort) -> Stage:
    keys = [(_sort_value(e, name), desc) for e, desc, name in c.keys]

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        out = list(rows)
        for fn, desc in reversed(keys):  # stable sorts, last key first
            present = [r for r in out if fn(r) is not None]
            missing = [r for r in out if fn(r) is None]
            present.sort(key=_sorting(fn), reverse=desc)
            out = present + missing
        return iter(out)
    return stage


def _dedup(c: Dedup) -> Stage:
    names = c.names

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        seen: set[tuple[Any, ...]] = set()
        for row in rows:
            key = tuple(hashable(lookup(row, n)) for n in names)
            if None in key:  # a row lacking a field is never a duplicate
                yield row
            elif key not in seen:
                seen.add(key)
                yield row
    return stage


# ------------------------------------------------------------------ the whole query
class Counter:
    """Counts what passes (records matched) without holding it."""

    def __init__(self) -> None:
        self.n = 0

    def through(self, rows: Iterable[Row]) -> Iterator[Row]:
        for r in rows:
            self.n += 1
            yield r


def source_of(q: Query) -> Source | None:
    """The query's SOURCE command, if it has one (always its first)."""
    return q.commands[0] if q.commands and isinstance(q.commands[0], Source) else None


def calls_unmask(q: Query) -> bool:
    """Whether any expression of the query calls unmask() (it then needs logs:Unmask)."""
    def calls(node: Any) -> bool:
        if isinstance(node, Call):
            return node.name == "unmask" or any(calls(a) for a in node.args)
        if isinstance(node, Binary):
            return calls(node.left) or calls(node.right)
        if isinstance(node, Not):
            return calls(node.operand)
        if isinstance(node, Like):
            return calls(node.subject)
        if isinstance(node, In):
            return calls(node.subject) or any(calls(o) for o in node.options)
        if isinstance(node, ListOf):
            return any(calls(i) for i in node.items)
        return False

    for c in q.commands:
        exprs: list[Any] = []
        if isinstance(c, Fields):
            exprs = [i.expr for i in c.items]
        elif isinstance(c, Stats):
            exprs = [i.expr for i in c.aggregates + c.groups]
        elif isinstance(c, Filter | FilterIndex):
            exprs = [c.cond]
        elif isinstance(c, Sort):
            exprs = [k for k, _, _ in c.keys]
        if any(calls(e) for e in exprs):
            return True
    return False


def index_fields(q: Query) -> set[str]:
    """The fields a query's filterIndex commands need a log group to have a field index on."""
    return {n for c in q.commands if isinstance(c, FilterIndex) for n in c.names}


def _leading_index_filters(q: Query) -> list[Callable[[Row], Any]]:
    """The conditions of the filterIndex commands a query starts with (after SOURCE): the events they
    refuse are ones a field index lets AWS skip rather than scan (UNCONFIRMED how AWS estimates them)."""
    out = []
    for c in q.commands:
        if isinstance(c, Source):
            continue
        if not isinstance(c, FilterIndex):
            break
        out.append(compile_expr(c.cond))
    return out


def run(q: Query, events: Iterable[Event], limit: int = MAX_RESULTS) -> Outcome:
    """Results (GetQueryResults' shape) and statistics of the query over the events."""
    with_json = _needs_json(q)
    out = Outcome([])
    indexed = _leading_index_filters(q)

    def rows() -> Generator[Row, None, None]:
        scanned = size = skipped = skipped_bytes = 0
        try:
            for e in events:
                bytes_ = e.size if e.size >= 0 else len(e.message.encode("utf-8"))
                row = {"@timestamp": Time(e.ts), "@message": e.message, "@logStream": e.stream, "@log": e.group,
                       "@ingestionTime": Time(e.ingested), "@ptr": str(e.id)}
                if with_json:
                    for k, v in discover(e.message).items():
                        row.setdefault(k, v)
                if e.message.startswith(LAMBDA_LINES):
                    row.update(lambda_fields(e.message))
                if indexed and not all(truthy(cond(row)) for cond in indexed):
                    skipped, skipped_bytes = skipped + 1, skipped_bytes + bytes_  # the index would skip it
                    continue
                scanned, size = scanned + 1, size + bytes_
                yield row
        finally:
            out.scanned, out.bytes, out.skipped, out.skipped_bytes = scanned, size, skipped, skipped_bytes

    source = rows()
    stream: Iterator[Row] = source
    shown: list[str] | None = None
    matched: Counter | None = None
    cap = min(limit, MAX_RESULTS)
    aggregated = filtered = False
    for c in q.commands:
        if isinstance(c, Source):  # chose the log groups: the service's part
            continue
        if isinstance(c, Filter | FilterIndex):
            stream = _filter(c)(stream)
            filtered = True
            continue
        if isinstance(c, Fields | Parse):
            stage, names = _fields(c) if isinstance(c, Fields) else _parse(c)
            stream = stage(stream)
            if isinstance(c, Fields):
                shown = (shown or []) + [n for n in names if n not in (shown or [])]
            continue
        if isinstance(c, Unnest):
            stream = _unnest(c)(stream)
            if shown is not None and c.into not in shown:
                shown = [*shown, c.into]
            continue
        if matched is None and not aggregated and filtered:
            matched = Counter()
            stream = matched.through(stream)
        filtered = False
        if isinstance(c, Stats):
            stage, names = stats_stage(c)
            stream = stage(stream)
            shown, aggregated = names, True
        elif isinstance(c, Sort):
            stream = _sort(c)(stream)
        elif isinstance(c, Limit):
            cap = min(cap, c.count)
            stream = islice(stream, c.count)
        elif isinstance(c, Dedup):
            stream = _dedup(c)(stream)
        elif isinstance(c, Display):
            shown = list(c.names)
    if matched is None and filtered:
        matched = Counter()
        stream = matched.through(stream)
    for row in islice(stream, cap):
        names = shown if shown is not None else [k for k in row if k != "@ptr" and k != "@ingestionTime"]
        values = [(n, lookup(row, n)) for n in names]
        result = [{"field": n, "value": text(v)} for n, v in values if v is not None]
        if not aggregated:
            result.append({"field": "@ptr", "value": row["@ptr"]})
        out.rows.append(result)
    source.close()  # what a limit left unread is not scanned; `rows` records what was
    out.matched = matched.n if matched is not None else out.scanned
    return out
