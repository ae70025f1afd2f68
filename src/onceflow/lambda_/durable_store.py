"""SQL for durable executions: one row per execution, its record (durable.py) as JSON."""

from __future__ import annotations

from onceflow.lambda_.durable import Execution
from onceflow.store.db import Database

MIGRATIONS = [
    (
        "lambda-durable-0001",
        """
        CREATE TABLE lambda_durable_executions (
            arn TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            name TEXT NOT NULL,
            version TEXT NOT NULL,
            execution_name TEXT NOT NULL,
            status TEXT NOT NULL,
            started_ms INTEGER NOT NULL,
            record TEXT NOT NULL
        );
        CREATE INDEX lambda_durable_by_function ON lambda_durable_executions (account, region, name, started_ms);
        """,
    ),
]


class DurableStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(MIGRATIONS)

    def put(self, execution: Execution) -> None:
        account, region, name = execution.key
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO lambda_durable_executions (arn, account, region, name, version, "
                "execution_name, status, started_ms, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (execution.arn, account, region, name, execution.version, execution.name, execution.status,
                 execution.started_ms, execution.to_json()),
            )  # fmt: skip

    def get(self, arn: str) -> Execution | None:
        row = self.db.query_one("SELECT record FROM lambda_durable_executions WHERE arn=?", (arn,))
        return Execution.from_json(row["record"]) if row is not None else None

    def by_name(self, key: tuple[str, str, str], version: str, execution_name: str) -> Execution | None:
        row = self.db.query_one(
            "SELECT record FROM lambda_durable_executions WHERE account=? AND region=? AND name=? AND version=? "
            "AND execution_name=?", (*key, version, execution_name))  # fmt: skip
        return Execution.from_json(row["record"]) if row is not None else None

    def of_function(self, key: tuple[str, str, str], version: str) -> list[Execution]:
        rows = self.db.query(
            "SELECT record FROM lambda_durable_executions WHERE account=? AND region=? AND name=? AND version=? "
            "ORDER BY started_ms, rowid", (*key, version))  # fmt: skip
        return [Execution.from_json(r["record"]) for r in rows]

    def running(self) -> list[str]:
        """The executions that have not ended (running, pausing or paused)."""
        rows = self.db.query(
            "SELECT arn FROM lambda_durable_executions WHERE status IN ('RUNNING', 'PAUSING', 'PAUSED')")  # fmt: skip
        return [r["arn"] for r in rows]

    def delete(self, arn: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM lambda_durable_executions WHERE arn=?", (arn,))

    def delete_function(self, key: tuple[str, str, str]) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM lambda_durable_executions WHERE account=? AND region=? AND name=?", key)
