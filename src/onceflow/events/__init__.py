"""events: Amazon EventBridge (buses, rules, targets, PutEvents, schedules). See setup()."""

from __future__ import annotations

from onceflow.events.api import EventsApi, resolve_resources
from onceflow.events.delivery import Clock
from onceflow.events.service import EventsService
from onceflow.events.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build EventBridge and its clock; the clock (shared with Scheduler) starts with the server."""
    stack.db.migrate(MIGRATIONS)
    clock = Clock("events-clock")
    service = EventsService(stack, clock)
    stack.registry.add_api("events", EventsApi(service))
    stack.services["events"] = service
    stack.services["events_clock"] = clock
    stack.resource_resolvers["events"] = resolve_resources

    def start() -> None:
        service.dispatcher.release_all()  # deliveries a dead process had claimed are made again
        clock.start()

    def shutdown() -> None:
        clock.stop()
        service.dispatcher.shutdown()

    stack.on_start.append(start)
    stack.on_shutdown.append(shutdown)
    stack.on_reset.append(clock.poke)  # the rows go; the clock looks again and finds nothing due
