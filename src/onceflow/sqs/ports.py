"""What SQS offers the other services (onceflow/ports.py hands it to them): sending to a queue by
its ARN, asking whether a queue's policy lets an AWS service send, and its queues (event source
mappings read them; the console shows them). SqsService implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.context import Principal
    from onceflow.sqs.messages import Messages
    from onceflow.sqs.queues import Queue, Queues


class QueueSender(Protocol):
    queues: Queues
    messages: Messages

    def send_to_arn(self, arn: str, body: str, *, attributes: dict[str, Any] | None = None,
                    group_id: str | None = None, dedup_id: str | None = None, sender: str = "",
                    principal: Principal | None = None) -> dict[str, Any]: ...

    def service_may_send(self, arn: str, service: str, source_arn: str | None,
                         source_account: str | None = None) -> bool | None: ...

    def peek(self, q: Queue, limit: int = 100) -> list[dict[str, Any]]: ...
