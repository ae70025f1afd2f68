"""What the effect ledger offers the rest of onceflow (onceflow/ports.py hands it out): the writes
it attributed to an execution and who else wrote the same item (the console's execution page).
prove.ledger.Ledger implements it."""

from __future__ import annotations

from typing import Any, Protocol


class EffectLedger(Protocol):
    def writes_of(self, execution: str, limit: int = -1) -> list[dict[str, Any]]: ...

    def other_writers(self, execution: str, service: str, resource: str, key: str) -> list[str]: ...
