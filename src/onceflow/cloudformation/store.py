"""CloudFormation SQL: stacks (a JSON document each: template, parameters, resources, outputs),
their events in order, and change sets. A deleted stack stays, findable by its id, as on AWS."""

from __future__ import annotations

import json
from typing import Any

from onceflow.store import Database

MIGRATIONS = [
    (
        "cfn-0001",
        """
        CREATE TABLE cfn_stacks (
            stack_id TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0,
            doc TEXT NOT NULL
        );
        CREATE INDEX cfn_stacks_by_name ON cfn_stacks (account, region, name, deleted);
        CREATE TABLE cfn_events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            stack_id TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        CREATE INDEX cfn_events_by_stack ON cfn_events (stack_id, seq);
        CREATE TABLE cfn_change_sets (
            change_set_id TEXT PRIMARY KEY,
            stack_id TEXT NOT NULL,
            name TEXT NOT NULL,
            doc TEXT NOT NULL
        );
        """,
    ),
]


class CfnStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def live(self, account: str, region: str, name: str) -> dict[str, Any] | None:
        row = self.db.query_one("SELECT doc FROM cfn_stacks WHERE account=? AND region=? AND name=? AND deleted=0",
                                (account, region, name))
        return json.loads(row["doc"]) if row else None

    def by_id(self, stack_id: str) -> dict[str, Any] | None:
        row = self.db.query_one("SELECT doc FROM cfn_stacks WHERE stack_id=?", (stack_id,))
        return json.loads(row["doc"]) if row else None

    def all(self, account: str, region: str, deleted: bool) -> list[dict[str, Any]]:
        sql = "SELECT doc FROM cfn_stacks WHERE account=? AND region=?" + ("" if deleted else " AND deleted=0")
        return [json.loads(r["doc"]) for r in self.db.query(sql + " ORDER BY rowid DESC", (account, region))]

    def unfinished(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(account, region, stack) for every stack an operation was running on."""
        rows = self.db.query("SELECT account, region, doc FROM cfn_stacks WHERE deleted=0")
        docs = [(r["account"], r["region"], json.loads(r["doc"])) for r in rows]
        return [d for d in docs if d[2]["StackStatus"].endswith("_IN_PROGRESS") and
                d[2]["StackStatus"] != "REVIEW_IN_PROGRESS"]

    def put(self, account: str, region: str, doc: dict[str, Any]) -> None:
        with self.db.transaction() as conn:
            _put(conn, account, region, doc)

    def add_event(self, stack_id: str, event: dict[str, Any], doc: dict[str, Any] | None = None) -> None:
        """An event, and with it (one transaction) the stack as it stands after it."""
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO cfn_events (stack_id, doc) VALUES (?, ?)", (stack_id, json.dumps(event)))
            if doc is not None:
                _, _, region, account, _ = str(doc["StackId"]).split(":", 4)
                _put(conn, account, region, doc)

    def events(self, stack_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT doc FROM cfn_events WHERE stack_id=? ORDER BY seq DESC", (stack_id,))
        return [json.loads(r["doc"]) for r in rows]

    def put_change_set(self, doc: dict[str, Any]) -> None:
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO cfn_change_sets (change_set_id, stack_id, name, doc) VALUES (?, ?, ?, ?) "
                         "ON CONFLICT (change_set_id) DO UPDATE SET doc=excluded.doc",
                         (doc["ChangeSetId"], doc["StackId"], doc["ChangeSetName"], json.dumps(doc)))

    def change_set(self, stack_id: str | None, name_or_id: str) -> dict[str, Any] | None:
        if name_or_id.startswith("arn:"):
            row = self.db.query_one("SELECT doc FROM cfn_change_sets WHERE change_set_id=?", (name_or_id,))
        else:
            row = self.db.query_one("SELECT doc FROM cfn_change_sets WHERE stack_id=? AND name=? "
                                    "ORDER BY rowid DESC", (stack_id, name_or_id))
        return json.loads(row["doc"]) if row else None

    def change_sets(self, stack_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT doc FROM cfn_change_sets WHERE stack_id=? ORDER BY rowid", (stack_id,))
        return [json.loads(r["doc"]) for r in rows]

    def drop_change_set(self, change_set_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM cfn_change_sets WHERE change_set_id=?", (change_set_id,))

    def drop_change_sets(self, stack_id: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM cfn_change_sets WHERE stack_id=?", (stack_id,))


def _put(conn: Any, account: str, region: str, doc: dict[str, Any]) -> None:
    deleted = 1 if doc["StackStatus"] == "DELETE_COMPLETE" else 0
    conn.execute("INSERT INTO cfn_stacks (stack_id, account, region, name, deleted, doc) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (stack_id) DO UPDATE SET deleted=excluded.deleted, doc=excluded.doc",
                 (doc["StackId"], account, region, doc["StackName"], deleted, json.dumps(doc)))
