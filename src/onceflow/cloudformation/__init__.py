"""cloudformation: AWS CloudFormation stacks made of the services onceflow serves. See setup()."""

from __future__ import annotations

from onceflow.cloudformation.api import CfnApi, resolve_resources
from onceflow.cloudformation.recovery import recover
from onceflow.cloudformation.service import CfnService
from onceflow.cloudformation.store import MIGRATIONS, CfnStore
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS)
    service = CfnService(stack, CfnStore(stack.db), stack.settings.stack_answer_within_s)
    stack.registry.add_api("cloudformation", CfnApi(service))
    stack.services["cloudformation"] = service
    stack.resource_resolvers["cloudformation"] = resolve_resources
    stack.on_start.append(lambda: recover(service))
