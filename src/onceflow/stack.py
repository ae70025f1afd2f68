"""The Stack: what server.py builds once and hands to every service's setup().

It holds the settings, the database, the registry, the services by name (so one service can reach
another's service object, e.g. Lambda writing through Logs), and the hooks server.py runs on reset
and shutdown. Services add themselves in `<service>/__init__.py: setup(stack)`.

A setup may be deferred (`defer`): it then runs when one of the names it provides is first looked
up - in `services`, `resource_resolvers` or the registry - which imports the service's modules and
runs its migrations only when a request needs them. If the server has already started, its on_start
hooks run once the lookup's write transaction, if any, has ended; its migrations, joined to that
transaction, are applied again if it rolls back (Database.migrate). Setups run under the
database's writers' lock, so a thread that holds it (a transaction, or any read of an in-memory
store) and looks a service up can never wait on a setup that waits on it.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from onceflow.config import Settings
from onceflow.context import RequestContext
from onceflow.ports import Ports
from onceflow.registry import Registry
from onceflow.store.db import Database

# (ctx, params) -> None; raises ServiceError (AccessDenied...) when the caller may not make the call.
Authorizer = Callable[[RequestContext, dict[str, Any]], None]
# (ctx, params) -> the resource ARNs a call acts on, for IAM evaluation.
ResourceResolver = Callable[[RequestContext, dict[str, Any]], list[str]]
# (ctx, params) -> [(IAM action, resource ARN, extra condition keys)] for a call whose action depends on
# what it asks (a PartiQL statement's kind), or None for the operation's own action on the resolver's ARNs.
ActionResolver = Callable[[RequestContext, dict[str, Any]], "list[tuple[str, str, dict[str, list[str]]]] | None"]
# (ctx, resource ARN) -> the resource-based policy (JSON text) on that resource, or None.
ResourcePolicyLookup = Callable[[RequestContext, str], "str | None"]


def allow_all(ctx: RequestContext, params: dict[str, Any]) -> None:
    return None


def no_uid(uid: int) -> bool:
    return False


@dataclass(frozen=True)
class ServiceSetup:
    """`<module>.setup(stack)`, importing the module only when it runs; `provides` are the names it
    adds to stack.services, stack.resource_resolvers and the registry (what a lookup sets it up by);
    `tables` the prefix of its tables' names (a row in one: state, perhaps work to resume at start)."""

    module: str
    provides: tuple[str, ...] = ()
    tables: str = ""

    def has_state(self, tables_with_rows: set[str]) -> bool:
        return not self.tables or any(name.startswith(self.tables) for name in tables_with_rows)

    def __call__(self, stack: Stack) -> None:
        importlib.import_module(self.module).setup(stack)


class Lazy(dict):
    """A dict whose missing names are first handed to `load` (a deferred setup may provide them);
    `get` sets up too, since callers read None as "not served" (Stack.loaded does not)."""

    def __init__(self, load: Callable[[str], bool]) -> None:
        super().__init__()
        self._load = load

    def __missing__(self, key: str) -> Any:
        if self._load(key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


@dataclass
class Stack:
    settings: Settings
    db: Database
    registry: Registry = field(default_factory=Registry)
    services: dict[str, Any] = field(default_factory=dict)
    authorize: Authorizer = allow_all
    resource_resolvers: dict[str, ResourceResolver] = field(default_factory=dict)
    action_resolvers: dict[str, ActionResolver] = field(default_factory=dict)
    resource_policies: dict[str, ResourcePolicyLookup] = field(default_factory=dict)
    # (access key id) -> onceflow.credentials.Credential or None: IAM (users' keys) and STS (sessions)
    # register how the keys they issued map to principals, secrets and session tokens.
    credential_resolvers: list[Callable[[str], Any]] = field(default_factory=list)
    # (principal, service, operation, params as JSON, region=) -> result: a call whose parameters come
    # from JSON data (Step Functions' integrations), converted and checked as an HTTP request's are.
    # server.py installs it (wire/json_calls.py); None until then.
    call_from_json: Callable[..., dict[str, Any]] | None = None
    on_start: list[Callable[[], None]] = field(default_factory=list)
    on_reset: list[Callable[[], None]] = field(default_factory=list)
    on_shutdown: list[Callable[[], None]] = field(default_factory=list)
    # Run (in a thread) as soon as a shutdown signal arrives, while the HTTP server still drains:
    # for parts whose in-flight requests wait on work that must be told to end (a synchronous
    # execution waits on the engine), so the drain does not sit out its whole grace period.
    on_stopping: list[Callable[[], None]] = field(default_factory=list)
    # uid -> whether Lambda handlers run as it (the sandbox's uids, as root); the front door keeps
    # such peers out of onceflow's own state-changing endpoints. lambda_ sets it.
    is_handler_uid: Callable[[int], bool] = no_uid
    # name -> the deferred setup that provides it (see `defer`); emptied as they run.
    pending: dict[str, ServiceSetup] = field(default_factory=dict)
    started: bool = False
    # The typed ports a service reaches another through (ports.py), on `services`.
    ports: Ports = field(init=False)

    def __post_init__(self) -> None:
        self.services = _lazy(self.services, self.set_up)
        self.resource_resolvers = _lazy(self.resource_resolvers, self.set_up)
        self.ports = Ports.of(self.services)
        self.registry.load = self.set_up
        self._running: set[ServiceSetup] = set()

    def defer(self, setup: ServiceSetup) -> None:
        """Run `setup` when one of its names is first looked up instead of now."""
        for name in setup.provides:
            self.pending[name] = setup

    def set_up(self, name: str) -> bool:
        """Run the deferred setup providing `name`; whether one ran (here or in another thread)."""
        if name not in self.pending:  # the common case, without a lock
            return False
        with self.db.writers_lock():
            setup = self.pending.get(name)
            if setup is None:
                return True  # another thread set it up while this one waited
            if setup in self._running:
                return False  # looked up from its own setup: not there yet
            self._running.add(setup)
            first_hook = len(self.on_start)
            try:
                setup(self)
            finally:
                self._running.discard(setup)
                for provided in setup.provides:
                    self.pending.pop(provided, None)
            if self.started:
                # Set up inside a request's write transaction, its threads start once that has ended:
                # they read through other connections, which see its tables only once committed.
                for hook in self.on_start[first_hook:]:
                    self.db.after_transaction(hook)
        return True

    def handler_uid(self, uid: int) -> bool:
        """is_handler_uid, setting Lambda (its sandbox's rule) up unless `uid` is the server's own:
        handlers never run as that (they run as the sandbox's uids, or the rule says no uid is)."""
        if uid == os.getuid():
            return False
        self.set_up("lambda")
        return self.is_handler_uid(uid)

    def loaded(self, name: str) -> Any:
        """stack.services[name] if its service is set up, else None (without setting it up)."""
        return dict.get(self.services, name)

    def start(self) -> list[Callable[[], None]]:
        """Mark the stack started and return the on_start hooks to run now (a setup deferred past
        this point runs its own)."""
        with self.db.writers_lock():
            self.started = True
            return list(self.on_start)

    def reset(self) -> None:
        for hook in self.on_reset:
            hook()
        self.db.truncate_all()


def _lazy(entries: dict[str, Any], load: Callable[[str], bool]) -> Lazy:
    if isinstance(entries, Lazy):
        return entries
    lazy = Lazy(load)
    lazy.update(entries)
    return lazy
