"""The console app on a stack whose services are missing: pages say what is not available
instead of failing (the console only reads through operations the registry holds)."""

from __future__ import annotations

import asyncio
from typing import Any

from onceflow.config import Settings
from onceflow.console.app import ConsoleApp, Response
from onceflow.console.views import ROUTES
from onceflow.stack import Stack
from onceflow.store.db import Database


def get(app: ConsoleApp, path: str, query: str = "", host: str = "127.0.0.1:4566") -> Response:
    scope: dict[str, Any] = {"type": "http", "method": "GET", "path": path, "query_string": query.encode(),
                             "headers": [(b"host", host.encode())]}
    return asyncio.run(app.respond(scope))


def test_pages_note_operations_that_are_not_available() -> None:
    db = Database(":memory:")
    try:
        app = ConsoleApp(Stack(Settings(in_memory=True), db), ROUTES)
        for path in ("/", "/states", "/dynamodb", "/lambda", "/iam", "/logs"):
            got = get(app, path)
            assert got.status == 200, path
            assert b"is not available in this onceflow yet" in got.body, path
        missing = get(app, "/states/x")
        assert missing.status == 501 and b"DescribeStateMachine is not available" in missing.body
        assert any(name == "server-timing" for name, _ in missing.headers)
        assert get(app, "/states", host="attacker.example").status == 403
    finally:
        db.close()
