"""A deferred service setup looked up inside a request's write transaction: its tables outlive a
rollback of that transaction, and its threads start only once the transaction has ended (they read
through other connections, which see the tables only once committed). Nothing else is set up."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from onceflow.config import Settings
from onceflow.stack import ServiceSetup, Stack
from onceflow.store.db import Database

MODULE = "onceflow_test_deferred_service"
TABLE_EXISTS = "SELECT name FROM sqlite_master WHERE name='deferred_things'"


def _module(name: str, setup: object) -> None:
    module = types.ModuleType(name)
    module.setup = setup  # type: ignore[attr-defined]
    sys.modules[name] = module


@pytest.fixture(params=["memory", "file"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    seen: list[str] = []

    def setup(stack: Stack) -> None:
        stack.db.migrate([("deferred-0001", "CREATE TABLE deferred_things (k TEXT PRIMARY KEY);")])
        stack.services["deferred"] = object()

        def start() -> None:
            inside = "inside a transaction" if stack.db.in_transaction() else "after the transaction"
            table = "with its table" if stack.db.query(TABLE_EXISTS) else "without its table"
            seen.append(f"started {inside} {table}")

        stack.on_start.append(start)

    _module(MODULE, setup)
    db = Database(":memory:" if request.param == "memory" else str(tmp_path / "db.sqlite"))
    built = Stack(Settings(in_memory=True), db)
    built.defer(ServiceSetup(MODULE, ("deferred",), "deferred_"))
    built.seen = seen  # type: ignore[attr-defined]
    try:
        yield built
    finally:
        db.close()
        del sys.modules[MODULE]


def _start(stack: Stack) -> None:
    for hook in stack.start():
        hook()


def test_a_setup_inside_a_transaction_that_rolls_back_keeps_its_tables(stack: Stack) -> None:
    _start(stack)
    with pytest.raises(RuntimeError), stack.db.transaction():
        assert stack.services["deferred"] is not None
        assert stack.seen == []  # type: ignore[attr-defined]  # its threads wait for the transaction
        raise RuntimeError("the request fails and its transaction rolls back")
    assert stack.db.query(TABLE_EXISTS)  # applied again after the rollback
    assert stack.db.query("SELECT id FROM schema_migrations WHERE id='deferred-0001'")
    assert stack.seen == ["started after the transaction with its table"]  # type: ignore[attr-defined]
    with stack.db.transaction() as conn:  # usable
        conn.execute("INSERT INTO deferred_things VALUES ('a')")


def test_a_setup_inside_a_transaction_that_commits_starts_after_it(stack: Stack) -> None:
    _start(stack)
    with stack.db.transaction():
        assert stack.services["deferred"] is not None
    assert stack.db.query(TABLE_EXISTS)
    assert stack.seen == ["started after the transaction with its table"]  # type: ignore[attr-defined]


def test_a_setup_outside_a_transaction_starts_at_once(stack: Stack) -> None:
    _start(stack)
    assert stack.services["deferred"] is not None
    assert stack.seen == ["started after the transaction with its table"]  # type: ignore[attr-defined]


def test_a_write_sets_up_nothing_it_does_not_look_up(stack: Stack) -> None:
    """Lazy stays lazy after start: a request pays only for the services it uses."""
    other: list[str] = []
    def setup_other(st: Stack) -> None:
        other.append("set up")
        st.services["other"] = object()

    _module(MODULE + "_other", setup_other)
    try:
        stack.defer(ServiceSetup(MODULE + "_other", ("other",), "other_"))
        _start(stack)
        with stack.db.transaction():
            assert stack.services["deferred"] is not None
        with stack.db.transaction() as conn:
            conn.execute("INSERT INTO deferred_things VALUES ('b')")
        assert other == [] and stack.loaded("other") is None
        assert stack.services["other"] is not None and other == ["set up"]  # when asked for
    finally:
        del sys.modules[MODULE + "_other"]


def test_before_start_a_lookup_sets_up_only_what_it_names(stack: Stack) -> None:
    assert stack.loaded("deferred") is None
    assert stack.services["deferred"] is not None
    assert stack.seen == []  # type: ignore[attr-defined]  # on_start hooks run with the server's start
