"""The SNS service object: topics, publishing and the delivery thread, for the API and for
other services (Step Functions' sns:publish)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.iam.resource_access import principal_may, service_may
from onceflow.sns import sms
from onceflow.sns.data_protection import DataProtection
from onceflow.sns.delivery import Deliverer
from onceflow.sns.errors import invalid
from onceflow.sns.platform import Platforms
from onceflow.sns.publish import Outgoing, Publisher
from onceflow.sns.sandbox import SmsSandbox
from onceflow.sns.topics import Subscription, Topics, on_loopback
from onceflow.stack import Stack

log = logging.getLogger("onceflow.sns")


def outgoing(p: dict[str, Any]) -> Outgoing:
    """A Publish request's message, as the checks and the fan-out take it."""
    return Outgoing(p["Message"], p.get("Subject"), p.get("MessageStructure"), dict(p.get("MessageAttributes") or {}),
                    p.get("MessageDeduplicationId"), p.get("MessageGroupId"))


class SnsService:
    def __init__(self, stack: Stack) -> None:
        endpoint = stack.settings.endpoint_url
        self.topics = Topics(stack.db, endpoint)
        self.platforms = Platforms(stack.db)
        self.data_protection = DataProtection(stack.db, self.topics)
        self.sandbox = SmsSandbox(stack.db)
        self.publisher = Publisher(stack.db, self.topics, endpoint, stack.ports.queues, self._wake)
        self.deliverer = Deliverer(stack, self.topics, self.publisher)

    def _wake(self) -> None:
        self.deliverer.wake()

    @staticmethod
    def new_message_id() -> str:
        return str(uuid.uuid4())

    def subscribe(self, account: str, topic_arn: str, protocol: str, endpoint: str | None,
                  attributes: dict[str, str]) -> Subscription:
        if protocol == "application" and endpoint and not self.platforms.endpoint_exists(endpoint):
            raise invalid(f"Endpoint Reason: Endpoint does not exist for endpoint arn{endpoint}")  # sic, AWS's text
        sub = self.topics.subscribe(account, topic_arn, protocol, endpoint, attributes)
        if not sub.confirmed and protocol in ("http", "https"):
            if on_loopback(sub.endpoint):
                self.publisher.confirmation(self.topics.get(topic_arn), sub)
            else:  # accepted as AWS accepts it, and kept pending: onceflow calls loopback endpoints only
                log.warning("sns: %s is not on loopback; its subscription stays pending and is never called",
                            sub.endpoint)
        return sub

    def service_may_publish(self, arn: str, service: str, source_arn: str | None,
                            source_account: str | None = None) -> bool | None:
        """Whether the topic's policy lets an AWS service (S3, EventBridge) publish to it for an
        event from `source_arn`; None when there is no such topic."""
        try:
            topic = self.topics.get(arn)
        except ServiceError:
            return None
        return service_may(topic.attributes.get("Policy"), service, "sns:Publish", arn, source_arn, source_account)

    def check_cross_account(self, ctx: RequestContext, arn: str, action: str) -> None:
        """A principal of another account publishes or subscribes only through the topic's policy."""
        parts = arn.split(":")
        if ctx.principal.kind == "service" or (len(parts) > 4 and parts[4] == ctx.account):
            return  # the owner's own calls (identity policies apply); services were checked where they deliver
        try:
            topic = self.topics.get(arn)
        except ServiceError:
            return  # the operation itself answers NotFound
        if topic.account == ctx.account:
            return
        who = ctx.principal.role_arn or ctx.principal.arn
        if not principal_may(topic.attributes.get("Policy"), who, f"sns:{action}", arn):
            raise ServiceError("AuthorizationError", f"User: {who} is not authorized to perform: SNS:{action} on "
                               f"resource: {arn} because no resource-based policy allows the SNS:{action} action",
                               403)

    def publish(self, arn: str, p: dict[str, Any]) -> dict[str, Any]:
        m = outgoing(p)
        if ":endpoint/" in arn:  # a mobile push endpoint: accepted, no push service is reached
            self.publisher.check_text(m)
            self.publisher.check_body(m)
            # a disabled endpoint refuses before its MessageStructure json is parsed (moto's AWS-verified
            # test_publish_to_disabled_platform_endpoint: "msg" as json gets EndpointDisabled)
            self.platforms.check_publishable(arn)
            self.publisher.check_structure(m, default_needed=False)
            return {"MessageId": self.new_message_id()}
        return self.publisher.publish(self.topics.get(arn), m)

    def publish_sms(self, p: dict[str, Any]) -> dict[str, Any]:
        """Publish(PhoneNumber): checked as AWS checks it (the text, the number, then the rest), accepted
        and not sent."""
        m = outgoing(p)
        self.publisher.check_text(m)
        sms.check_publish_number(p["PhoneNumber"])
        self.publisher.check_body(m)
        sms.check_sms_message(m.message)
        return {"MessageId": self.new_message_id()}

    def publish_batch(self, arn: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
        return self.publisher.publish_batch(self.topics.get(arn), entries)
