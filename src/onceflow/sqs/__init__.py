"""sqs: Amazon SQS. See setup() for how the service is built and registered."""

from __future__ import annotations

from onceflow.sqs.api import SqsApi, resolve_resources
from onceflow.sqs.service import SqsService
from onceflow.sqs.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS)
    service = SqsService(stack.db, stack.settings.endpoint_url, stack.ports.sessions)
    stack.registry.add_api("sqs", SqsApi(service))
    stack.services["sqs"] = service
    stack.resource_resolvers["sqs"] = resolve_resources
    # Long polls answer (empty) as soon as shutdown starts rather than at their deadline.
    stack.on_stopping.append(service.waiters.stop)
    stack.on_reset.append(service.forget)
