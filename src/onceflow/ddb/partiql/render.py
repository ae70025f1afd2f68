"""PartiQL's WHERE and SET clauses as the native operations' expression text: the AST rendered
back with `#nK` names, and the helpers that pick key conditions out of a WHERE clause."""

from __future__ import annotations

import re
from typing import Any

from onceflow.ddb.expr import ast

REF = re.compile(r":p\d+")
RANGE_OPS = {"=", "<", "<=", ">", ">="}


class Render:
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


def conjuncts(n: Any) -> list[Any]:
    if n is None:
        return []
    if isinstance(n, ast.And):
        return conjuncts(n.left) + conjuncts(n.right)
    return [n]


def join(conds: list[Any]) -> Any:
    out = None
    for c in conds:
        out = c if out is None else ast.And(out, c)
    return out


def key_equality(c: Any, names: tuple[str, ...]) -> tuple[str, str] | None:
    """(attribute, ":pN") when `c` is `key = value` (either way round) on one of `names`."""
    if not isinstance(c, ast.Compare) or c.op != "=":
        return None
    for a, b in ((c.left, c.right), (c.right, c.left)):
        if isinstance(a, ast.Path) and len(a.elements) == 1 and a.elements[0] in names and isinstance(b, ast.ValueRef):
            return str(a.elements[0]), b.name
    return None


def mentions(n: Any, names: set[str]) -> bool:
    if isinstance(n, ast.Path):
        return bool(n.elements) and n.elements[0] in names
    if isinstance(n, tuple):
        return any(mentions(x, names) for x in n)
    if hasattr(n, "__dataclass_fields__"):
        return any(mentions(getattr(n, f), names) for f in n.__dataclass_fields__)
    return False


def range_condition(c: Any, name: str) -> bool:
    """A condition a KeyConditionExpression may put on the sort key."""
    def on_key(x: Any) -> bool:
        return isinstance(x, ast.Path) and x.elements == (name,)
    if isinstance(c, ast.Compare) and c.op in RANGE_OPS:
        return (on_key(c.left) and isinstance(c.right, ast.ValueRef))
    if isinstance(c, ast.Between):
        return on_key(c.subject) and isinstance(c.low, ast.ValueRef) and isinstance(c.high, ast.ValueRef)
    if isinstance(c, ast.FunctionCondition) and c.call.name == "begins_with":
        return on_key(c.call.args[0]) and isinstance(c.call.args[1], ast.ValueRef)
    return False


def finish(p: dict[str, Any], r: Render, values: dict[str, Any]) -> dict[str, Any]:
    """Attach the names and the values that the rendered expressions use (no more: unused ones are refused)."""
    text = " ".join(str(v) for k, v in p.items() if k.endswith("Expression"))
    used = dict.fromkeys(REF.findall(text))
    if r.names:
        p["ExpressionAttributeNames"] = {v: k for k, v in r.names.items()}
    if used:
        p["ExpressionAttributeValues"] = {k: values[k] for k in used}
    return p
