"""Parents and children: executions started by a `states:startExecution` task.

A `.sync` parent waits on a task token that its child's end completes: the child's row and its
link (sfn_children) are written in one transaction (engine/integrations/states.py, PARENT), and the
engine's close hook (`child_closed`, after the child's final commit) completes the token and wakes
the parent. A parent that ends first stops the children it still waits on (`parent_closed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from onceflow.sfn.engine.integrations.states import ABORT_CAUSE, complete_parent
from onceflow.sfn.store import EXEC_COLUMNS

if TYPE_CHECKING:
    from onceflow.sfn.service import SfnService


class Nested:
    def __init__(self, service: SfnService) -> None:
        self.svc = service
        self.store = service.store
        self.db = service.stack.db

    def closed(self, arn: str) -> None:
        """The engine's close hook: an execution ended, as a child or as a parent."""
        self.child_closed(arn)
        self.parent_closed(arn)

    def parent_closed(self, parent_arn: str) -> None:
        """A parent that ends while a .sync task waits stops that child, as AWS does."""
        for child in self.store.waiting_children(parent_arn):
            with self.db.transaction() as conn:
                conn.execute("UPDATE sfn_children SET token='' WHERE child_arn=?", (child,))
            self.svc.engine.terminate(child, "ExecutionAborted", "ABORTED", None,
                                      ABORT_CAUSE.format(parent=parent_arn))

    def child_closed(self, child_arn: str) -> None:
        if self.db.query_one("SELECT 1 FROM sfn_children WHERE child_arn=? AND token<>''", (child_arn,)) is None:
            return  # most executions have no waiting parent: a read, not a write, tells
        with self.db.transaction() as conn:
            link = self.store.child_link(conn, child_arn)
            if link is None or not link["token"]:
                return
            child = conn.execute(f"SELECT {EXEC_COLUMNS} FROM sfn_executions WHERE arn=?", (child_arn,)).fetchone()
            if child is None or child["status"] == "RUNNING":
                return
            complete_parent(conn, link, child)
            conn.execute("UPDATE sfn_children SET token='' WHERE child_arn=?", (child_arn,))
        self.svc.engine.wake(str(link["parent_arn"]))
