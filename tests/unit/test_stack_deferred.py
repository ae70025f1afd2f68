"""A deferred service setup never runs inside a write transaction: after start, the first write sets up
every service still deferred before its transaction begins, so a setup's tables are committed on their
own (a rolled-back request cannot take them away) and its threads start on tables that exist."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from onceflow.config import Settings
from onceflow.stack import ServiceSetup, Stack
from onceflow.store.db import Database

MODULE = "onceflow_test_deferred_service"


@pytest.fixture
def stack() -> Iterator[Stack]:
    seen: list[str] = []

    def setup(stack: Stack) -> None:
        stack.db.migrate([("deferred-0001", "CREATE TABLE deferred_things (k TEXT PRIMARY KEY);")])
        stack.services["deferred"] = object()
        stack.on_start.append(lambda: seen.append(
            "started with its table" if stack.db.query("SELECT name FROM sqlite_master WHERE name='deferred_things'")
            else "started without its table"))

    module = types.ModuleType(MODULE)
    module.setup = setup  # type: ignore[attr-defined]
    sys.modules[MODULE] = module
    db = Database(":memory:")
    built = Stack(Settings(in_memory=True), db)
    built.defer(ServiceSetup(MODULE, ("deferred",), "deferred_"))
    built.seen = seen  # type: ignore[attr-defined]
    try:
        yield built
    finally:
        db.close()
        del sys.modules[MODULE]


def test_a_write_after_start_sets_deferred_services_up_before_its_transaction(stack: Stack) -> None:
    for hook in stack.start():
        hook()
    assert stack.loaded("deferred") is None  # still deferred: start-up stays cheap
    with pytest.raises(RuntimeError), stack.db.transaction():
        assert stack.loaded("deferred") is not None  # set up before this transaction began
        raise RuntimeError("the request fails and its transaction rolls back")
    assert stack.db.query("SELECT name FROM sqlite_master WHERE name='deferred_things'")  # committed on its own
    assert stack.seen == ["started with its table"]  # type: ignore[attr-defined]


def test_before_start_a_lookup_sets_up_only_what_it_names(stack: Stack) -> None:
    with stack.db.transaction():
        pass  # no hook before start: booting sets up only what it needs
    assert stack.loaded("deferred") is None
    assert stack.services["deferred"] is not None


def test_a_setup_looked_up_first_runs_alone_and_its_migrations_set_up_nothing_else(stack: Stack) -> None:
    """The first lookup after start is a read (ListTables): its setup's own migration transactions must not
    set up the other services mid-setup (one of them may need the service being set up)."""
    other: list[str] = []

    def needs_deferred(st: Stack) -> None:
        other.append("set up" if "deferred" in dict(st.services) else "set up before what it needs")

    module = types.ModuleType(MODULE + "_other")
    module.setup = needs_deferred  # type: ignore[attr-defined]
    sys.modules[MODULE + "_other"] = module
    try:
        stack.defer(ServiceSetup(MODULE + "_other", ("other",), "other_"))
        for hook in stack.start():
            hook()
        assert stack.services["deferred"] is not None  # its migration is a write: the other stays deferred
        assert other == [] and stack.loaded("other") is None
        with stack.db.transaction():
            pass  # a request's first write: everything still deferred is set up before it
        assert other == ["set up"]
    finally:
        del sys.modules[MODULE + "_other"]
