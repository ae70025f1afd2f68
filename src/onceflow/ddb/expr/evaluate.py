"""Evaluate compiled conditions and operands against an item, and project items on paths.

Values are AttributeValue dicts; a missing attribute is None. Comparisons across types are false,
as in DynamoDB; `<>` is true when the two sides differ, including when one side is missing."""

from __future__ import annotations

from typing import Any

from onceflow.ddb.expr import ast
from onceflow.ddb.values import Item, Value, compare, values_equal


def resolve(elements: tuple[Any, ...], item: Item) -> Value | None:
    """The value at a document path, or None when any step is missing or of the wrong type."""
    first = elements[0]
    cur: Any = item.get(first) if isinstance(first, str) else None
    for e in elements[1:]:
        if cur is None:
            return None
        if isinstance(e, int):
            lst = cur.get("L")
            cur = lst[e] if lst is not None and e < len(lst) else None
        else:
            m = cur.get("M")
            cur = m.get(e) if m is not None else None
    found: Value | None = cur
    return found


def operand(n: Any, item: Item, values: dict[str, Value]) -> Value | None:
    if isinstance(n, ast.Path):
        return resolve(n.elements, item)
    if isinstance(n, ast.ValueRef):
        return values[n.name]
    if isinstance(n, ast.Call) and n.name == "size":
        return _size(resolve(n.args[0].elements, item))  # type: ignore[union-attr]
    raise TypeError(f"not an operand here: {n!r}")


def _size(v: Value | None) -> Value | None:
    if v is None:
        return None
    (kind, x), = v.items()
    if kind == "S":  # DynamoDB counts a string's UTF-16 code units: size("é𝄞") is 3
        return {"N": str(len(x.encode("utf-16-le", "surrogatepass")) // 2)}
    if kind in ("B", "SS", "NS", "BS", "L", "M"):
        return {"N": str(len(x))}
    return None


def condition(n: Any, item: Item, values: dict[str, Value]) -> bool:
    if isinstance(n, ast.And):
        return condition(n.left, item, values) and condition(n.right, item, values)
    if isinstance(n, ast.Or):
        return condition(n.left, item, values) or condition(n.right, item, values)
    if isinstance(n, ast.Not):
        return not condition(n.operand, item, values)
    if isinstance(n, ast.Compare):
        return _compare(n.op, operand(n.left, item, values), operand(n.right, item, values))
    if isinstance(n, ast.Between):
        x = operand(n.subject, item, values)
        lo, hi = operand(n.low, item, values), operand(n.high, item, values)
        a, b = compare(lo, x), compare(x, hi)
        return a is not None and b is not None and a <= 0 and b <= 0
    if isinstance(n, ast.In):
        x = operand(n.subject, item, values)
        return any(values_equal(x, operand(o, item, values)) for o in n.options)
    return _function(n.call, item, values)


def _compare(op: str, a: Value | None, b: Value | None) -> bool:
    if op == "=":
        return values_equal(a, b)
    if op == "<>":
        return not values_equal(a, b)
    c = compare(a, b)
    if c is None:
        return False
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]


def _function(c: ast.Call, item: Item, values: dict[str, Value]) -> bool:
    name = c.name
    if name == "attribute_exists":
        return resolve(c.args[0].elements, item) is not None  # type: ignore[union-attr]
    if name == "attribute_not_exists":
        return resolve(c.args[0].elements, item) is None  # type: ignore[union-attr]
    a, b = operand(c.args[0], item, values), operand(c.args[1], item, values)
    if a is None or b is None:
        return False
    if name == "attribute_type":
        return next(iter(a)) == b.get("S")
    (ka, xa), = a.items()
    (kb, xb), = b.items()
    if name == "begins_with":
        return ka == kb and ka in ("S", "B") and xa.startswith(xb)
    # contains
    if ka in ("S", "B") and ka == kb:
        return xb in xa
    if ka in ("SS", "NS", "BS") and kb == ka[0]:
        return any(values_equal({kb: e}, b) for e in xa)
    if ka == "L":
        return any(values_equal(e, b) for e in xa)
    return False


# ---------------------------------------------------------------------------- projection
def project(item: Item, paths: tuple[ast.Path, ...] | list[ast.Path]) -> Item:
    """The item reduced to the given document paths, nested the way DynamoDB returns them."""
    tree: dict[Any, Any] = {}
    for p in paths:
        node = tree
        for e in p.elements[:-1]:
            node = node.setdefault(e, {})
            if node is True:
                break
        else:
            node[p.elements[-1]] = True
    out: Item = {}
    for name, sub in tree.items():
        v = item.get(name)
        if v is not None:
            got = v if sub is True else _project_value(v, sub)
            if got is not None:
                out[name] = got
    return out


def _project_value(v: Value, tree: dict[Any, Any]) -> Value | None:
    (kind, x), = v.items()
    if kind == "M":
        keys = [k for k in tree if isinstance(k, str)]
        got = {}
        for k in keys:
            if k in x:
                sub = x[k] if tree[k] is True else _project_value(x[k], tree[k])
                if sub is not None:
                    got[k] = sub
        return {"M": got} if got else None
    if kind == "L":
        idx = sorted(k for k in tree if isinstance(k, int))
        elems = []
        for i in idx:
            if i < len(x):
                sub = x[i] if tree[i] is True else _project_value(x[i], tree[i])
                if sub is not None:
                    elems.append(sub)
        return {"L": elems} if elems else None
    return None
