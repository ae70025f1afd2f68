"""sfn: Step Functions. See setup() for how the service is built and registered."""

from __future__ import annotations

from onceflow.sfn.api import SfnApi, resolve_resources
from onceflow.sfn.api_maprun import MapRunApi
from onceflow.sfn.engine.engine import Engine
from onceflow.sfn.engine.states import run_execution
from onceflow.sfn.service import SfnService
from onceflow.sfn.store import MIGRATIONS, SfnStore
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build the store, engine, service and API; recovery and the scheduler start with the server."""
    stack.db.migrate(MIGRATIONS)
    store = SfnStore(stack.db)
    engine = Engine(stack, store, run_execution)  # the root program handed in
    service = SfnService(stack, store, engine)
    stack.registry.add_api("stepfunctions", SfnApi(service))
    stack.registry.add_api("stepfunctions", MapRunApi(service.map_runs))
    stack.services["stepfunctions"] = service
    stack.resource_resolvers["stepfunctions"] = resolve_resources
    stack.on_start.append(engine.start)
    stack.on_stopping.append(engine.shutdown)  # StartSyncExecution answers before the drain ends
    stack.on_shutdown.append(engine.shutdown)
    stack.on_reset.append(engine.reset)
