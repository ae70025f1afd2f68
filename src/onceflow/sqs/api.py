"""SQS operations (JSON 1.0, and the query protocol older clients speak): parsed request
members in, output members out. ReceiveMessage with a wait answers with a `LongPoll` that the
wire layer awaits on its event loop, so a waiting consumer holds no thread."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sqs import paging
from onceflow.sqs.messages import Outgoing
from onceflow.sqs.queues import Queue, check_list_limit, is_bare_name, queue_arn, url_parts
from onceflow.sqs.service import SqsService

Params = dict[str, Any]


class SqsApi:
    def __init__(self, service: SqsService) -> None:
        self.service = service
        self.queues = service.queues
        self.messages = service.messages

    def _sender(self, ctx: RequestContext) -> str:
        return self.service.sender_of(ctx.principal, ctx.region)

    def _queue(self, ctx: RequestContext, p: Params) -> Queue:
        url = str(p["QueueUrl"])
        # AWS also takes a bare queue name as QueueUrl, in the caller's account.
        q = (self.queues.by_name(ctx.account, ctx.region, url) if is_bare_name(url)
             else self.queues.by_url(ctx.region, url))
        if q.account != ctx.account:
            self.service.check_cross_account(ctx, q)
        return q

    # ------------------------------------------------------------------ queues
    @operation("CreateQueue")
    def create_queue(self, ctx: RequestContext, p: Params) -> Params:
        attributes = {k: str(v) for k, v in (p.get("Attributes") or {}).items()}
        return {"QueueUrl": self.queues.create(ctx.account, ctx.region, p["QueueName"], attributes,
                                               dict(p.get("tags") or {}))}

    @operation("GetQueueUrl")
    def get_queue_url(self, ctx: RequestContext, p: Params) -> Params:
        q = self.queues.by_name(p.get("QueueOwnerAWSAccountId") or ctx.account, ctx.region, p["QueueName"])
        if q.account != ctx.account:
            self.service.check_cross_account(ctx, q)
        return {"QueueUrl": self.queues.url(q)}

    @operation("DeleteQueue")
    def delete_queue(self, ctx: RequestContext, p: Params) -> None:
        q = self._queue(ctx, p)
        self.queues.delete(q)
        self.service.waiters.notify(q.id)

    @operation("ListQueues")
    def list_queues(self, ctx: RequestContext, p: Params) -> Params:
        return self.queues.list(ctx.account, ctx.region, p.get("QueueNamePrefix"), p.get("MaxResults"),
                                p.get("NextToken"))

    @operation("GetQueueAttributes")
    def get_queue_attributes(self, ctx: RequestContext, p: Params) -> Params:
        values = self.queues.get_attributes(self._queue(ctx, p), list(p.get("AttributeNames") or []))
        return {"Attributes": values} if values else {}

    @operation("SetQueueAttributes")
    def set_queue_attributes(self, ctx: RequestContext, p: Params) -> None:
        self.queues.set_attributes(self._queue(ctx, p), {k: str(v) for k, v in p["Attributes"].items()})

    @operation("PurgeQueue")
    def purge_queue(self, ctx: RequestContext, p: Params) -> None:
        self.queues.purge(self._queue(ctx, p))

    @operation("ListDeadLetterSourceQueues")
    def list_dead_letter_source_queues(self, ctx: RequestContext, p: Params) -> Params:
        limit = p.get("MaxResults")
        check_list_limit(limit)  # below 1 it was an IndexError (a 500)
        urls = self.queues.dead_letter_sources(self._queue(ctx, p))
        after = paging.after(p.get("NextToken"), "dead-letter-sources")
        if after:
            urls = [u for u in urls if u > after]
        out: Params = {"queueUrls": urls[:limit] if limit else urls}
        if limit and len(urls) > limit:
            out["NextToken"] = paging.token_after(urls[limit - 1], "dead-letter-sources")
        return out

    # ------------------------------------------------------------------ tags, permissions
    @operation("TagQueue")
    def tag_queue(self, ctx: RequestContext, p: Params) -> None:
        self.queues.tag(self._queue(ctx, p), dict(p["Tags"]))

    @operation("UntagQueue")
    def untag_queue(self, ctx: RequestContext, p: Params) -> None:
        self.queues.untag(self._queue(ctx, p), list(p["TagKeys"]))

    @operation("ListQueueTags")
    def list_queue_tags(self, ctx: RequestContext, p: Params) -> Params:
        tags = self.queues.tags(self._queue(ctx, p))
        return {"Tags": tags} if tags else {}

    @operation("AddPermission")
    def add_permission(self, ctx: RequestContext, p: Params) -> None:
        self.queues.add_permission(self._queue(ctx, p), p["Label"], list(p["AWSAccountIds"]), list(p["Actions"]))

    @operation("RemovePermission")
    def remove_permission(self, ctx: RequestContext, p: Params) -> None:
        self.queues.remove_permission(self._queue(ctx, p), p["Label"])

    # ------------------------------------------------------------------ messages
    @operation("SendMessage")
    def send_message(self, ctx: RequestContext, p: Params) -> Params:
        m = Outgoing(p["MessageBody"], p.get("DelaySeconds"), p.get("MessageAttributes"),
                     p.get("MessageSystemAttributes"), p.get("MessageDeduplicationId"), p.get("MessageGroupId"))
        return self.messages.send(self._queue(ctx, p), m, self._sender(ctx))

    @operation("SendMessageBatch")
    def send_message_batch(self, ctx: RequestContext, p: Params) -> Params:
        return self.messages.send_batch(self._queue(ctx, p), list(p["Entries"]), self._sender(ctx))

    @operation("ReceiveMessage")
    def receive_message(self, ctx: RequestContext, p: Params) -> Any:
        return self.service.receive(self._queue(ctx, p), p, blocking=ctx.internal)

    @operation("DeleteMessage")
    def delete_message(self, ctx: RequestContext, p: Params) -> None:
        self.messages.delete(self._queue(ctx, p), p["ReceiptHandle"])

    @operation("DeleteMessageBatch")
    def delete_message_batch(self, ctx: RequestContext, p: Params) -> Params:
        return self.messages.delete_batch(self._queue(ctx, p), list(p["Entries"]))

    @operation("ChangeMessageVisibility")
    def change_message_visibility(self, ctx: RequestContext, p: Params) -> None:
        self.messages.change_visibility(self._queue(ctx, p), p["ReceiptHandle"], p["VisibilityTimeout"])

    @operation("ChangeMessageVisibilityBatch")
    def change_message_visibility_batch(self, ctx: RequestContext, p: Params) -> Params:
        return self.messages.change_visibility_batch(self._queue(ctx, p), list(p["Entries"]))

    # ------------------------------------------------------------------ message move tasks
    @operation("StartMessageMoveTask")
    def start_message_move_task(self, ctx: RequestContext, p: Params) -> Params:
        return {"TaskHandle": self.service.start_move(ctx.account, ctx.region, p["SourceArn"],
                                                      p.get("DestinationArn"),
                                                      p.get("MaxNumberOfMessagesPerSecond"))}

    @operation("ListMessageMoveTasks")
    def list_message_move_tasks(self, ctx: RequestContext, p: Params) -> Params:
        return {"Results": self.service.list_moves(p["SourceArn"], p.get("MaxResults"))}

    @operation("CancelMessageMoveTask")
    def cancel_message_move_task(self, ctx: RequestContext, p: Params) -> Params:
        return {"ApproximateNumberOfMessagesMoved": self.service.cancel_move(p["TaskHandle"])}


def resolve_resources(ctx: RequestContext, p: Params) -> list[str]:
    """The queue ARN a call acts on (from its URL or name); the account's queues for the rest."""
    if "QueueUrl" in p:
        url = str(p["QueueUrl"])
        parts = (ctx.account, url) if is_bare_name(url) else url_parts(url)
        if parts is not None:
            return [queue_arn(ctx.region, parts[0], parts[1])]
    if "QueueName" in p:
        return [queue_arn(ctx.region, p.get("QueueOwnerAWSAccountId") or ctx.account, str(p["QueueName"]))]
    if "SourceArn" in p:
        return [str(p["SourceArn"])]
    return [f"arn:{ctx.partition}:sqs:{ctx.region}:{ctx.account}:*"]
