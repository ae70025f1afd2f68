"""Two memos for botocore in a Lambda worker, where a handler typically makes a new client on every
invocation (`boto3.client(...)` inside the handler, as the seed workflow's worker does).

botocore redoes two pure computations for every client it makes:
- `EventAliaser` (the session's event emitter) maps each event name to its aliased form, caching
  the answer per instance; every client gets a fresh copy of the emitter, so every event name of
  every new client is worked out again (a `list.index` and its ValueError per alias, ~2,400
  exceptions per seed execution under callgrind);
- `EndpointRulesetResolver` parses the service's endpoint rule set into a fresh `EndpointProvider`
  for every client, whose resolution cache therefore starts empty on each client's first call.

Both answers depend only on their inputs (the alias table; the rule set and partitions, which the
loader hands out as the same cached objects every time), so copies of an aliaser share their
cache and clients of one rule set share its provider. Nothing a handler can see changes: its
clients, their classes, models, handlers and endpoints are what stock botocore makes; only private
caches are shared. Installed by the zygote before it forks workers; a botocore without these
internals is left as it is.
"""

from __future__ import annotations

import threading
from typing import Any

_installed: list[bool] = []
# Rule sets whose provider is kept: one per service the handlers use through the worker's default
# session's loader; a handler making a session (a loader) per invocation brings new data objects
# each time, which must not pile up.
_MAX_PROVIDERS = 64


def install() -> bool:
    """Share the caches (idempotent). False when botocore is missing or its internals differ."""
    if _installed:
        return _installed[0]
    try:
        from botocore import hooks, regions
    except ImportError:
        _installed.append(False)
        return False
    ok = _share_alias_cache(hooks) and _share_providers(regions)
    _installed.append(ok)
    return ok


def _share_alias_cache(hooks: Any) -> bool:
    aliaser = getattr(hooks, "EventAliaser", None)
    copy_aliaser = getattr(aliaser, "__copy__", None)
    if aliaser is None or copy_aliaser is None:
        return False

    def __copy__(self: Any) -> Any:
        new = copy_aliaser(self)
        cache = getattr(self, "_alias_name_cache", None)
        # The copy's aliases are a copy of ours: the same names map to the same aliased names.
        if isinstance(cache, dict) and getattr(new, "_event_aliases", None) == getattr(self, "_event_aliases", None):
            new._alias_name_cache = cache
        return new

    aliaser.__copy__ = __copy__
    return True


def _share_providers(regions: Any) -> bool:
    make = getattr(regions, "EndpointProvider", None)
    if make is None:
        return False
    providers: dict[tuple[int, int, Any], tuple[Any, Any, Any]] = {}
    lock = threading.Lock()

    def shared_provider(ruleset_data: Any, partition_data: Any, excluded_params: Any = None) -> Any:
        key = (id(ruleset_data), id(partition_data), frozenset(excluded_params or ()))  # S3's is a set
        with lock:
            hit = providers.get(key)
        # The entry holds the data objects themselves, so their ids cannot be reused by others.
        if hit is not None and hit[0] is ruleset_data and hit[1] is partition_data:
            return hit[2]
        provider = make(ruleset_data=ruleset_data, partition_data=partition_data, excluded_params=excluded_params)
        with lock:
            if len(providers) >= _MAX_PROVIDERS:
                del providers[next(iter(providers))]  # the oldest
            providers[key] = (ruleset_data, partition_data, provider)
        return provider

    regions.EndpointProvider = shared_provider
    return True
