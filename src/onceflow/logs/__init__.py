"""logs: CloudWatch Logs. See setup() for how the service is built and registered."""

from __future__ import annotations

from onceflow.logs.api import LogsApi, resolve_resources
from onceflow.logs.service import LogsService
from onceflow.logs.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS)
    service = LogsService(stack.db)
    stack.registry.add_api("logs", LogsApi(service))
    stack.services["logs"] = service
    stack.resource_resolvers["logs"] = resolve_resources(service)
