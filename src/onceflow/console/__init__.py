"""console: the web console served on the API port (state machines, executions, tables, functions,
roles, logs). It reads everything through the AWS APIs in-process and changes nothing."""

from __future__ import annotations

from typing import Any

from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Register the console's ASGI app; the wire layer forwards every non-API request to it."""
    stack.services["console_app"] = _OnFirstPage(stack)


class _OnFirstPage:
    """The console, built on its first page: its views and templates (jinja2) are a fifth of the
    server's start-up, and most runs never open it."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.app: Any = None

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if self.app is None:
            from onceflow.console.app import ConsoleApp
            from onceflow.console.views import ROUTES

            self.app = ConsoleApp(self.stack, ROUTES)  # on the event loop: no other thread races it
        await self.app(scope, receive, send)
