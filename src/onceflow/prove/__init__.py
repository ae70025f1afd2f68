"""onceflow prove: run a workflow once without faults, then once per ambiguous point (a lost answer,
a refused call, a failure after a handler's write, a duplicate delivery, a re-execution), each in a
private in-memory copy of the store, and compare every run's business effect with the baseline's.

    from onceflow.prove import prove
    report = prove("orders", {"id": "o-1", "quantity": 2}, data=path, ignore_tables=["attempts"])
    assert report.safe, report.summary()
"""

from __future__ import annotations

from onceflow.prove.model import KINDS, ProveError, Report, Run
from onceflow.prove.proof import prove

__all__ = ["KINDS", "ProveError", "Report", "Run", "prove"]
