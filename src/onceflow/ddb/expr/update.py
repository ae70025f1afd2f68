"""Apply a compiled UpdateExpression to an item, all or nothing.

Every SET value is computed from the item as it was before the update (DynamoDB's semantics),
then the actions are applied to a copy; any runtime type error raises before the copy is returned,
so a failed update leaves the stored item untouched."""

from __future__ import annotations

from typing import Any

from onceflow.ddb.expr import ast
from onceflow.ddb.expr.evaluate import resolve
from onceflow.ddb.values import Item, Value, add_numbers, normalize_value
from onceflow.errors import ServiceError, validation_error

BAD_TYPE = "An operand in the update expression has an incorrect data type"
BAD_PATH = "The document path provided in the update expression is invalid for update"
MISSING = "The provided expression refers to an attribute that does not exist in the item"


def creates_item(upd: ast.Update | None) -> bool:
    """Whether an update of an absent item writes one: any SET or ADD does, and so does an update of
    no action at all (legacy AttributeUpdates {}); REMOVE and DELETE alone leave it absent."""
    return upd is None or bool(upd.sets or upd.adds) or not (upd.removes or upd.deletes)


def _err(msg: str) -> ServiceError:
    return validation_error(msg)


def copy_value(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: copy_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [copy_value(x) for x in v]
    return v


def _value(n: Any, item: Item, values: dict[str, Value]) -> Value:
    if isinstance(n, ast.ValueRef):
        return values[n.name]
    if isinstance(n, ast.Path):
        v = resolve(n.elements, item)
        if v is None:
            raise _err(MISSING)
        return v
    if isinstance(n, ast.Arith):
        a, b = _value(n.left, item, values), _value(n.right, item, values)
        if "N" not in a or "N" not in b:
            raise _err(BAD_TYPE)
        return {"N": add_numbers(a["N"], b["N"], 1 if n.op == "+" else -1)}
    if n.name == "if_not_exists":
        got = resolve(n.args[0].elements, item)
        return got if got is not None else _value(n.args[1], item, values)
    # list_append
    a, b = _value(n.args[0], item, values), _value(n.args[1], item, values)
    if "L" not in a or "L" not in b:
        raise _err(BAD_TYPE)
    return {"L": a["L"] + b["L"]}


def _parent(item: Item, elements: tuple[Any, ...], create: bool = False) -> tuple[Any, Any] | None:
    """The container (dict of attributes or Python list) holding the last path element."""
    container: Any = item
    for e in elements[:-1]:
        nxt = container.get(e) if isinstance(container, dict) else (
            container[e] if isinstance(e, int) and e < len(container) else None)
        if nxt is None:
            return None
        if "M" in nxt:
            container = nxt["M"]
        elif "L" in nxt:
            container = nxt["L"]
        else:
            return None
    last = elements[-1]
    if isinstance(last, int) != isinstance(container, list):
        return None
    return container, last


def _put(item: Item, elements: tuple[Any, ...], v: Value) -> None:
    where = _parent(item, elements)
    if where is None:
        raise _err(BAD_PATH)
    container, last = where
    if isinstance(container, list):
        if last < len(container):
            container[last] = v
        else:
            container.append(v)
    else:
        container[last] = v


def apply_update(u: ast.Update, item: Item, values: dict[str, Value]) -> Item:
    """The updated copy of `item` (which may be {} for a new item)."""
    computed = [(a.path.elements, _value(a.value, item, values)) for a in u.sets]
    new: Item = copy_value(item)
    for elements, v in computed:
        _put(new, elements, copy_value(v))
    # Remove list elements from the highest index down so earlier indexes stay valid.
    for p in sorted(u.removes, key=lambda p: [(-e if isinstance(e, int) else 0) for e in p.elements]):
        _remove(new, p.elements)
    for a in u.adds:
        _add(new, a.path.elements, values[a.value.name])
    for d in u.deletes:
        _delete(new, d.path.elements, values[d.value.name])
    return new


def _remove(item: Item, elements: tuple[Any, ...]) -> None:
    where = _parent(item, elements)
    if where is None:
        if len(elements) > 1 and resolve(elements[:-1], item) is None:
            return
        raise _err(BAD_PATH)
    container, last = where
    if isinstance(container, list):
        if last < len(container):
            del container[last]
    else:
        container.pop(last, None)


def _add(item: Item, elements: tuple[Any, ...], v: Value) -> None:
    cur = resolve(elements, item)
    kind = next(iter(v))
    if cur is None:
        _put(item, elements, copy_value(v))
        return
    if kind not in cur:
        raise _err(BAD_TYPE)
    if kind == "N":
        _put(item, elements, {"N": add_numbers(cur["N"], v["N"])})
        return
    merged = list(cur[kind]) + [e for e in v[kind] if e not in cur[kind]]
    _put(item, elements, normalize_value({kind: merged}) if kind == "NS" else {kind: merged})


def _delete(item: Item, elements: tuple[Any, ...], v: Value) -> None:
    cur = resolve(elements, item)
    kind = next(iter(v))
    if cur is None:
        return
    if kind not in cur:
        raise _err(BAD_TYPE)
    if kind == "NS":
        from decimal import Decimal

        drop = {Decimal(e) for e in v[kind]}
        left = [e for e in cur[kind] if Decimal(e) not in drop]
    else:
        left = [e for e in cur[kind] if e not in v[kind]]
    if left:
        _put(item, elements, {kind: left})
    else:
        _remove(item, elements)
