"""Who may start a synchronous invocation, or is throttled where Lambda would throttle it.

A function without reserved concurrency shares the account's unreserved pool. A function with
reserved concurrency R runs at most R at once; its provisioned concurrency is carved out of R
(PutFunctionConcurrency refuses an R below it): an invocation of a qualifier with provisioned
concurrency takes one of that qualifier's provisioned slots while one is free, every other
invocation an on-demand slot of the R less all provisioned (recorded on AWS: with R equal to
the provisioned total, invoking $LATEST is throttled, ReservedFunctionConcurrentInvocationLimitExceeded).
UNCONFIRMED: an invocation through an alias uses its version's provisioned slots when the alias
holds none itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from onceflow.lambda_ import errors
from onceflow.lambda_.service import Resolved

Key = tuple[str, str, str]
Slot = tuple[Key, str | None, bool]  # (function, provisioned qualifier or None, counted in the unreserved pool)


class Admission:
    def __init__(self, unreserved_limit: Callable[[str, str], int]) -> None:
        self.unreserved_limit = unreserved_limit  # (account, region) -> the account's unreserved pool
        self._lock = threading.Lock()
        self._on_demand: dict[Key, int] = {}
        self._provisioned: dict[tuple[Key, str], int] = {}
        self._unreserved: dict[tuple[str, str], int] = {}

    def admit(self, resolved: Resolved) -> Slot:
        key = resolved.ref.key
        scope = (resolved.ref.account, resolved.ref.region)
        if resolved.reserved is None:
            limit = self.unreserved_limit(*scope)
            with self._lock:
                if self._unreserved.get(scope, 0) >= limit:
                    raise errors.throttled("ConcurrentInvocationLimitExceeded")
                self._unreserved[scope] = self._unreserved.get(scope, 0) + 1
            return key, None, True
        entry = _entry(resolved)
        with self._lock:
            if entry is not None and self._provisioned.get((key, entry), 0) < resolved.provisioned[entry]:
                self._provisioned[(key, entry)] = self._provisioned.get((key, entry), 0) + 1
                return key, entry, False
            if self._on_demand.get(key, 0) >= resolved.reserved - sum(resolved.provisioned.values()):
                raise errors.throttled("ReservedFunctionConcurrentInvocationLimitExceeded")
            self._on_demand[key] = self._on_demand.get(key, 0) + 1
        return key, None, False

    def leave(self, resolved: Resolved, slot: Slot) -> None:
        key, entry, pooled = slot
        scope = (resolved.ref.account, resolved.ref.region)
        with self._lock:
            if pooled:
                self._unreserved[scope] -= 1
            elif entry is not None:
                self._provisioned[(key, entry)] -= 1
            else:
                self._on_demand[key] -= 1


def _entry(resolved: Resolved) -> str | None:
    """The provisioned config an invocation may use: its qualifier's, else its version's."""
    for qualifier in (resolved.ref.qualifier, resolved.executed_version):
        if qualifier and resolved.provisioned.get(qualifier, 0) > 0:
            return qualifier
    return None
