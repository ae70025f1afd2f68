"""What SNS offers the other services (onceflow/ports.py hands it to them): publishing to a topic
by its ARN, and whether a topic's policy lets an AWS service publish. SnsService implements it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.sns.topics import Topics


class TopicPublisher(Protocol):
    topics: Topics

    def publish(self, arn: str, p: dict[str, Any]) -> dict[str, Any]: ...

    def service_may_publish(self, arn: str, service: str, source_arn: str | None,
                            source_account: str | None = None) -> bool | None: ...
