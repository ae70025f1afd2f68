"""scheduler: Amazon EventBridge Scheduler, fired by EventBridge's clock (set up after events)."""

from __future__ import annotations

from onceflow.scheduler.api import SchedulerApi, resolve_resources
from onceflow.scheduler.service import SchedulerService
from onceflow.scheduler.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    stack.db.migrate(MIGRATIONS)
    service = SchedulerService(stack)
    stack.registry.add_api("scheduler", SchedulerApi(service))
    stack.services["scheduler"] = service
    stack.resource_resolvers["scheduler"] = resolve_resources
