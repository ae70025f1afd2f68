"""SNS deliveries outlive kill -9: a notification whose HTTP endpoint was failing is delivered by
the restarted server; topics and subscriptions are rows too."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from test_sns_delivery import Endpoint


def test_a_pending_delivery_survives_kill9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    hook = Endpoint()
    try:
        data = tmp_path / "data"
        server = server_factory(data)
        sns = server.client("sns")
        arn = sns.create_topic(Name="durable-topic")["TopicArn"]
        sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=hook.url)
        [(_, confirm)] = hook.wait_for(1)
        sub = sns.confirm_subscription(TopicArn=arn, Token=confirm["Token"])["SubscriptionArn"]
        policy = {"healthyRetryPolicy": {"numRetries": 50, "minDelayTarget": 1, "maxDelayTarget": 1}}
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="DeliveryPolicy",
                                        AttributeValue=json.dumps(policy))
        with hook.lock:
            hook.failures = 10**6  # down until the restart
        sent = sns.publish(TopicArn=arn, Message="after the crash")
        time.sleep(1.5)  # at least one attempt failed
        server.kill()
        with hook.lock:
            hook.failures = 0
        restarted = server_factory(data)
        received = hook.wait_for(2, timeout=30)
        assert [doc.get("MessageId") for _, doc in received[1:]] == [sent["MessageId"]]
        subs = restarted.client("sns").list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
        assert [s["SubscriptionArn"] for s in subs] == [sub]
    finally:
        hook.close()
