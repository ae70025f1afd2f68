"""console: see setup() for how the service is built and registered."""

from __future__ import annotations

from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
