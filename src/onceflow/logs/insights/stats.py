"""Insights `stats`: the aggregate functions over groups of rows, and the value order that `stats`
groups and `sort` share (numbers as numbers, before strings). Used by run.py, the query's pipeline."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from onceflow.logs.insights.evaluate import AGGREGATES, QueryError, Row, Time, compile_expr, hashable, number, text
from onceflow.logs.insights.query import Binary, Call, Field, Stats

Stage = Callable[[Iterator[Row]], Iterator[Row]]  # as run.py's: rows in, rows out


def sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((0, number(v)) if number(v) is not None else (1, "") if v is None else (1, text(v))
                 for v in key)


class _Agg:
    """One aggregate's state in one group."""

    __slots__ = ("first", "high", "low", "n", "seen", "sq", "total", "values")

    def __init__(self) -> None:
        self.n, self.total, self.sq = 0, 0.0, 0.0
        self.low: Any = None
        self.high: Any = None
        self.seen: set[Any] | None = None
        self.first: tuple[Any, Any] | None = None  # (timestamp or sort key, value)
        self.values: list[float] | None = None


def stats_stage(c: Stats) -> tuple[Stage, list[str]]:
    """The `stats` command: rows grouped by its `by` expressions, each group's aggregates, groups in key
    order; and the names of the columns it gives."""
    calls: list[Call] = []

    def lift(node: Any) -> Any:
        """Each aggregate call becomes a reference to its result; what is around it runs per group."""
        if isinstance(node, Call) and node.name in AGGREGATES:
            calls.append(node)
            return Field(f"\0agg{len(calls) - 1}")
        if isinstance(node, Binary):
            return Binary(node.op, lift(node.left), lift(node.right))
        if isinstance(node, Call):
            return Call(node.name, tuple(lift(a) for a in node.args), node.star)
        if isinstance(node, Field):
            raise QueryError(f"Field {node.name} in stats must be inside an aggregate function")
        return node
    outputs = [(i.name, compile_expr(lift(i.expr))) for i in c.aggregates]
    if not calls:
        raise QueryError("stats needs at least one aggregate function")
    args = [(call.name, None if call.star or not call.args else compile_expr(call.args[0]),
             _percentile(call)) for call in calls]
    groups = [(i.name, compile_expr(i.expr)) for i in c.groups]

    keyfns = [g for _, g in groups]
    only = keyfns[0] if len(keyfns) == 1 else None
    updaters = [_updater(kind, arg) for kind, arg, _ in args]
    counts_only = all(arg is None for _, arg, _ in args)  # count(*) alone: the common case, kept tight

    def stage(rows: Iterator[Row]) -> Iterator[Row]:
        table: dict[tuple[Any, ...], list[_Agg]] = {}
        counts: dict[tuple[Any, ...], int] = {}
        for row in rows:
            key = (hashable(only(row)),) if only is not None else tuple(hashable(g(row)) for g in keyfns)
            if counts_only:
                counts[key] = counts.get(key, 0) + 1
                continue
            aggs = table.get(key)
            if aggs is None:
                aggs = table[key] = [_Agg() for _ in args]
            for up, a in zip(updaters, aggs, strict=True):
                up(a, row)
        for key, n in counts.items():
            table[key] = [_Agg() for _ in args]
            for a in table[key]:
                a.n = n
        for key in sorted(table, key=sort_key):
            out: Row = {name: _unhashed(v) for (name, _), v in zip(groups, key, strict=True)}
            done = {f"\0agg{i}": _result(kind, a, pct) for i, ((kind, _, pct), a) in
                    enumerate(zip(args, table[key], strict=True))}
            for name, fn in outputs:
                out[name] = fn(done)
            yield out
    return stage, [name for name, _ in groups] + [name for name, _ in outputs]


def _unhashed(v: Any) -> Any:
    """A group key as its value again (a MAP or LIST was keyed by its JSON text, shown as that text)."""
    return v[1] if isinstance(v, tuple) else v


def _percentile(call: Call) -> float | None:
    if call.name != "pct":
        return None
    p = number(getattr(call.args[1], "value", None)) if len(call.args) == 2 else None
    if p is None or not 0 <= p <= 100:
        raise QueryError("pct takes a field and a percentile between 0 and 100")
    return float(p)


def _updater(kind: str, arg: Callable[[Row], Any] | None) -> Callable[[_Agg, Row], None]:
    if arg is None:  # count(*)
        def count(a: _Agg, row: Row) -> None:
            a.n += 1
        return count
    return lambda a, row: _add(kind, a, row, arg(row))


def _add(kind: str, a: _Agg, row: Row, v: Any) -> None:
    if v is None:
        return
    if kind == "count":
        a.n += 1
    elif kind == "count_distinct":
        if a.seen is None:
            a.seen = set()
        a.seen.add(hashable(v))
    elif kind in ("earliest", "latest"):
        ts = row.get("@timestamp", 0)
        # Rows come newest first (the store's order): among equal timestamps the earliest is the
        # last seen (the first stored), the latest the first seen.
        if a.first is None or (ts <= a.first[0] if kind == "earliest" else ts > a.first[0]):
            a.first = (ts, v)
    elif kind in ("sortsfirst", "sortslast"):  # the value `sort` would put first / last (UNCONFIRMED: numbers
        # compared as numbers and before strings, as this module's sort does)
        if a.first is None or ((sort_key((v,)) < a.first[0]) if kind == "sortsfirst" else
                               (sort_key((v,)) > a.first[0])):
            a.first = (sort_key((v,)), v)
    elif kind in ("min", "max") and number(v) is None:
        if a.low is None or text(v) < text(a.low):
            a.low = v
        if a.high is None or text(v) > text(a.high):
            a.high = v
    else:
        n = number(v)
        if n is None:
            return
        a.n += 1
        a.total += n
        a.sq += n * n
        a.low = n if a.low is None or n < a.low else a.low
        a.high = n if a.high is None or n > a.high else a.high
        if kind == "pct":
            if a.values is None:
                a.values = []
            a.values.append(n)
        if isinstance(v, Time):
            a.low, a.high = Time(a.low), Time(a.high)


def _result(kind: str, a: _Agg, pct: float | None) -> Any:
    if kind == "count":
        return a.n
    if kind == "count_distinct":
        return len(a.seen or ())
    if kind in ("earliest", "latest", "sortsfirst", "sortslast"):
        return a.first[1] if a.first else None
    if kind == "min":
        return a.low
    if kind == "max":
        return a.high
    if a.n == 0:
        return None
    if kind == "sum":
        return int(a.total) if a.total.is_integer() else a.total
    if kind == "avg":
        return a.total / a.n
    if kind == "stddev":
        mean = a.total / a.n
        return math.sqrt(max(a.sq / a.n - mean * mean, 0.0))
    values = sorted(a.values or [])
    assert pct is not None
    return values[min(len(values) - 1, max(0, math.ceil(pct / 100 * len(values)) - 1))]
