"""SNS delivery to loopback HTTP endpoints (the confirmation flow, notifications, retries) and to
Lambda functions, against a real server."""

from __future__ import annotations

import io
import json
import sys
import threading
import time
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from entry_log import MARK, EntryLog


class Endpoint:
    """An HTTP endpoint on loopback that records what SNS posts; it fails the first `failures` posts."""

    def __init__(self, failures: int = 0) -> None:
        self.received: list[tuple[dict[str, str], dict[str, Any]]] = []
        self.failures = failures
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with owner.lock:
                    fail = owner.failures > 0
                    owner.failures -= 1
                    if not fail:
                        owner.received.append(({k.lower(): v for k, v in self.headers.items()}, json.loads(body)))
                self.send_response(500 if fail else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 20) -> list[tuple[dict[str, str], dict[str, Any]]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.05)
        with self.lock:
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook() -> Iterator[Endpoint]:
    endpoint = Endpoint()
    yield endpoint
    endpoint.close()


def test_http_confirmation_flow_and_notification(aws: Any, hook: Endpoint) -> None:
    sns = aws("sns")
    arn = sns.create_topic(Name=f"http-{uuid.uuid4().hex[:8]}")["TopicArn"]
    assert sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=hook.url)["SubscriptionArn"] == \
        "pending confirmation"
    [(headers, confirm)] = hook.wait_for(1)
    assert headers["x-amz-sns-message-type"] == "SubscriptionConfirmation"
    assert confirm["Type"] == "SubscriptionConfirmation" and confirm["TopicArn"] == arn
    [pending] = sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
    assert pending["SubscriptionArn"] == "PendingConfirmation"
    sns.publish(TopicArn=arn, Message="before confirmation")  # not delivered: still pending
    # Visiting SubscribeURL (unsigned, as a browser or the endpoint's code does) confirms it.
    with urllib.request.urlopen(confirm["SubscribeURL"], timeout=10) as answer:
        assert answer.status == 200 and b"ConfirmSubscriptionResult" in answer.read()
    [confirmed] = sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
    assert confirmed["SubscriptionArn"].startswith(arn + ":")
    sent = sns.publish(TopicArn=arn, Message="hello", Subject="S")
    received = hook.wait_for(2)
    assert len(received) == 2
    headers, note = received[1]
    assert headers["x-amz-sns-message-type"] == "Notification"
    assert headers["x-amz-sns-subscription-arn"] == confirmed["SubscriptionArn"]
    assert headers["content-type"].startswith("text/plain")
    assert note["MessageId"] == sent["MessageId"] and note["Message"] == "hello" and note["Subject"] == "S"


def test_confirm_subscription_api_and_bad_token(aws: Any, hook: Endpoint) -> None:
    sns = aws("sns")
    arn = sns.create_topic(Name=f"http-{uuid.uuid4().hex[:8]}")["TopicArn"]
    sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=hook.url)
    [(_, confirm)] = hook.wait_for(1)
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.confirm_subscription(TopicArn=arn, Token="wrong")
    sub = sns.confirm_subscription(TopicArn=arn, Token=confirm["Token"])["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["PendingConfirmation"] == "false"


def test_an_endpoint_off_loopback_is_kept_pending_and_never_called(aws: Any) -> None:
    # AWS takes any http(s) URL and asks it to confirm; onceflow calls loopback only, so such a
    # subscription is accepted and stays pending (nothing is sent to it, as for email).
    sns = aws("sns")
    arn = sns.create_topic(Name=f"http-{uuid.uuid4().hex[:8]}")["TopicArn"]
    assert sns.subscribe(TopicArn=arn, Protocol="http", Endpoint="http://203.0.113.9/hook")["SubscriptionArn"] == \
        "pending confirmation"
    sub = sns.subscribe(TopicArn=arn, Protocol="http", Endpoint="http://203.0.113.9/hook",
                        ReturnSubscriptionArn=True)["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["PendingConfirmation"] == "true"
    assert [s["SubscriptionArn"] for s in sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]] == \
        ["PendingConfirmation"]
    assert sns.publish(TopicArn=arn, Message="never sent")["MessageId"]
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.subscribe(TopicArn=arn, Protocol="https", Endpoint="http://127.0.0.1/hook")


def test_failed_deliveries_are_retried(aws: Any) -> None:
    hook = Endpoint(failures=0)
    try:
        sns = aws("sns")
        arn = sns.create_topic(Name=f"retry-{uuid.uuid4().hex[:8]}")["TopicArn"]
        sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=hook.url)
        [(_, confirm)] = hook.wait_for(1)
        sub = sns.confirm_subscription(TopicArn=arn, Token=confirm["Token"])["SubscriptionArn"]
        policy = {"healthyRetryPolicy": {"numRetries": 3, "minDelayTarget": 1, "maxDelayTarget": 1}}
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="DeliveryPolicy",
                                        AttributeValue=json.dumps(policy))
        with hook.lock:
            hook.failures = 2  # the endpoint answers 500 twice, then 200
        sns.publish(TopicArn=arn, Message="eventually")
        received = hook.wait_for(2)
        assert [doc.get("Message") for _, doc in received[1:]] == ["eventually"]
    finally:
        hook.close()


def test_lambda_subscription(aws: Any, entry_log: EntryLog) -> None:
    iam, lam, sns = aws("iam"), aws("lambda"), aws("sns")
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=f"sns-fn-{uuid.uuid4().hex[:8]}",
                           AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    source = MARK + ("import json\ndef handler(event, context):\n    r = event['Records'][0]\n"
                     "    mark(json.dumps([r['EventSource'], r['Sns']['Message'], r['Sns']['TopicArn']]))\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", source)
    fn = lam.create_function(FunctionName=f"sns-fn-{uuid.uuid4().hex[:8]}", Runtime="python3.11", Role=role,
                             Handler="app.handler", Code={"ZipFile": buf.getvalue()},
                             Environment={"Variables": {"ENTRY_PORT": str(entry_log.port)}})["FunctionArn"]
    arn = sns.create_topic(Name=f"fn-{uuid.uuid4().hex[:8]}")["TopicArn"]
    sns.subscribe(TopicArn=arn, Protocol="lambda", Endpoint=fn)
    # The permission AWS needs before SNS may invoke the function for this topic.
    lam.add_permission(FunctionName=fn, StatementId="sns", Action="lambda:InvokeFunction",
                       Principal="sns.amazonaws.com", SourceArn=arn)
    sns.publish(TopicArn=arn, Message="to the function")
    deadline = time.monotonic() + 30
    while not entry_log.snapshot() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [json.loads(line) for line in entry_log.snapshot()] == [["aws:sns", "to the function", arn]]


def test_a_subscription_to_onceflows_own_reset_leaves_it_untouched(hook: Endpoint) -> None:
    """SSRF: SNS posts from the server itself, a loopback client with a loopback Host, so without a
    check of its own a subscription to /_onceflow/reset (or the fault rules) would wipe the state."""
    from serverproc import ServerProcess

    server = ServerProcess().start()
    try:
        sns = server.client("sns")
        arn = sns.create_topic(Name=f"ssrf-{uuid.uuid4().hex[:8]}")["TopicArn"]
        for path in ("/_onceflow/reset", "/_onceflow/faults", "/moto-api/reset"):
            sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=server.url + path)
        sns.subscribe(TopicArn=arn, Protocol="http", Endpoint=hook.url)  # after the three above
        [(_, confirm)] = hook.wait_for(1)
        with urllib.request.urlopen(confirm["SubscribeURL"], timeout=10) as answer:
            assert answer.status == 200
        sns.publish(TopicArn=arn, Message="still here")
        assert [n["Message"] for _, n in hook.wait_for(2)[1:]] == ["still here"]
        assert arn in [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    finally:
        server.stop()
