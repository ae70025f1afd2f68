"""STS's rows in SQLite: every issued session, by its access key (ASIA...), kept whole as JSON."""

from __future__ import annotations

import json
from typing import Any

from onceflow.store.db import Database

# The table kept its name when it moved here from IAM's store: data folders written before then have
# it from iam-0001 (which created it at the time), so IF NOT EXISTS leaves their sessions in place.
MIGRATIONS = [
    (
        "sts-0001",
        """
        CREATE TABLE IF NOT EXISTS sts_sessions (
            access_key_id TEXT PRIMARY KEY, account TEXT NOT NULL, data TEXT NOT NULL);
        """,
    ),
]

Row = dict[str, Any]


class SessionStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(MIGRATIONS)

    def session(self, key_id: str) -> Row | None:
        r = self.db.query_one("SELECT data FROM sts_sessions WHERE access_key_id=?", (key_id,))
        return json.loads(r[0]) if r else None

    def insert_session(self, session: Row) -> None:
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO sts_sessions VALUES (?,?,?)",
                (session["AccessKeyId"], session["account"], json.dumps(session)),
            )
