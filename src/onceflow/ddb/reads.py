"""Query and Scan: key conditions to key ranges, paging (Limit, the 1 MB page, ExclusiveStartKey),
filters, projections and Select."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from onceflow.ddb import errors
from onceflow.ddb import items as it
from onceflow.ddb.expr import ast
from onceflow.ddb.expr.evaluate import condition, project
from onceflow.ddb.expr.validate import top_level_names
from onceflow.ddb.keys import component, encode_key, encode_keys, escape
from onceflow.ddb.prepare import prepare
from onceflow.ddb.schema import KeyDef, Table
from onceflow.ddb.service import DynamoDB, projection_paths, read_units, with_capacity
from onceflow.ddb.store import segment_bounds
from onceflow.ddb.values import Item, item_size, loads, type_of
from onceflow.errors import validation_error
from onceflow.raw_json import RawJson, RawJsonList
from onceflow.registry import OverBudget

PAGE_BYTES = 1024 * 1024
BATCH = 500


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a read may walk on the event loop before it hands itself to the thread pool
    (registry's "bounded" placement): rows fetched (one batch of at most that many) and bytes of
    stored items walked. Past either, the read raises OverBudget before it has decoded more."""

    rows: int
    bytes: int


# A Query of a small partition (or with a small Limit) is answered on the loop. The most it reads out
# of SQLite is one batch of `rows` items of at most `bytes` each (a larger one is left there: store's
# `cap`), and it decodes, filters and projects at most `bytes` of them.
ON_LOOP = Budget(rows=16, bytes=64 * 1024)

FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


def _key_conditions(tree: Any) -> list[Any]:
    if isinstance(tree, ast.And):
        return _key_conditions(tree.left) + _key_conditions(tree.right)
    return [tree]


def _subject(c: Any) -> tuple[str, Any, str]:
    """(key attribute name, normalised condition, operator as written) of one key condition."""
    if isinstance(c, ast.Compare):
        left, right, op = c.left, c.right, c.op
        if isinstance(right, ast.Path) and isinstance(left, ast.ValueRef):
            left, right, op = right, left, FLIP.get(op, op)
        if op == "<>" or not isinstance(left, ast.Path) or not isinstance(right, ast.ValueRef):
            raise validation_error(errors.QUERY_UNSUPPORTED)
        return _name(left), ast.Compare(op, left, right), c.op
    if isinstance(c, ast.Between) and isinstance(c.subject, ast.Path) \
            and isinstance(c.low, ast.ValueRef) and isinstance(c.high, ast.ValueRef):
        return _name(c.subject), c, "BETWEEN"
    if isinstance(c, ast.FunctionCondition) and c.call.name == "begins_with" \
            and isinstance(c.call.args[0], ast.Path) and isinstance(c.call.args[1], ast.ValueRef):
        return _name(c.call.args[0]), c, "begins_with"
    raise validation_error(errors.QUERY_UNSUPPORTED)


_NOT_KEY_FUNCTIONS = ("attribute_exists", "attribute_not_exists", "attribute_type", "contains")


def check_key_condition_shape(tree: Any) -> None:
    """What DynamoDB refuses in a KeyConditionExpression before it looks at the table (architect/dynalite
    `test/query.js`, run against DynamoDB): operators no key condition takes, functions as operands,
    a condition naming no attribute or two, a nested attribute, a second condition on one attribute."""
    named: set[Any] = set()

    def walk(c: Any) -> None:
        if isinstance(c, ast.And):
            walk(c.left)
            walk(c.right)
            return
        if isinstance(c, ast.Or | ast.Not | ast.In):
            raise errors.key_condition_operator(type(c).__name__.upper())
        if isinstance(c, ast.Compare) and c.op == "<>":
            raise errors.key_condition_operator("<>")
        if isinstance(c, ast.FunctionCondition) and c.call.name in _NOT_KEY_FUNCTIONS:
            raise errors.key_condition_operator(c.call.name)
        operands: tuple[Any, ...]
        if isinstance(c, ast.Between):
            if not isinstance(c.subject, ast.Path):
                raise errors.key_attribute_not_first("BETWEEN")
            operands = (c.subject, c.low, c.high)
        elif isinstance(c, ast.FunctionCondition):
            if not isinstance(c.call.args[0], ast.Path):
                raise errors.key_attribute_not_first(c.call.name)
            operands = c.call.args
        else:
            operands = (c.left, c.right)
        name = None
        for o in operands:
            if isinstance(o, ast.Path):
                if name is not None:
                    raise validation_error(errors.KEY_MULTIPLE_NAMES)
                if len(o.elements) != 1:
                    raise validation_error(errors.NESTED_KEY_CONDITION)
                name = o.elements[0]
            elif not isinstance(o, ast.ValueRef):
                raise validation_error(errors.KEY_NESTED_OPERATION)
        if name is None:
            raise validation_error(errors.KEY_NO_ATTRIBUTE)
        if name in named:
            raise validation_error(errors.ONE_CONDITION_PER_KEY)
        named.add(name)

    walk(tree)


def _check_operands(values: dict[str, Any], refs: list[Any], op: str) -> None:
    """An operand no key could match for its operator (anything but a string or binary in begins_with,
    anything but a string, number or binary in an ordering) is an expression error; one of a key type
    that is not the attribute's is left to the schema check."""
    allowed = ("S", "B") if op == "begins_with" else ("S", "N", "B")
    for ref in refs:
        kind = type_of(values[ref.name])
        if kind not in allowed:
            raise errors.key_condition_operand(op, kind)


def _name(p: ast.Path) -> str:
    if len(p.elements) != 1:
        raise validation_error(errors.NESTED_KEY_CONDITION)
    return str(p.elements[0])


def _successor(b: bytes) -> bytes | None:
    """The smallest byte string greater than every string starting with b."""
    b = b.rstrip(b"\xff")
    return b[:-1] + bytes([b[-1] + 1]) if b else None


def key_range(tree: Any, hash_kds: list[KeyDef], range_kds: list[KeyDef],
              values: dict[str, Any]) -> tuple[bytes, Any, Any]:
    """(hash bytes, lower bound, upper bound) of a KeyConditionExpression. A multi-attribute key
    needs an equality on each partition key attribute, and conditions on its sort key attributes
    from the first on, each an equality but the last."""
    conds: dict[str, Any] = {}
    written: dict[str, str] = {}
    found = _key_conditions(tree)
    for c in found:
        name, norm, written[name] = _subject(c)
        if name in conds:
            raise validation_error(errors.ONE_CONDITION_PER_KEY)
        conds[name] = norm
    keys = len(hash_kds) + len(range_kds)
    if len(found) > keys:
        raise errors.too_many_conditions(len(found), keys)
    hashes = []
    for kd in hash_kds:
        h = conds.pop(kd[0], None)
        if h is None:
            raise errors.missed_key_element(kd[0])
        if not isinstance(h, ast.Compare) or h.op != "=":
            raise validation_error(errors.QUERY_UNSUPPORTED)
        hashes.append(_equal_key_value(values, h.right, kd))
    hk = hashes[0] if len(hashes) == 1 else b"".join(component(b) for b in hashes)
    given = [(kd, conds.pop(kd[0])) for kd in range_kds if kd[0] in conds]
    if conds:
        # A condition on a non-key attribute: DynamoDB names the key element it expected instead.
        raise errors.missed_key_element((range_kds or hash_kds)[-1][0])
    named = [kd for kd, _ in given]
    if named != range_kds[:len(given)]:
        # A sort key attribute skipped before one with a condition (UNCONFIRMED wording).
        skipped = next(kd for kd in range_kds if kd not in named)
        raise errors.missed_key_element(skipped[0])
    for i, (kd, r) in enumerate(given):
        op = written[kd[0]]
        if op != "=":
            if i != len(given) - 1:
                # Only the last sort key attribute queried may have a range (UNCONFIRMED wording).
                raise validation_error(errors.QUERY_UNSUPPORTED)
            refs = [r.right] if isinstance(r, ast.Compare) else [r.low, r.high] if isinstance(r, ast.Between) \
                else [r.call.args[1]]
            _check_operands(values, refs, op)
    if len(range_kds) <= 1:
        if not given:
            return hk, None, None
        return (hk, *_range_bounds(given[0][1], given[0][0], values))
    return (hk, *_composite_bounds(given, values))


def _composite_bounds(given: list[tuple[KeyDef, Any]], values: dict[str, Any]) -> tuple[Any, Any]:
    """(lower, upper) bounds of a multi-attribute sort key: the equalities make a prefix of components;
    the last condition bounds the next component, or, an equality too, all keys that begin so."""
    if not given:
        return None, None
    prefix = b"".join(component(_key_value(values, r.right, kd)) for kd, r in given[:-1])
    kd, r = given[-1]
    top = ((_successor(prefix), False) if prefix else None)
    if isinstance(r, ast.Between):
        low, high = (prefix + component(_key_value(values, x, kd)) for x in (r.low, r.high))
        return (low, True), (_successor(high), False)
    if isinstance(r, ast.FunctionCondition):  # begins_with: a prefix of the component's value
        start = prefix + escape(_key_value(values, r.call.args[1], kd))
        return (start, True), (_successor(start), False)
    at = prefix + component(_key_value(values, r.right, kd))
    after = _successor(at)  # past every key whose component here is the value
    bottom = (prefix, True) if prefix else None
    return {"=": ((at, True), (after, False)), ">=": ((at, True), top), ">": ((after, True), top),
            "<": (bottom, (at, False)), "<=": (bottom, (after, False))}[r.op]


def _key_value(values: dict[str, Any], ref: Any, kd: tuple[str, str]) -> bytes:
    v = values[ref.name]
    if type_of(v) != kd[1]:
        raise validation_error(errors.CONDITION_TYPE)
    return encode_key(v)


def _equal_key_value(values: dict[str, Any], ref: Any, kd: tuple[str, str]) -> bytes:
    """A key attribute's value in an equality: an empty string or binary is refused, as in an item's key."""
    empty = it.empty_kind(values[ref.name])
    if empty is not None:
        raise errors.empty_key(empty, kd[0])
    return _key_value(values, ref, kd)


def _range_bounds(r: Any, kd: tuple[str, str], values: dict[str, Any]) -> tuple[Any, Any]:
    """(lower, upper) bounds of the range key, each (bytes, inclusive) or None."""
    if isinstance(r, ast.Compare):
        b = (_equal_key_value if r.op == "=" else _key_value)(values, r.right, kd)
        lo = (b, r.op != ">") if r.op in ("=", ">=", ">") else None
        hi = (b, r.op != "<") if r.op in ("=", "<=", "<") else None
        return lo, hi
    if isinstance(r, ast.Between):
        return (_key_value(values, r.low, kd), True), (_key_value(values, r.high, kd), True)
    prefix = _key_value(values, r.call.args[1], kd)  # on a number key, a string or binary is a schema mismatch
    nxt = _successor(prefix)
    return (prefix, True), ((nxt, False) if nxt is not None else None)


def _filter_on_keys(flt: Any, kds: list[KeyDef], label: str) -> None:
    """A Query filter may not name the queried key attributes (DynamoDB names the hash key first)."""
    if flt is None:
        return
    names = top_level_names(flt)
    for key in kds:
        if key[0] in names:
            raise errors.key_in_filter(label, key[0])


def _reaches_back(t: Table, index: str, select: str, paths: list[Any] | None) -> bool:
    """Whether a read of a local index fetches the table's items: for attributes it does not project,
    or for all of them (Select ALL_ATTRIBUTES)."""
    ix = t.indexes[index]
    if ix.kind != "LSI" or ix.projection["ProjectionType"] == "ALL":
        return False
    if paths is None:
        return select == "ALL_ATTRIBUTES"
    held = set(t.key_names) | set(ix.key_names) | set(ix.projection.get("NonKeyAttributes", []))
    return any(p.elements and p.elements[0] not in held for p in paths)


class Reader:
    def __init__(self, svc: DynamoDB) -> None:
        self.svc = svc
        self.store = svc.store

    def _select(self, t: Table, p: dict[str, Any], prep: Any) -> tuple[str, list[Any] | None]:
        index = p.get("IndexName")
        paths = projection_paths(prep, p)
        select = p.get("Select") or ("SPECIFIC_ATTRIBUTES" if paths is not None else
                                     "ALL_PROJECTED_ATTRIBUTES" if index else "ALL_ATTRIBUTES")
        if select == "COUNT" and paths is not None:
            raise validation_error(errors.COUNT_WITH_ATTRIBUTES)
        if select == "SPECIFIC_ATTRIBUTES" and paths is None:
            raise validation_error(errors.SPECIFIC_WITHOUT_ATTRIBUTES)
        if select in ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES") and paths is not None:
            raise errors.projection_with_select(select)
        if select == "ALL_PROJECTED_ATTRIBUTES" and not index:
            raise validation_error(errors.PROJECTED_WITHOUT_INDEX)
        if index and select == "ALL_ATTRIBUTES":
            # A local index fetches each matching item whole from the table instead (DynamoDB's Select).
            ix = t.indexes[index]
            if ix.kind == "GSI" and ix.projection["ProjectionType"] != "ALL":
                raise errors.all_attributes_on_index(index)
        return select, paths

    def _index(self, t: Table, p: dict[str, Any]) -> str | None:
        index = p.get("IndexName")
        if index is None:
            return None
        if index not in t.indexes:
            raise errors.no_such_index(index)
        if t.indexes[index].kind == "GSI" and p.get("ConsistentRead"):
            raise validation_error(errors.CONSISTENT_GSI)
        return index

    def _start(self, t: Table, index: str | None, esk: dict[str, Any] | None) -> Any:
        if esk is None:
            return None
        try:
            hk, rk, _ = it.key_bytes(t, {k: esk[k] for k in t.key_names if k in esk})
            if index is None:
                if len(esk) != len(t.key_names):
                    raise ValueError("not every key attribute")  # answered below as a bad start key
                return hk, rk
            ix = t.indexes[index]
            ihk = encode_keys([esk[kd[0]] for kd in ix.hash_keys])
            irk = encode_keys([esk[kd[0]] for kd in ix.range_keys]) if ix.range_keys else b""
            return ihk, irk, hk, rk
        except Exception:
            raise validation_error(errors.BAD_START_KEY) from None

    def query(self, account: str, region: str, p: dict[str, Any], raw: bool = False,
              budget: Budget | None = None) -> dict[str, Any]:
        prep = prepare(p, ("KeyConditionExpression", "FilterExpression", "ProjectionExpression"))
        if p.get("KeyConditionExpression") is not None:  # legacy KeyConditions are refused in their own words
            check_key_condition_shape(prep.get("KeyConditionExpression"))
        t = self.svc.table(account, region, p["TableName"])
        if prep.get("KeyConditionExpression") is None:
            raise validation_error(errors.NO_KEY_CONDITIONS)
        index = self._index(t, p)
        select, paths = self._select(t, p, prep)
        hashes, ranges = ((t.indexes[index].hash_keys, t.indexes[index].range_keys) if index
                          else ([t.hash], [t.range] if t.range else []))
        hk, lo, hi = key_range(prep.get("KeyConditionExpression"), hashes, ranges, prep.values)
        _filter_on_keys(prep.get("FilterExpression"), hashes + ranges, "QueryFilter" if p.get("QueryFilter") else
                        "Filter Expression")
        forward = p.get("ScanIndexForward", True)
        start = self._start(t, index, p.get("ExclusiveStartKey"))
        cap = budget.bytes if budget is not None else None  # an item past the budget stays in SQLite

        def fetch(after: Any, n: int) -> tuple[list[tuple[Any, str | None, int]], bool]:
            if index is None:
                rows = self.store.range(t.id, hk, lo, hi, forward, after[1] if after else None, n, cap)
                return [((r[0], r[1]), r[2], r[3]) for r in rows], len(rows) == n
            rows2 = self.store.index_range(t.id, index, hk, lo, hi, forward, after[1:] if after else None, n, cap)
            return [((hk, r[0], r[1], r[2]), r[3], r[4]) for r in rows2], len(rows2) == n

        return self._page(t, index, p, prep, select, paths, start, fetch, raw, budget)

    def scan(self, account: str, region: str, p: dict[str, Any], raw: bool = False) -> dict[str, Any]:
        prep = prepare(p, ("FilterExpression", "ProjectionExpression"))
        seg, total = p.get("Segment"), p.get("TotalSegments")
        if (seg is None) != (total is None):
            # sic: AWS words the two cases differently ("when Segment parameter", "when parameter TotalSegments").
            raise errors.segment_alone(total_missing=total is None)
        if seg is not None and total is not None and seg >= total:
            raise errors.segment_out_of_range(seg, total)
        t = self.svc.table(account, region, p["TableName"])
        index = self._index(t, p)
        select, paths = self._select(t, p, prep)
        start = self._start(t, index, p.get("ExclusiveStartKey"))

        bounds = segment_bounds(seg, total) if seg is not None and total is not None else None

        def fetch(after: Any, n: int) -> tuple[list[tuple[Any, str, int]], bool]:
            # Segments split the table by a hash of the partition key, as DynamoDB's do.
            rows: list[tuple[Any, str, int]]
            if index is None:
                rows = [((r[0], r[1]), r[2], r[3]) for r in self.store.scan(t.id, after, n, bounds)]
                return rows, len(rows) == n
            while True:  # an index is read in key order; its segments are by a hash of the table's key
                rows = [((r[0], r[1], r[2], r[3]), r[4], r[5]) for r in self.store.index_scan(t.id, index, after, n)]
                if seg is None:
                    return rows, len(rows) == n
                mine = [r for r in rows if zlib.crc32(r[0][2]) % (total or 1) == seg]
                if mine or len(rows) < n:
                    return mine, len(rows) == n
                after = rows[-1][0]

        return self._page(t, index, p, prep, select, paths, start, fetch, raw)

    def _page(self, t: Table, index: str | None, p: dict[str, Any], prep: Any, select: str,
              paths: list[Any] | None, start: Any, fetch: Any, raw: bool,
              budget: Budget | None = None) -> dict[str, Any]:
        limit = p.get("Limit")
        flt = prep.get("FilterExpression")
        # Whole items of the table itself, unfiltered: pass the stored wire JSON through undecoded.
        raw = raw and flt is None and paths is None and index is None
        # A local index answers for attributes it does not project by reading the table's item.
        fetches = index is not None and _reaches_back(t, index, select, paths)
        out: list[Any] = RawJsonList() if raw else []
        scanned = size = read = 0
        fetched = 0.0  # the table's units for the items a local index reached back for
        last: Item | None = None
        after = start
        while True:
            want = BATCH if limit is None else min(BATCH, limit - scanned)
            if budget is not None:
                want = min(want, budget.rows)
            rows, more = fetch(after, want)
            for pos, text, stored_size in rows:
                if budget is not None and (text is None or size + stored_size > budget.bytes):
                    raise OverBudget
                scanned += 1
                size += stored_size
                after = pos
                if index is None:
                    read += stored_size
                if raw:
                    out.append(RawJson(text))
                    item = None
                else:
                    item = loads(text)
                    if index is not None:
                        # An index read is sized on what the index holds of each item; reaching back
                        # reads every walked item whole from the table, each rounded up on its own.
                        view = it.project_index(t, index, item)
                        read += item_size(view)
                        if fetches:
                            fetched += read_units(stored_size, p)
                        else:
                            item = view
                    if flt is None or condition(flt, item, prep.values):
                        out.append(project(item, paths) if paths is not None else item)
                if (limit is not None and scanned >= limit) or size >= PAGE_BYTES:
                    item = item if item is not None else loads(text)
                    last = it.index_key_of(t, index, item) if index else it.key_of(t, item)
                    break
            if last is not None or not more:
                break
            if budget is not None:  # a second batch: more rows than the loop's budget
                raise OverBudget
        result: dict[str, Any] = {}
        if select != "COUNT":
            result["Items"] = out
        result["Count"] = len(out)
        result["ScannedCount"] = scanned
        if last is not None:
            result["LastEvaluatedKey"] = last
        return with_capacity(result, t, p, lambda: read_units(read, p), fetched)
