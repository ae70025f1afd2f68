"""Parents and children: executions started by a `states:startExecution` task.

A `.sync` parent waits on a task token that the child's end completes. The link is written after
the child started, and the child may end before that: the link's transaction looks at the child
and completes the token itself when the child has already ended; otherwise the engine's close hook
(`child_closed`, after the child's final commit) does. One of the two always sees the other.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from onceflow.sfn.engine.integrations.states import complete_parent
from onceflow.sfn.store import EXEC_COLUMNS

if TYPE_CHECKING:
    from onceflow.sfn.service import SfnService


class Nested:
    def __init__(self, service: SfnService) -> None:
        self.svc = service
        self.store = service.store
        self.db = service.stack.db

    def link(self, child_arn: str, parent_arn: str, token: str | None, mode: str) -> None:
        with self.db.transaction() as conn:
            self.store.link_child(conn, child_arn, parent_arn, token or "", mode)
            if self._settle(conn, child_arn) is None:
                return
        self.svc.engine.wake(parent_arn)

    def child_closed(self, child_arn: str) -> None:
        if self.db.query_one("SELECT 1 FROM sfn_children WHERE child_arn=? AND token<>''", (child_arn,)) is None:
            return  # most executions have no waiting parent: a read, not a write, tells
        with self.db.transaction() as conn:
            parent = self._settle(conn, child_arn)
        if parent is not None:
            self.svc.engine.wake(parent)

    def _settle(self, conn: sqlite3.Connection, child_arn: str) -> str | None:
        """Complete the parent's token when the child has ended; returns the parent to wake."""
        link = self.store.child_link(conn, child_arn)
        if link is None or not link["token"]:
            return None
        child = conn.execute(f"SELECT {EXEC_COLUMNS} FROM sfn_executions WHERE arn=?",
                             (child_arn,)).fetchone()
        if child is None or child["status"] == "RUNNING":
            return None
        complete_parent(conn, link, child)
        conn.execute("UPDATE sfn_children SET token='' WHERE child_arn=?", (child_arn,))
        return str(link["parent_arn"])
