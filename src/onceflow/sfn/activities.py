"""Activities: named queues of tasks that workers outside onceflow poll (GetActivityTask) and
answer with SendTaskSuccess/Failure/Heartbeat and the task's token.

An activity task is queued in the transaction of its ActivityScheduled event (engine side:
engine/integrations/activity.py). GetActivityTask long-polls for up to a minute: it takes the
oldest queued task, marks the task's start signal (which the execution turns into ActivityStarted
with the worker's name) and restarts the heartbeat clock. Polls wait on a condition that every
queued task notifies, so a waiting worker is answered as soon as a task exists; they run in the
wire's pool for long calls, so they never hold a thread that quick requests need.
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.sfn import errors as E
from onceflow.sfn.engine.integrations.activity import start_signal
from onceflow.sfn.names import check_encryption, tag_pairs, ts, valid_name

if TYPE_CHECKING:
    import sqlite3

    from onceflow.sfn.service import SfnService

POLL_SECONDS = 60.0  # GetActivityTask answers (with no task) after a minute [AWS]


def activity_does_not_exist(arn: str) -> ServiceError:
    return ServiceError("ActivityDoesNotExist", f"Activity Does Not Exist: '{arn}'", 400)


class Activities:
    def __init__(self, service: SfnService) -> None:
        self.svc = service
        self.store = service.store
        self.db = service.stack.db
        self._cond = threading.Condition()
        self._queued = 0  # bumped by every queued task: a poll that saw it change looks again
        self._closing = False
        service.stack.on_stopping.append(self.close)  # a shutdown ends the polls at once
        service.stack.on_start.append(self.reopen)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()

    def reopen(self) -> None:
        self._closing = False

    # ------------------------------------------------------------------ activities
    def arn(self, ctx: RequestContext, name: str) -> str:
        return f"arn:{ctx.partition}:states:{ctx.region}:{ctx.account}:activity:{name}"

    def activity(self, arn: str) -> Any:
        self.svc.check_arn(arn, "activity")
        row = self.store.get_activity(arn)
        if row is None:
            raise activity_does_not_exist(arn)
        return row

    def create(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        name = p["name"]
        if not valid_name(name):
            raise E.invalid_name(name)
        check_encryption(p.get("encryptionConfiguration"))
        arn = self.arn(ctx, name)
        now = time.time()
        config = {"encryptionConfiguration": p["encryptionConfiguration"]} if p.get("encryptionConfiguration") else {}
        tags = tag_pairs(p.get("tags"))
        with self.db.transaction() as conn:
            existing = self.store.get_activity(arn)
            if existing is not None:  # idempotent: the same name is the same activity
                if json.loads(existing["config"]) != config:  # [AWS] API reference's wording of the error
                    raise ServiceError("ActivityAlreadyExists",
                                       "Activity already exists. EncryptionConfiguration may not be updated.", 400)
                return {"activityArn": arn, "creationDate": ts(existing["created"])}
            self.store.insert_activity(conn, {"arn": arn, "account": ctx.account, "region": ctx.region, "name": name,
                                              "created": now, "config": json.dumps(config)})
            self.store.put_tags(conn, arn, tags)
        return {"activityArn": arn, "creationDate": ts(now)}

    def describe(self, arn: str) -> dict[str, Any]:
        row = self.activity(arn)
        out: dict[str, Any] = {"activityArn": row["arn"], "name": row["name"], "creationDate": ts(row["created"])}
        config = json.loads(row["config"])
        if "encryptionConfiguration" in config:
            out["encryptionConfiguration"] = config["encryptionConfiguration"]
        return out

    def delete(self, arn: str) -> None:
        self.svc.check_arn(arn, "activity")
        with self.db.transaction() as conn:
            self.store.delete_activity(conn, arn)

    def list(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        items = [{"activityArn": r["arn"], "name": r["name"], "creationDate": ts(r["created"])}
                 for r in self.store.activities(ctx.account, ctx.region)]
        return self.svc.page(items, "activities", p)

    # ------------------------------------------------------------------ tasks
    def queue(self, conn: sqlite3.Connection, activity_arn: str, token: str, exec_arn: str, task_input: str,
              now: float) -> None:
        """In the transaction of the task's ActivityScheduled event: its token, its start signal and
        its place in the queue. A poll woken now takes it once that transaction commits (its own
        write transaction waits for the writers' lock until then)."""
        self.store.insert_token(conn, token, exec_arn, now)
        self.store.insert_token(conn, start_signal(token), exec_arn, now)
        self.store.queue_activity_task(conn, activity_arn, token, exec_arn, task_input)
        with self._cond:
            self._queued += 1
            self._cond.notify_all()

    def get_task(self, p: dict[str, Any], poll_seconds: float = POLL_SECONDS) -> dict[str, Any]:
        arn = p["activityArn"]
        self.activity(arn)
        worker = p.get("workerName")
        deadline = time.monotonic() + poll_seconds
        notified = False
        while True:
            with self._cond:
                seen = self._queued
            got = self._take(arn, worker, look_first=not notified)
            if got is not None:
                return got
            with self._cond:
                left = deadline - time.monotonic()
                if left <= 0 or self._closing:
                    return {}
                if self._queued == seen:
                    self._cond.wait(min(left, 1.0))
                notified = self._queued != seen

    def _take(self, arn: str, worker: str | None, look_first: bool) -> dict[str, Any] | None:
        """Take the oldest task. After a notification the read is skipped: the task may not be
        committed yet, and the write transaction waits for that commit."""
        if look_first and not self.store.has_activity_task(arn):
            return None
        with self.db.transaction() as conn:
            row = self.store.take_activity_task(conn, arn)
            if row is None:
                return None
            self.store.complete_token(conn, start_signal(row["token"]), "SUCCEEDED", json.dumps(worker), None, None)
            self.store.heartbeat_token(conn, row["token"], time.time())  # the heartbeat clock starts now
        self.svc.engine.wake(row["exec_arn"])
        return {"taskToken": row["token"], "input": row["input"]}
