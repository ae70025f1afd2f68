"""The delivery thread: makes the Lambda and HTTP(S) deliveries that Publish and Subscribe
recorded as rows, retrying a failed one by the subscription's delivery policy (AWS's default for
HTTP: 3 retries 20 seconds apart), and sends what stays undeliverable to the subscription's
dead-letter queue. A row is deleted once its delivery succeeded or was given up.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.outbound import mark_delivery
from onceflow.sns.publish import Publisher
from onceflow.sns.topics import DEFAULT_DELIVERY, Subscription, Topics, on_loopback
from onceflow.stack import Stack

log = logging.getLogger("onceflow.sns")
HTTP_TIMEOUT_S = 15
IDLE_WAIT_S = 30.0
LAMBDA_RETRY = {"numRetries": 3, "minDelayTarget": 1, "maxDelayTarget": 20, "backoffFunction": "exponential"}
USER_AGENT = "Amazon Simple Notification Service Agent"


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect could lead off loopback: an endpoint that redirects has failed the delivery."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def retry_policy(sub: Subscription, topic_attributes: dict[str, str]) -> dict[str, Any]:
    if sub.protocol == "lambda":
        return LAMBDA_RETRY
    for text, path in ((sub.attributes.get("DeliveryPolicy"), ("healthyRetryPolicy",)),
                       (topic_attributes.get("DeliveryPolicy"), ("http", "defaultHealthyRetryPolicy"))):
        if text:
            try:
                doc: Any = json.loads(text)
                for key in path:
                    doc = doc[key]
                return dict(doc)
            except (ValueError, KeyError, TypeError):
                continue
    return dict(DEFAULT_DELIVERY["http"]["defaultHealthyRetryPolicy"])


def delay_s(policy: dict[str, Any], attempt: int) -> float:
    """The wait before retry `attempt` (1-based), between minDelayTarget and maxDelayTarget."""
    low = float(policy.get("minDelayTarget", 20))
    high = max(float(policy.get("maxDelayTarget", 20)), low)
    retries = max(int(policy.get("numRetries", 3)), 1)
    if policy.get("backoffFunction") == "exponential":
        return min(high, low * (2 ** (attempt - 1)))
    return low + (high - low) * (attempt - 1) / max(retries - 1, 1)


class Deliverer:
    def __init__(self, stack: Stack, topics: Topics, publisher: Publisher) -> None:
        self.stack = stack
        self.db = stack.db
        self.topics = topics
        self.publisher = publisher
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._busy: set[int] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="onceflow-sns-delivery")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="onceflow-sns", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def wake(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            wait = 1.0
            try:
                wait = self._dispatch_due()
            except Exception:
                log.exception("sns delivery loop failed")
            self._wake.wait(wait)

    def _dispatch_due(self) -> float:
        now = int(time.time() * 1000)
        rows = self.db.query("SELECT * FROM sns_deliveries WHERE due_ms <= ? ORDER BY due_ms LIMIT 100", (now,))
        for row in rows:
            with self._lock:
                if row["id"] in self._busy:
                    continue
                self._busy.add(row["id"])
            self._pool.submit(self._attempt, dict(row))
        nxt = self.db.query_one("SELECT MIN(due_ms) FROM sns_deliveries WHERE due_ms > ?", (now,))
        if not nxt or not nxt[0]:
            return IDLE_WAIT_S  # nothing scheduled: a new row wakes the thread anyway
        return max(0.05, min(IDLE_WAIT_S, (nxt[0] - now) / 1000))

    def _attempt(self, row: dict[str, Any]) -> None:
        try:
            self._attempt_one(row)
        except Exception:
            log.exception("sns delivery %s failed", row["id"])
        finally:
            with self._lock:
                self._busy.discard(row["id"])
            self._wake.set()

    def _attempt_one(self, row: dict[str, Any]) -> None:
        try:
            sub = self.topics.subscription(row["subscription_arn"])
        except ServiceError:  # unsubscribed meanwhile: nothing to deliver to
            self._finish(row["id"])
            return
        payload = json.loads(row["payload"])
        ok = self._call_lambda(sub, payload) if row["kind"] == "lambda" else self._post(sub, payload)
        if ok:
            self._finish(row["id"])
            return
        try:
            topic_attributes = self.topics.get(sub.topic_arn).attributes
        except ServiceError:
            topic_attributes = {}
        policy = retry_policy(sub, topic_attributes)
        attempts = row["attempts"] + 1
        if ok is None or attempts > int(policy.get("numRetries", 3)):  # None: a client error, not retried
            if payload.get("type") != "SubscriptionConfirmation":
                self.publisher.dead_letter(sub, payload["body"])
            self._finish(row["id"])
            return
        due = int((time.time() + delay_s(policy, attempts)) * 1000)
        with self.db.transaction() as conn:
            conn.execute("UPDATE sns_deliveries SET attempts=?, due_ms=? WHERE id=?", (attempts, due, row["id"]))

    def _finish(self, row_id: int) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM sns_deliveries WHERE id=?", (row_id,))

    def _call_lambda(self, sub: Subscription, payload: dict[str, Any]) -> bool | None:
        """True once invoked, False to retry; None for a client error, which SNS does not retry (AWS
        dead-letters it): the function's resource policy does not let SNS in for this topic, or the
        function is gone."""
        region = sub.endpoint.split(":")[3]
        principal = Principal(sub.account, "service", "sns.amazonaws.com", "sns.amazonaws.com")
        functions = self.stack.ports.functions.get()
        if functions is not None and functions.may_invoke(sub.account, sub.endpoint, principal.arn,
                                                          source_arn=sub.topic_arn) is False:
            log.warning("the resource policy of %s does not let sns.amazonaws.com invoke it for %s",
                        sub.endpoint, sub.topic_arn)
            return None
        try:
            internal.call(self.stack, principal, "lambda", "Invoke",
                          {"FunctionName": sub.endpoint, "InvocationType": "Event",
                           "Payload": payload["body"].encode()}, region=region)
            return True
        except ServiceError as exc:
            log.warning("sns could not invoke %s: %s", sub.endpoint, exc)
            # A function that is gone is a client error too; throttling and Lambda's faults are retried.
            return False if exc.status >= 500 or exc.status == 429 else None

    def _post(self, sub: Subscription, payload: dict[str, Any]) -> bool:
        if not on_loopback(sub.endpoint):  # never confirmed, so never reached; kept as a second guard
            return False
        headers = {"Content-Type": "text/plain; charset=UTF-8", "User-Agent": USER_AGENT,
                   "x-amz-sns-message-type": payload.get("type", "Notification"),
                   "x-amz-sns-message-id": payload.get("message_id", ""),
                   "x-amz-sns-topic-arn": payload.get("topic_arn", sub.topic_arn)}
        if payload.get("type") != "SubscriptionConfirmation":
            headers["x-amz-sns-subscription-arn"] = sub.arn
            if sub.raw:
                headers["x-amz-sns-rawdelivery"] = "true"
        request = mark_delivery(urllib.request.Request(sub.endpoint, data=payload["body"].encode(), headers=headers,
                                                       method="POST"))
        try:
            with _OPENER.open(request, timeout=HTTP_TIMEOUT_S) as response:
                return 200 <= response.status < 300
        except (urllib.error.URLError, OSError, ValueError) as exc:
            log.info("sns delivery to %s failed: %s", sub.endpoint, exc)
            return False
