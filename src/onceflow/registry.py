"""The one map from (service, operation) to the function that serves it.

Service API classes mark methods with @operation("Name"); server.py adds each API object to the
Registry, which the wire layer and internal.py consult. Handlers take (ctx, params) and return the
output shape as a dict (blobs as bytes, timestamps as datetime or epoch numbers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext

Handler = Callable[[RequestContext, dict[str, Any]], dict[str, Any] | None]


def operation(name: str, *, inline: bool = False,
              commits: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method as the handler of AWS operation `name`.

    inline=True lets the wire layer run it on the event loop instead of the thread pool: only for
    handlers that never wait - no write transaction, no worker, no internal.call, no lock that a
    slow caller may hold - since a thread-pool hop costs more than such a handler itself.

    commits=True is for quick handlers whose only wait is the store's write transaction (single-item
    writes): the wire layer runs them on the event loop when no other thread holds the writers'
    lock, and waits for their commit's fsync before it answers; otherwise in the thread pool.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._aws_operation = name  # type: ignore[attr-defined]
        fn._aws_inline = inline  # type: ignore[attr-defined]
        fn._aws_commits = commits  # type: ignore[attr-defined]
        return fn

    return mark


class Registry:
    def __init__(self) -> None:
        self._handlers: dict[tuple[str, str], Handler] = {}

    def add_api(self, service: str, api: object) -> None:
        """Register every @operation method of `api` under `service`."""
        for attr in dir(type(api)):
            fn = getattr(type(api), attr, None)
            name = getattr(fn, "_aws_operation", None)
            if name:
                self._handlers[(service, name)] = getattr(api, attr)

    def add(self, service: str, name: str, handler: Handler) -> None:
        self._handlers[(service, name)] = handler

    def get(self, service: str, name: str) -> Handler | None:
        return self._handlers.get((service, name))

    def operations(self, service: str) -> list[str]:
        return sorted(op for svc, op in self._handlers if svc == service)
