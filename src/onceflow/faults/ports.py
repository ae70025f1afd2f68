"""What fault injection offers the rest of onceflow (onceflow/ports.py hands it out): whether a
call has a rule and which fires (internal.call), the rules as the console shows them, and
replacing them (the prover's plans). faults.engine.Faults implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.context import RequestContext
    from onceflow.faults.engine import Fire
    from onceflow.faults.rules import Rule


class FaultRules(Protocol):
    def watches(self, service: str, operation: str) -> bool: ...

    def decide(self, ctx: RequestContext, params: dict[str, Any]) -> Fire | None: ...

    def views(self) -> list[dict[str, Any]]: ...

    def replace(self, raw: Any) -> list[Rule]: ...

    def clear(self) -> None: ...
