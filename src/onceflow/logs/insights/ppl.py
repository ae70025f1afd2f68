"""A subset of OpenSearch PPL for Logs Insights (queryLanguage PPL), parsed into the same command
nodes as CWLI (query.py) so the same engine runs it: `fields`, `where`, `stats ... by`, `sort`
(`- f` descending, ascending else), `head [n]` (10 by default), `dedup`; expressions as in CWLI,
with `like(field, 'pattern')` (SQL's % and _ wildcards). Other PPL commands are refused as a
syntax error at their position."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from lark import Lark

from onceflow.logs.insights import query as q
from onceflow.logs.insights.query import Like, Literal, Query, Regex, Sort

_EXPRESSIONS = q.GRAMMAR[q.GRAMMAR.index("item: expr"):]
GRAMMAR = r"""
?start: query
query: command ("|" command)*

?command: fields | where | stats | sort | head | dedup
fields: "fields"i item ("," item)*
where: "where"i expr -> filter
stats: "stats"i aggs ["by"i groups]
aggs: item ("," item)*
groups: item ("," item)*
sort: "sort"i key ("," key)* -> ppl_sort
key: [SIGN] field
SIGN: /[-+](?=\s*[`@A-Za-z_])/
head: "head"i [INT]
dedup: "dedup"i field ("," field)*
""" + _EXPRESSIONS
HEAD = 10  # PPL's head without a count


class _Build(q.Build):
    def call(self, children: list[Any]) -> Any:
        c = super().call(children)
        if c.name == "like" and len(c.args) == 2 and isinstance(c.args[1], Literal):
            return Like(c.args[0], Regex(_sql_pattern(str(c.args[1].value))))
        return c

    def head(self, children: list[Any]) -> q.Limit:
        return q.Limit(int(children[0]) if children[0] is not None else HEAD)


def _sql_pattern(pattern: str) -> str:
    """SQL LIKE's % and _ as an anchored regex."""
    return "^" + "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern) + "$"


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True)


def _command(b: q.Build, tree: Any, text: str) -> Any:
    if tree.data == "ppl_sort":
        out = []
        for node in tree.children:
            sign, field = node.children
            f = b.transform(field)
            out.append((f, sign is not None and str(sign) == "-", f.name))
        return Sort(tuple(out))
    return q.command(b, tree, text)


@lru_cache(maxsize=256)
def parse(text: str) -> Query:
    return q.parse_with(text, _parser(), _Build(text), _command)
