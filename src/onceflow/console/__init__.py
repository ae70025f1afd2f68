"""console: the web console served on the API port (state machines, executions, tables, functions,
roles, logs). It reads everything through the AWS APIs in-process and changes nothing."""

from __future__ import annotations

from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build the console's ASGI app; the wire layer forwards every non-API request to it."""
    from onceflow.console.app import ConsoleApp
    from onceflow.console.views import ROUTES

    stack.services["console_app"] = ConsoleApp(stack, ROUTES)
