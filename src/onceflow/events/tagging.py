"""Tags of EventBridge's buses and rules (TagResource, UntagResource, ListTagsForResource by ARN)."""

from __future__ import annotations

import json
import sqlite3

from onceflow.awsmodels.partitions import partition
from onceflow.events import errors, store
from onceflow.events.buses import DEFAULT_BUS, Buses
from onceflow.store import Database

Key = tuple[str, str]


class Tags:
    def __init__(self, db: Database, buses: Buses) -> None:
        self.db, self.buses = db, buses

    def _tagged(self, conn: sqlite3.Connection, key: Key, arn: str) -> tuple[str, tuple[str, ...]]:
        prefix = f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:"
        if arn.startswith(prefix + "event-bus/"):
            name = arn[len(prefix + "event-bus/"):]
            if name == DEFAULT_BUS:
                self.buses.ensure_default(conn, key)
            if store.get_bus(conn, key, name) is None:
                raise errors.resource_not_found_arn(arn)
            return "bus", (name,)
        if arn.startswith(prefix + "rule/"):
            path = arn[len(prefix + "rule/"):]
            bus, _, name = path.rpartition("/")
            bus = bus or DEFAULT_BUS
            if store.get_rule(conn, key, bus, name) is None:
                raise errors.rule_not_found(name, bus)
            return "rule", (bus, name)
        raise errors.resource_not_found_arn(arn)

    def tags(self, key: Key, arn: str) -> dict[str, str]:
        with self.db.transaction() as conn:
            kind, ident = self._tagged(conn, key, arn)
            row = store.get_bus(conn, key, ident[0]) if kind == "bus" else store.get_rule(conn, key, *ident)
            assert row is not None  # _tagged found it in this transaction
            return json.loads(row["tags"])

    def set_tags(self, key: Key, arn: str, add: dict[str, str], remove: list[str]) -> None:
        with self.db.transaction() as conn:
            kind, ident = self._tagged(conn, key, arn)
            row = store.get_bus(conn, key, ident[0]) if kind == "bus" else store.get_rule(conn, key, *ident)
            assert row is not None  # _tagged found it in this transaction
            tags = {k: v for k, v in json.loads(row["tags"]).items() if k not in remove}
            tags.update(add)
            if kind == "bus":
                store.set_bus(conn, key, ident[0], tags=json.dumps(tags))
            else:
                store.update_rule(conn, key, *ident, tags=json.dumps(tags))
