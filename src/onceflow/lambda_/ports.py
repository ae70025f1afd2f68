"""What Lambda offers the other services (onceflow/ports.py hands it to them): whether a function's
resource policy lets a service principal invoke it (invocations themselves go through
internal.call), and its service and invoker (the fault engine retires a crashed worker; the prover
names the invocation a role session serves). LambdaApi implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from onceflow.lambda_.invoke import Invoker
    from onceflow.lambda_.service import LambdaService


class Functions(Protocol):
    service: LambdaService
    invoker: Invoker

    def may_invoke(self, account: str, function: str, principal: str, source_arn: str | None = None,
                   source_account: str | None = None, region: str | None = None) -> bool | None: ...
