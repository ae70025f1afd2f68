"""The rules and their counters in the store: one table, per server (no account column)."""

from __future__ import annotations

import json
from typing import Any

from onceflow.store.db import Database, Migration

MIGRATIONS: list[Migration] = [
    ("faults-0001", """
        CREATE TABLE faults_rules (
            id INTEGER PRIMARY KEY,
            spec TEXT NOT NULL,
            matched INTEGER NOT NULL DEFAULT 0,
            fired INTEGER NOT NULL DEFAULT 0
        )
    """),
]


class FaultStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(MIGRATIONS)

    def all(self) -> list[tuple[int, dict[str, Any], int, int]]:
        rows = self.db.query("SELECT id, spec, matched, fired FROM faults_rules ORDER BY id")
        return [(r["id"], json.loads(r["spec"]), r["matched"], r["fired"]) for r in rows]

    def replace(self, rules: list[tuple[int, dict[str, Any]]]) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM faults_rules")
            self._insert(conn, rules)

    def add(self, rules: list[tuple[int, dict[str, Any]]]) -> None:
        with self.db.transaction() as conn:
            self._insert(conn, rules)

    @staticmethod
    def _insert(conn: Any, rules: list[tuple[int, dict[str, Any]]]) -> None:
        conn.executemany("INSERT INTO faults_rules (id, spec) VALUES (?, ?)",
                         [(rule_id, json.dumps(spec, sort_keys=True)) for rule_id, spec in rules])

    def count(self, counts: list[tuple[int, int, int]]) -> None:
        """Counters only grow: MAX keeps a late writer's older figures from going back."""
        with self.db.transaction() as conn:
            conn.executemany("UPDATE faults_rules SET matched=MAX(matched, ?), fired=MAX(fired, ?) WHERE id=?",
                             [(matched, fired, rule_id) for rule_id, matched, fired in counts])
