"""onceflow prove: run a workflow once without faults, then once per ambiguous point (a lost answer,
a refused call, a failure after a handler's write, a duplicate delivery, a timeout after the
effect, a re-execution), each in a private in-memory copy of the store, and compare every run's
business effect with the baseline's.

    import onceflow.prove
    report = onceflow.prove("orders", {"id": "o-1", "quantity": 2}, data=path, ignore_tables=["attempts"])
    assert report.safe, report.summary()

(`from onceflow.prove import prove` is the same function.)
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from onceflow.prove.model import KINDS, ProveError, Report, Run

if TYPE_CHECKING:
    from onceflow.prove.proof import prove

__all__ = ["KINDS", "ProveError", "Report", "Run", "prove"]


class _CallableModule(types.ModuleType):
    """`onceflow.prove(...)` calls prove(): the issue's spelling, without a second name."""

    def __call__(self, *args: Any, **kwargs: Any) -> Report:
        from onceflow.prove.proof import prove

        return prove(*args, **kwargs)


def __getattr__(name: str) -> Any:
    # proof.py imports boto3 (a second of CPU): only when a proof is asked for, not whenever a
    # part of the package is (`onceflow serve` builds prove's CLI options and keeps the effect ledger).
    if name == "prove":
        from onceflow.prove.proof import prove

        return prove
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _CallableModule
