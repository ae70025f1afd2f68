"""The one map from (service, operation) to the function that serves it.

Service API classes mark methods with @operation("Name"); server.py adds each API object to the
Registry, which the wire layer and internal.py consult. Handlers take (ctx, params) and return the
output shape as a dict (blobs as bytes, timestamps as datetime or epoch numbers).

A service may be set up on its first request (stack.py, `Stack.defer`): `load(service)` is then
asked to set it up when one of its operations is looked up, and wrappers (`wrap`, the prover's
ledger) wait for the handler they wrap to be registered.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from onceflow.context import RequestContext

Handler = Callable[[RequestContext, dict[str, Any]], dict[str, Any] | None]
# Where the wire layer may run a handler: on the event loop ("loop"), on the loop when the writers'
# lock is free ("commit"), on the loop while its work stays within the loop's budget ("bounded"), or
# in the thread pool ("pool").
Placement = Literal["loop", "commit", "bounded", "pool"]

# Set while a "bounded" handler runs on the event loop: it must keep its work within its budget, or
# raise OverBudget before it has any effect. Off (the default) on every other thread and call.
_ON_LOOP: contextvars.ContextVar[bool] = contextvars.ContextVar("onceflow_bounded_on_loop", default=False)


class OverBudget(Exception):
    """Raised by a "bounded" handler on the event loop whose work would grow past the loop's budget,
    before any effect: the wire layer runs the call again in the thread pool, where it has none."""


def on_loop() -> bool:
    """Whether the handler running here is a "bounded" one on the event loop (and so on a budget)."""
    return _ON_LOOP.get()


T = TypeVar("T")


def run_bounded(fn: Callable[[], T]) -> T:
    """Run `fn` as a "bounded" handler on the loop: on_loop() is True inside it (OverBudget passes)."""
    token = _ON_LOOP.set(True)
    try:
        return fn()
    finally:
        _ON_LOOP.reset(token)


def operation(name: str, *, inline: bool = False, commits: bool = False,
              bounded: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method as the handler of AWS operation `name`.

    inline=True lets the wire layer run it on the event loop instead of the thread pool: only for
    handlers that never wait - no write transaction, no worker, no internal.call, no lock that a
    slow caller may hold - since a thread-pool hop costs more than such a handler itself.

    commits=True is for quick handlers whose only wait is the store's write transaction (single-item
    writes): the wire layer runs them on the event loop when no other thread holds the writers'
    lock, and waits for their commit's fsync before it answers; otherwise in the thread pool.

    bounded=True is for reads whose work depends on the data (a Query of a partition): the wire layer
    runs them on the event loop, where on_loop() tells them to stay within a small budget (a few rows
    and kilobytes) and raise OverBudget past it, before any effect; the call then runs again in the
    thread pool. A small read pays no thread hop; a large one costs the loop no more than its budget.
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._aws_operation = name  # type: ignore[attr-defined]
        fn._aws_inline = inline  # type: ignore[attr-defined]
        fn._aws_commits = commits  # type: ignore[attr-defined]
        fn._aws_bounded = bounded  # type: ignore[attr-defined]
        return fn

    return mark


def placement(handler: Callable[..., Any]) -> Placement:
    """The one execution hint @operation left on `handler` (a wrapper copies the marks)."""
    if getattr(handler, "_aws_inline", False):
        return "loop"
    if getattr(handler, "_aws_commits", False):
        return "commit"
    return "bounded" if getattr(handler, "_aws_bounded", False) else "pool"


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
