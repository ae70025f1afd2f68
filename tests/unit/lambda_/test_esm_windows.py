"""A mapping's tumbling-window row lives and dies with the mapping (issue 19)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from onceflow.lambda_ import esm_windows
from onceflow.lambda_.mappings import MappingStore
from onceflow.store.db import Database


def _store() -> tuple[Database, MappingStore]:
    db = Database(":memory:")
    store = MappingStore(SimpleNamespace(db=db))  # type: ignore[arg-type]  # the store reads only .db
    db.migrate(esm_windows.MIGRATIONS)
    return db, store


def _mapping(key: str) -> dict[str, Any]:
    return {"uuid": key, "account": "123456789012", "region": "us-east-1",
            "function_arn": "arn:aws:lambda:us-east-1:123456789012:function:f",
            "source_arn": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x", "kind": "dynamodb",
            "config": {"TumblingWindowInSeconds": 60}, "enabled": True, "position": None,
            "last_result": "No records processed", "modified": 0.0}


def test_deleting_a_mapping_deletes_its_open_window() -> None:
    db, store = _store()
    store.insert(_mapping("m1"))
    store.insert(_mapping("m2"))
    with db.transaction() as conn:
        esm_windows.save(conn, "m1", (0, 60_000), {"count": 3})
        esm_windows.save(conn, "m2", (0, 60_000), {"count": 5})
    store.delete("m1")
    assert esm_windows.load(db, "m1") is None
    assert esm_windows.load(db, "m2") == ((0, 60_000), {"count": 5})  # another mapping's window stays


def test_a_late_checkpoint_does_not_bring_a_deleted_mappings_window_back() -> None:
    db, store = _store()
    store.insert(_mapping("m1"))
    store.delete("m1")
    with db.transaction() as conn:  # the poller finishing its batch after the delete
        esm_windows.save(conn, "m1", (0, 60_000), {"count": 1})
    assert esm_windows.load(db, "m1") is None
    assert db.query("SELECT uuid FROM lambda_esm_windows") == []
