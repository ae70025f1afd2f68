"""The SQS service object other services use (SNS delivers to queues, Step Functions sends):
queues, messages, long-poll waiters and message move tasks, built once in setup()."""

from __future__ import annotations

import base64
import binascii
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.iam.resource_access import principal_may, service_may
from onceflow.longpoll import LongPoll, Waiters
from onceflow.sqs import attributes as attrs
from onceflow.sqs.errors import bad_parameter, invalid_value, no_move_source, not_found, sqs_error
from onceflow.sqs.messages import Messages, Outgoing
from onceflow.sqs.queues import Queue, Queues, now_ms
from onceflow.sqs.senders import principal_sender, service_sender
from onceflow.store.db import Database

if TYPE_CHECKING:
    from onceflow.context import Principal
    from onceflow.ports import Port
    from onceflow.sts.ports import SessionIssuer

MAX_WAIT_S = 20
# A batch is authorized as its single-message action (IAM has no *Batch actions for SQS).
POLICY_ACTIONS = {"SendMessageBatch": "SendMessage", "DeleteMessageBatch": "DeleteMessage",
                  "ChangeMessageVisibilityBatch": "ChangeMessageVisibility"}
ATTEMPT_WINDOW_S = 300  # AWS keeps a FIFO ReceiveRequestAttemptId for 5 minutes


class ReceiveAttempts:
    """FIFO receives by ReceiveRequestAttemptId: a retry within 5 minutes gets the same messages
    back while they are still held under the handles it was given (kept in memory: a restart
    forgets them, and the retry then receives as a new attempt)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[tuple[int, str], tuple[float, list[dict[str, Any]]]] = {}

    def remember(self, queue_id: int, attempt_id: str, messages: list[dict[str, Any]]) -> None:
        now = time.monotonic()
        with self._lock:
            self._seen = {k: v for k, v in self._seen.items() if v[0] > now}
            self._seen[(queue_id, attempt_id)] = (now + ATTEMPT_WINDOW_S, messages)

    def repeat(self, queue_id: int, attempt_id: str,
               held: Callable[[list[str]], bool]) -> list[dict[str, Any]] | None:
        with self._lock:
            found = self._seen.get((queue_id, attempt_id))
        if found is None or found[0] <= time.monotonic():
            return None
        return found[1] if held([m["ReceiptHandle"] for m in found[1]]) else None


class SqsService:
    def __init__(self, db: Database, endpoint_url: str, sessions: Port[SessionIssuer] | None = None) -> None:
        self.db = db
        self.sessions = sessions  # STS, which knows callers' unique ids (SenderId)
        self.queues = Queues(db, endpoint_url)
        self.waiters = Waiters()
        self.messages = Messages(db, self.queues, self.waiters.notify)
        self._attempts = ReceiveAttempts()

    def forget(self) -> None:
        """On reset: the rows are gone, and queue ids start again, so memory of them goes too."""
        self.messages.forget_sweeps()
        self._attempts = ReceiveAttempts()

    def sender_of(self, principal: Principal, region: str) -> str:
        """The SenderId of a message `principal` sends (SendMessage, or a service sending as a role)."""
        return principal_sender(principal, region, self.sessions.get() if self.sessions else None)

    # ------------------------------------------------------------------ for other services
    def send_to_arn(self, arn: str, body: str, *, attributes: dict[str, Any] | None = None,
                    group_id: str | None = None, dedup_id: str | None = None, sender: str = "",
                    principal: Principal | None = None) -> dict[str, Any]:
        """Deliver one message to the queue `arn` names (SNS subscriptions); raises QueueDoesNotExist.
        The message's SenderId: `principal`'s (a role session a service sends as, e.g. Lambda's
        dead-letter queue), or the AWS service `sender`'s (sns.amazonaws.com), or the queue owner's."""
        q = self.queues.by_arn(arn)
        if q is None:
            raise sqs_error("QueueDoesNotExist", "The specified queue does not exist.")
        if principal is not None:
            sender_id = self.sender_of(principal, q.region)
        else:
            sender_id = service_sender(sender, q.region) if sender else q.account
        return self.messages.send(q, Outgoing(body, None, attributes, None, dedup_id, group_id), sender_id)

    def service_may_send(self, arn: str, service: str, source_arn: str | None,
                         source_account: str | None = None) -> bool | None:
        """Whether the queue's policy lets an AWS service (S3, SNS, EventBridge) send to it for an
        event from `source_arn`; None when there is no such queue."""
        q = self.queues.by_arn(arn)
        if q is None:
            return None
        return service_may(q.attributes.get("Policy"), service, "sqs:SendMessage", arn, source_arn, source_account)

    def check_cross_account(self, ctx: RequestContext, q: Queue) -> None:
        """A principal of another account reaches a queue only through its policy (AddPermission or
        a Policy attribute). Services were checked where they deliver (service_may_send)."""
        if ctx.principal.kind == "service":
            return
        action = "sqs:" + POLICY_ACTIONS.get(ctx.operation, ctx.operation)
        who = ctx.principal.role_arn or ctx.principal.arn
        if not principal_may(q.attributes.get("Policy"), who, action, q.arn):
            raise sqs_error("AccessDenied", f"User: {who} is not authorized to perform: {action.lower()} on "
                            f"resource: {q.arn} because no resource-based policy allows the {action.lower()} "
                            "action", 403)

    def peek(self, q: Queue, limit: int = 100) -> list[dict[str, Any]]:
        """The queue's messages as they stand, changing nothing (the console's view; not an AWS API)."""
        now = now_ms()
        rows = self.db.query("SELECT message_id, body, sent_ms, visible_ms, receive_count, group_id, dlq_source "
                             "FROM sqs_messages WHERE queue_id=? ORDER BY id LIMIT ?", (q.id, limit))
        out = []
        for r in rows:
            state = "visible" if r[3] <= now else ("in flight" if r[4] else "delayed")
            out.append({"MessageId": r[0], "Body": r[1], "SentTimestamp": r[2], "State": state,
                        "VisibleInSeconds": max(0, (r[3] - now) // 1000), "ReceiveCount": r[4], "GroupId": r[5],
                        "DeadLetterSource": r[6]})
        return out

    # ------------------------------------------------------------------ receive with long polling
    def receive(self, q: Queue, params: dict[str, Any], *, blocking: bool) -> dict[str, Any] | LongPoll:
        limit = params.get("MaxNumberOfMessages", 1)
        if not 1 <= limit <= 10:
            raise bad_parameter("MaxNumberOfMessages", limit, "Must be between 1 and 10, if provided.")
        visibility = params.get("VisibilityTimeout")
        if visibility is None:
            visibility = q.int_attribute("VisibilityTimeout")
        elif not 0 <= visibility <= 43200:
            raise bad_parameter("VisibilityTimeout", visibility, "Must be between 0 and 43200, if provided.")
        wait = params.get("WaitTimeSeconds")
        if wait is None:
            wait = q.int_attribute("ReceiveMessageWaitTimeSeconds")
        elif not 0 <= wait <= MAX_WAIT_S:
            raise bad_parameter("WaitTimeSeconds", wait, "Must be >= 0 and <= 20, if provided.")
        system = list(params.get("MessageSystemAttributeNames") or []) + list(params.get("AttributeNames") or [])
        names = list(params.get("MessageAttributeNames") or [])
        deadline = time.monotonic() + wait

        def attempt() -> tuple[dict[str, Any] | None, float | None]:
            found, ready_in = self.messages.receive(q, limit, visibility, system, names)
            return ({"Messages": found} if found else None), ready_in

        attempt_id = params.get("ReceiveRequestAttemptId") if q.fifo else None
        if attempt_id:
            again = self._attempts.repeat(q.id, attempt_id, self.messages.still_held)
            if again is not None:  # a retried receive (its answer was lost): the same messages
                return {"Messages": again}
        found, _ = self.messages.receive(q, limit, visibility, system, names)
        if found and attempt_id:
            self._attempts.remember(q.id, attempt_id, found)
        if found or wait == 0:
            return {"Messages": found} if found else {}
        poll = LongPoll(self.waiters, q.id, deadline, attempt, {})
        return poll.run_blocking() if blocking else poll

    # ------------------------------------------------------------------ message move tasks
    def start_move(self, account: str, region: str, source_arn: str, destination_arn: str | None,
                   rate: int | None) -> str:
        source = self.queues.by_arn(source_arn)
        if source is None:
            raise no_move_source()
        if not any(attrs.redrive(json.loads(r[0])) and attrs.redrive(json.loads(r[0]))[0] == source_arn  # type: ignore[index]
                   for r in self.db.query("SELECT attributes FROM sqs_queues WHERE account=? AND region=?",
                                          (source.account, source.region))):
            raise invalid_value("Source queue must be configured as a Dead Letter Queue.")
        destination = None
        if destination_arn:
            destination = self.queues.by_arn(destination_arn)
            if destination is None:
                raise not_found("The resource that you specified for the DestinationArn parameter doesn't exist.")
        if rate is not None and not 1 <= rate <= 500:
            raise bad_parameter("MaxNumberOfMessagesPerSecond", rate, "Must be between 1 and 500.")
        started = now_ms()
        to_move = int(self.queues.counts(source)["ApproximateNumberOfMessages"])
        # The move runs at once, in one transaction: the rate limit is accepted and not applied.
        moved = self.messages.move(source, destination)
        handle = move_handle(str(uuid.uuid4()), source_arn)
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO sqs_move_tasks VALUES (?,?,?,?,?,?,?,?,?,?)",
                         (handle, account, region, source_arn, destination_arn, rate, "COMPLETED", moved, to_move,
                          started))
        return handle

    def list_moves(self, source_arn: str, limit: int | None) -> list[dict[str, Any]]:
        if self.queues.by_arn(source_arn) is None:
            raise no_move_source()
        if limit is not None and not 1 <= limit <= 10:
            raise bad_parameter("MaxResults", limit, "Must be between 1 and 10, if provided.")
        rows = self.db.query("SELECT * FROM sqs_move_tasks WHERE source_arn=? ORDER BY started_ms DESC LIMIT ?",
                             (source_arn, limit or 1))
        out = []
        for r in rows:
            entry: dict[str, Any] = {"Status": r["status"], "SourceArn": r["source_arn"]}
            if r["status"] == "RUNNING":
                entry["TaskHandle"] = r["handle"]
            if r["destination_arn"]:
                entry["DestinationArn"] = r["destination_arn"]
            if r["rate"] is not None:
                entry["MaxNumberOfMessagesPerSecond"] = r["rate"]
            entry.update({"ApproximateNumberOfMessagesMoved": r["moved"],
                          "ApproximateNumberOfMessagesToMove": r["to_move"], "StartedTimestamp": r["started_ms"]})
            out.append(entry)
        return out

    def cancel_move(self, handle: str) -> int:
        source_arn = read_move_handle(handle)
        if self.queues.by_arn(source_arn) is None:
            raise no_move_source()
        row = self.db.query_one("SELECT status, moved FROM sqs_move_tasks WHERE handle=?", (handle,))
        if row is None or row[0] != "RUNNING":
            # UNCONFIRMED for a task that finished (moves here finish at once): AWS's words for an unknown one
            raise not_found("Task does not exist.")
        return int(row[1])


def move_handle(task_id: str, source_arn: str) -> str:
    """A move task's handle as AWS makes it: its id and source queue, as base64 JSON (the shape
    LocalStack's AWS-validated move-task tests send AWS)."""
    doc = json.dumps({"taskId": task_id, "sourceArn": source_arn}, separators=(",", ":"))
    return base64.b64encode(doc.encode()).decode()


def read_move_handle(handle: str) -> str:
    """The source queue ARN a move task handle names; AWS's InvalidParameterValue when it names none."""
    try:
        doc = json.loads(base64.b64decode(handle, validate=True))
        if isinstance(doc, dict) and isinstance(doc.get("taskId"), str) and isinstance(doc.get("sourceArn"), str):
            return str(doc["sourceArn"])
    except (ValueError, binascii.Error):
        pass
    raise invalid_value("Value for parameter TaskHandle is invalid.")
