"""What a write reports of its cost: ConsumedCapacity with the table's and each index's write units,
and ItemCollectionMetrics for tables with local secondary indexes.

An index is charged only for what changes in it: nothing when the item is in neither version or its
projection is unchanged, one write to insert, update or remove its entry, two when its index key
moves (a delete plus an insert). Only the arms a write touched are reported.
"""

from __future__ import annotations

import math
import sqlite3
from typing import Any

from onceflow.ddb import items as it
from onceflow.ddb.schema import Table
from onceflow.ddb.store import Store
from onceflow.ddb.values import Item, item_size

ARMS = (("GSI", "GlobalSecondaryIndexes"), ("LSI", "LocalSecondaryIndexes"))
GB = float(1 << 30)


def kb_units(size: int) -> int:
    """Write units for `size` bytes: one per KB, at least one."""
    return max(1, math.ceil(size / 1024))


def write_units(old: Item | None, new: Item | None) -> float:
    """The table's write units: 1 per KB of the larger of the old and new item, at least 1."""
    return float(kb_units(max(item_size(old) if old else 0, item_size(new) if new else 0)))


def index_units(t: Table, old: Item | None, new: Item | None) -> dict[str, int]:
    """Write units each index is charged for replacing `old` with `new` (None: absent)."""
    if not t.indexes:
        return {}
    before = {name: key for name, *key in it.index_rows(t, old)} if old else {}
    after = {name: key for name, *key in it.index_rows(t, new)} if new else {}
    out = {}
    for name in t.indexes:
        was, now = before.get(name), after.get(name)
        if was is None and now is None:
            continue
        if was is None or now is None:
            out[name] = kb_units(item_size(it.project_index(t, name, new if was is None else old)))  # type: ignore[arg-type]
            continue
        old_view, new_view = it.project_index(t, name, old), it.project_index(t, name, new)  # type: ignore[arg-type]
        if was != now:
            out[name] = kb_units(item_size(old_view)) + kb_units(item_size(new_view))
        elif old_view != new_view:
            out[name] = kb_units(item_size(new_view))
    return out


class _TableCost:
    """Units one table consumed over a request's items."""

    def __init__(self, t: Table) -> None:
        self.t = t
        self.read = 0.0
        self.write = 0.0
        self.indexes: dict[str, int] = {}

    def consumed(self, mode: str, split: bool) -> dict[str, Any]:
        table = self.read + self.write
        cc: dict[str, Any] = {"TableName": self.t.name, "CapacityUnits": table + sum(self.indexes.values())}
        if split:  # a transaction splits read units from write units beside its total, in either mode
            if self.read:
                cc["ReadCapacityUnits"] = self.read
            if self.write:
                cc["WriteCapacityUnits"] = self.write
        if mode == "INDEXES":
            detail: dict[str, Any] = {"CapacityUnits": table}
            if split and self.read:
                detail["ReadCapacityUnits"] = self.read
            if split and self.write:
                detail["WriteCapacityUnits"] = self.write
            cc["Table"] = detail
            for kind, member in ARMS:
                arm = {n: {"CapacityUnits": float(u)} for n, u in self.indexes.items()
                       if self.t.indexes[n].kind == kind}
                if arm:
                    cc[member] = arm
        return cc


class Costs:
    """The ConsumedCapacity of one request, per table, counted only when the caller asked for it.

    In a transaction every item is read or written twice (prepare, commit), each rounded first, a
    ConditionCheck is charged as a write of its item, and each table's read units are split from its
    write units (nubo-db/dynamodb-conformance tests/tier2/transactions, recorded on DynamoDB)."""

    def __init__(self, p: dict[str, Any], transactional: bool = False) -> None:
        self.mode = p.get("ReturnConsumedCapacity") or "NONE"
        self.transactional = transactional
        self.factor = 2 if transactional else 1
        self.tables: dict[str, _TableCost] = {}

    def read(self, t: Table, item: Item | None, consistent: bool = True) -> None:
        """One item read (or looked for): 1 unit per 4 KB, at least 1, halved when eventually consistent."""
        if self.mode != "NONE":
            cost = self.tables.setdefault(t.name, _TableCost(t))
            units = self.factor * max(1, math.ceil((item_size(item) if item else 0) / 4096))
            cost.read += units if consistent else units / 2

    def check(self, t: Table, item: Item | None) -> None:
        """A transaction's ConditionCheck: the write units of its item (at least one per KB), no index's."""
        if self.mode != "NONE":
            cost = self.tables.setdefault(t.name, _TableCost(t))
            cost.write += self.factor * write_units(item, None)

    def write(self, t: Table, old: Item | None, new: Item | None) -> None:
        if self.mode != "NONE":
            cost = self.tables.setdefault(t.name, _TableCost(t))
            cost.write += self.factor * write_units(old, new)
            for name, units in index_units(t, old, new).items():
                cost.indexes[name] = cost.indexes.get(name, 0) + self.factor * units

    def entries(self) -> list[dict[str, Any]]:
        return [cost.consumed(self.mode, self.transactional) for cost in self.tables.values()]

    def report(self, out: dict[str, Any]) -> dict[str, Any]:
        """Add the ConsumedCapacity list (batches and transactions) when it was asked for."""
        if self.mode != "NONE":
            out["ConsumedCapacity"] = self.entries()
        return out


def with_write_capacity(out: dict[str, Any], t: Table, p: dict[str, Any], old: Item | None,
                        new: Item | None) -> dict[str, Any]:
    """Add ConsumedCapacity for one item's write when the caller asked for it."""
    costs = Costs(p)
    if costs.mode != "NONE":
        costs.write(t, old, new)
        out["ConsumedCapacity"] = costs.entries()[0]
    return out


def collection_metrics(conn: sqlite3.Connection, store: Store, t: Table, hk: bytes, key: Item) -> dict[str, Any]:
    """ItemCollectionMetrics of the partition `hk` (its items' sizes, as the write left them).
    DynamoDB gives the size as a range of whole gigabytes around its estimate."""
    low = math.floor(store.collection_size(conn, t.id, hk) / GB)
    return {"ItemCollectionKey": {t.hash[0]: key[t.hash[0]]}, "SizeEstimateRangeGB": [float(low), float(low + 1)]}


def wants_metrics(t: Table, p: dict[str, Any]) -> bool:
    """Item collection metrics are returned only when asked for, and only for tables with an LSI."""
    return p.get("ReturnItemCollectionMetrics") == "SIZE" and any(ix.kind == "LSI" for ix in t.indexes.values())
