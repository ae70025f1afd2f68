"""Testing with onceflow: `Onceflow`, a context manager that gives a test the whole stack (a server
in memory on a free loopback port, or one already running), boto3 clients on it, resets, fault
rules, time control, deploy helpers and proofs; and `onceflow.testing.plugin`, the pytest plugin
built on it (fixtures `onceflow_server` and `onceflow`, loaded through the `pytest11` entry point).

    from onceflow.testing import Onceflow
    with Onceflow() as of:
        of.create_table("orders")

Imports are lazy: pytest loads the plugin in every session, and a session that uses none of its
fixtures must not pay for boto3.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from onceflow.testing.api import Onceflow
    from onceflow.testing.errors import OnceflowError

__all__ = ["Onceflow", "OnceflowError"]


def __getattr__(name: str) -> Any:
    if name == "Onceflow":
        from onceflow.testing.api import Onceflow

        return Onceflow
    if name == "OnceflowError":
        from onceflow.testing.errors import OnceflowError

        return OnceflowError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
