"""The one map from (service, operation) to the function that serves it.

Service API classes mark methods with @operation("Name"); server.py adds each API object to the
Registry, which the wire layer and internal.py consult. Handlers take (ctx, params) and return the
output shape as a dict (blobs as bytes, timestamps as datetime or epoch numbers).

A service may be set up on its first request (stack.py, `Stack.defer`): `load(service)` is then
asked to set it up when one of its operations is looked up, and wrappers (`wrap`, the prover's
ledger) wait for the handler they wrap to be registered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from onceflow.context import RequestContext

Handler = Callable[[RequestContext, dict[str, Any]], dict[str, Any] | None]
# Where the wire layer may run a handler: on the event loop ("loop"), on the loop when the writers'
# lock is free ("commit"), or in the thread pool ("pool").
Placement = Literal["loop", "commit", "pool"]


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


def placement(handler: Callable[..., Any]) -> Placement:
    """The one execution hint @operation left on `handler` (a wrapper copies the marks)."""
    if getattr(handler, "_aws_inline", False):
        return "loop"
    return "commit" if getattr(handler, "_aws_commits", False) else "pool"


Wrapper = Callable[[Handler], Handler]


def _nothing_to_load(service: str) -> bool:
    return False


class Registry:
    def __init__(self) -> None:
        self._handlers: dict[tuple[str, str], Handler] = {}
        self._wrappers: dict[tuple[str, str], list[Wrapper]] = {}
        # service -> whether a deferred setup for it ran (the Stack installs its own).
        self.load: Callable[[str], bool] = _nothing_to_load

    def add_api(self, service: str, api: object) -> None:
        """Register every @operation method of `api` under `service` (wrapped by `wrap`'s wrappers)."""
        for attr in dir(type(api)):
            fn = getattr(type(api), attr, None)
            name = getattr(fn, "_aws_operation", None)
            if name:
                handler = getattr(api, attr)
                for wrapper in self._wrappers.get((service, name), ()):
                    handler = wrapper(handler)
                self._handlers[(service, name)] = handler

    def add(self, service: str, name: str, handler: Handler) -> None:
        """Replace (or add) one handler as it is; a deferred service is set up first, so that its
        own registration never overwrites the replacement later."""
        self.load(service)
        self._handlers[(service, name)] = handler

    def wrap(self, service: str, name: str, wrapper: Wrapper) -> None:
        """Wrap the handler of `service.name` now if it is registered, else when its API is added."""
        key = (service, name)
        if key in self._handlers:
            self._handlers[key] = wrapper(self._handlers[key])
        else:
            self._wrappers.setdefault(key, []).append(wrapper)

    def get(self, service: str, name: str) -> Handler | None:
        handler = self._handlers.get((service, name))
        if handler is None and self.load(service):
            handler = self._handlers.get((service, name))
        return handler

    def operations(self, service: str) -> list[str]:
        self.load(service)
        return sorted(op for svc, op in self._handlers if svc == service)
