"""A port (onceflow/ports.py) finds its provider at each use: a deferred provider is set up by the
first use, not when the ports are made; an unserved one is None."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from onceflow.config import Settings
from onceflow.ports import Port
from onceflow.stack import ServiceSetup, Stack
from onceflow.store.db import Database

MODULE = "onceflow_test_port_provider"


@pytest.fixture
def stack() -> Iterator[Stack]:
    provider = types.ModuleType(MODULE)

    def setup(stack: Stack) -> None:
        stack.services["sqs"] = "the queues"

    provider.setup = setup  # type: ignore[attr-defined]
    sys.modules[MODULE] = provider
    built = Stack(Settings(in_memory=True), Database(":memory:"))
    built.defer(ServiceSetup(MODULE, ("sqs",), "sqs_"))
    try:
        yield built
    finally:
        built.db.close()
        del sys.modules[MODULE]


def test_a_port_sets_its_deferred_provider_up_on_first_use_only(stack: Stack) -> None:
    port = stack.ports.queues
    assert stack.loaded("sqs") is None and "sqs" in stack.pending  # the ports are made: nothing is set up
    assert port.get() == "the queues" and "sqs" not in stack.pending
    assert stack.loaded("sqs") == "the queues" and port() == "the queues"


def test_a_provider_the_stack_does_not_serve(stack: Stack) -> None:
    port: Port[object] = stack.ports.topics
    assert port.get() is None and stack.loaded("sns") is None
    with pytest.raises(KeyError):
        port()
