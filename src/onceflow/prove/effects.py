"""Tables as item maps: snapshot them (consistent Scans), put them back as they were before a run."""

from __future__ import annotations

import json
from typing import Any

Items = dict[str, dict[str, Any]]  # compact JSON of the key -> the item (DynamoDB JSON)
Snapshot = dict[str, Items]  # table -> items


def key_of(item: dict[str, Any], key_names: list[str]) -> str:
    return json.dumps({k: item[k] for k in key_names if k in item}, sort_keys=True, separators=(",", ":"),
                      default=str)


class Tables:
    """The private stack's DynamoDB tables, read and restored through its own API."""

    def __init__(self, ddb: Any) -> None:
        self.ddb = ddb
        self._keys: dict[str, list[str]] = {}

    def names(self) -> list[str]:
        names: list[str] = []
        for page in self.ddb.get_paginator("list_tables").paginate():
            names.extend(page["TableNames"])
        return names

    def key_names(self, table: str) -> list[str]:
        if table not in self._keys:
            schema = self.ddb.describe_table(TableName=table)["Table"]["KeySchema"]
            self._keys[table] = [k["AttributeName"] for k in schema]
        return self._keys[table]

    def items(self, table: str) -> Items:
        keys = self.key_names(table)
        out: Items = {}
        for page in self.ddb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True):
            for item in page["Items"]:
                out[key_of(item, keys)] = item
        return out

    def snapshot(self, tables: list[str]) -> Snapshot:
        return {t: self.items(t) for t in tables}

    def restore(self, table: str, before: Items) -> None:
        """Make `table` hold exactly `before` again: delete what was added, put back what changed."""
        keys = self.key_names(table)
        now = self.items(table)
        for key, item in now.items():
            if key not in before:
                self.ddb.delete_item(TableName=table, Key={k: item[k] for k in keys})
        for key, item in before.items():
            if now.get(key) != item:
                self.ddb.put_item(TableName=table, Item=item)
