"""IAM's migrations make only IAM's tables; STS's sessions table is made by STS's store."""

from __future__ import annotations

from onceflow.iam.store import IamStore
from onceflow.store.db import Database
from onceflow.sts.store import SessionStore


def tables(db: Database) -> set[str]:
    return {r[0] for r in db.query("SELECT name FROM sqlite_master WHERE type='table'")}


def test_iam_makes_no_sts_table_and_sts_makes_its_own() -> None:
    db = Database(":memory:")
    IamStore(db)
    assert "sts_sessions" not in tables(db)
    assert all(t.startswith("iam_") for t in tables(db) - {"schema_migrations"})
    sessions = SessionStore(db)
    assert "sts_sessions" in tables(db)
    sessions.insert_session({"AccessKeyId": "ASIAEXAMPLE000000000", "account": "000000000000", "kind": "root"})
    assert sessions.session("ASIAEXAMPLE000000000") == {
        "AccessKeyId": "ASIAEXAMPLE000000000", "account": "000000000000", "kind": "root"}
    assert sessions.session("ASIANOTISSUED0000000") is None
