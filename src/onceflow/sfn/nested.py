"""Parents and children: executions started by a `states:startExecution` task.

A `.sync` parent waits on a task token that its child's end completes: the child's row and its
link (sfn_children) are written in one transaction (engine/integrations/states.py, PARENT), and the
engine's close hook (`child_closed`, after the child's final commit; SfnService._closed calls
these two only where its one read found a waiting link) completes the token and wakes
the parent. A parent that ends first stops the children it still waits on (`parent_closed`), and
so does a .sync task that times out (`task_timed_out`).
"""

from __future__ import annotations

import sqlite3
import threading
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

    def parent_closed(self, parent_arn: str) -> None:
        """A parent that ends while a .sync task waits stops that child, as AWS does."""
        for child in self.store.waiting_children(parent_arn):
            with self.db.transaction() as conn:
                conn.execute("UPDATE sfn_children SET token='' WHERE child_arn=?", (child,))
            self.svc.engine.terminate(child, "ExecutionAborted", "ABORTED", None,
                                      ABORT_CAUSE.format(parent=parent_arn))

    def task_timed_out(self, conn: sqlite3.Connection, token: str) -> None:
        """A .sync task timed out (in the parent's commit): its child is stopped once that commit is
        done, by a thread whose own transaction waits for it (the committing thread may hold the
        engine's lock for the child's bucket, so it cannot stop the child itself)."""
        if not token:
            return
        row = conn.execute("SELECT child_arn, parent_arn FROM sfn_children WHERE token=?", (token,)).fetchone()
        if row is None:
            return
        conn.execute("UPDATE sfn_children SET token='' WHERE child_arn=?", (row[0],))
        cause = ABORT_CAUSE.format(parent=row[1])
        threading.Thread(target=self.svc.engine.terminate, args=(row[0], "ExecutionAborted", "ABORTED", None, cause),
                         name="sfn-stop-child", daemon=True).start()

    def child_closed(self, child_arn: str) -> None:
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
