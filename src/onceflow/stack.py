"""The Stack: what server.py builds once and hands to every service's setup().

It holds the settings, the database, the registry, the services by name (so one service can reach
another's service object, e.g. Lambda writing through Logs), and the hooks server.py runs on reset
and shutdown. Services add themselves in `<service>/__init__.py: setup(stack)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from onceflow.config import Settings
from onceflow.context import RequestContext
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

    def reset(self) -> None:
        for hook in self.on_reset:
            hook()
        self.db.truncate_all()
