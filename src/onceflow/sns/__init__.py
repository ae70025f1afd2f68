"""sns: Amazon SNS. See setup() for how the service is built and registered."""

from __future__ import annotations

from onceflow.sns.api import SnsApi, resolve_resources
from onceflow.sns.service import SnsService
from onceflow.sns.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS)
    service = SnsService(stack)
    stack.registry.add_api("sns", SnsApi(service))
    stack.services["sns"] = service
    stack.resource_resolvers["sns"] = resolve_resources
    # The delivery thread starts with the server (deliveries due before a restart are made then).
    stack.on_start.append(service.deliverer.start)
    stack.on_shutdown.append(service.deliverer.stop)
