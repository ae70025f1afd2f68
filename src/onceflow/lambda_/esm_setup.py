"""Event source mappings on the stack: their store and API (merged into the `lambda` operations)
and the pollers, started with the server for the mappings enabled in the rows."""

from __future__ import annotations

from typing import Any

from onceflow.lambda_ import esm_windows
from onceflow.lambda_.esm_pollers import Pollers
from onceflow.lambda_.mappings import MappingsApi, MappingStore
from onceflow.stack import Stack


def setup_mappings(stack: Stack, service: Any, invoker: Any) -> None:
    store = MappingStore(stack)
    stack.db.migrate(esm_windows.MIGRATIONS)
    pollers = Pollers(stack, store, invoker)
    stack.registry.add_api("lambda", MappingsApi(stack, store, service, pollers.sync))
    stack.services["lambda_mappings"] = store  # the console's view of mappings and their last result
    stack.on_start.append(pollers.start_all)
    stack.on_reset.append(pollers.stop_all)  # the rows go with the reset
    stack.on_stopping.append(pollers.close)
