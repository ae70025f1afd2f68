"""Parents and children: executions started by a `states:startExecution` task.

A `.sync` parent waits on a task token that its child's end completes: the child's row and its
link (sfn_children) are written in one transaction (engine/integrations/states.py, PARENT), and the
engine's close hook (`child_closed`, after the child's final commit) completes the token and wakes
the parent.
"""

from __future__ import annotations

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
