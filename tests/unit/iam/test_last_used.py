"""Last uses are kept in memory and written out rarely: a mark writes nothing until the hour is up,
a flush writes every mark, reads see unwritten marks over stored ones."""

from __future__ import annotations

import pytest

from onceflow.iam import last_used as module
from onceflow.iam.last_used import KEY, ROLE, LastUsed
from onceflow.iam.store import IamStore
from onceflow.store.db import Database

ACCT = "000000000000"


def stored(store: IamStore, kind: str) -> list[dict]:
    return store.objs(ACCT, kind)


def test_a_mark_is_read_at_once_and_written_only_by_a_flush() -> None:
    store = IamStore(Database(":memory:"))
    tracker = LastUsed(store)
    tracker.mark(KEY, "AKIAEXAMPLE", ACCT, "s3", "eu-west-1")
    assert stored(store, KEY) == []
    used = tracker.get(KEY, "AKIAEXAMPLE", ACCT)
    assert used is not None and (used["service"], used["region"]) == ("s3", "eu-west-1")
    assert tracker.get(KEY, "AKIAEXAMPLE", "111122223333") is None  # another account's key of that id: none
    tracker.flush()
    assert [(s["service"], s["region"]) for s in stored(store, KEY)] == [("s3", "eu-west-1")]
    assert LastUsed(store).get(KEY, "AKIAEXAMPLE", ACCT) == used  # read back from the store


def test_the_hourly_flush_comes_with_a_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    store = IamStore(Database(":memory:"))
    clock = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    tracker = LastUsed(store)
    tracker.mark(ROLE, "arn:aws:iam::000000000000:role/r", ACCT, "lambda", "us-east-1")
    clock[0] += module.FLUSH_EVERY_S - 1
    tracker.mark(ROLE, "arn:aws:iam::000000000000:role/r", ACCT, "lambda", "us-east-2")
    assert stored(store, ROLE) == []
    clock[0] += 1
    tracker.mark(ROLE, "arn:aws:iam::000000000000:role/r", ACCT, "lambda", "us-west-1")
    assert [s["region"] for s in stored(store, ROLE)] == ["us-west-1"]


def test_a_dropped_role_forgets_its_mark_and_its_stored_use() -> None:
    store = IamStore(Database(":memory:"))
    tracker = LastUsed(store)
    arn = "arn:aws:iam::000000000000:role/r"
    tracker.mark(ROLE, arn, ACCT, "sts", "us-east-1")
    tracker.flush()
    tracker.mark(ROLE, arn, ACCT, "sts", "us-east-2")
    tracker.drop(ROLE, arn, ACCT)
    assert tracker.get(ROLE, arn, ACCT) is None and stored(store, ROLE) == []
