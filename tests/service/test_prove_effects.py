"""onceflow prove judges SQS messages and S3 objects as business effects, as it judges items."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from prove_setup import HERE, orders_lab

from onceflow.prove import ProveError, prove
from serverproc import ServerProcess, client_factory

ORDER = {"id": "order-1", "quantity": 2}
CONFLICT = {"id": "order-1", "quantity": 3}


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("prove-effects") / "data").start()
    yield proc
    proc.stop()


def retrying_template() -> dict[str, Any]:
    """The seed workflow with a Retry on every task error: a lost answer is retried."""
    template = json.loads((HERE / "workflow-template.json").read_text(encoding="utf-8"))
    template["States"]["StoreOrder"]["Retry"] = [{"ErrorEquals": ["States.ALL"], "IntervalSeconds": 1,
                                                  "MaxAttempts": 2, "BackoffRate": 2}]
    return template


def allow_worker(url: str, prefix: str, actions: list[str]) -> None:
    client_factory(url)("iam").put_role_policy(
        RoleName=f"{prefix}-worker-role", PolicyName="effects", PolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}))


def by_kind(report: Any, kind: str) -> list[Any]:
    runs = [r for r in report.runs if r.kind == kind]
    assert runs, f"no {kind} run in {[r.kind for r in report.runs]}"
    return runs


def test_a_message_sent_again_on_a_retried_lost_answer_is_duplicated(lab_server: ServerProcess) -> None:
    aws = client_factory(lab_server.url)
    queue_url = aws("sqs").create_queue(QueueName="pe-sqs-outbox")["QueueUrl"]
    lab = orders_lab(lab_server.url, "pe-sqs", "outbox", retrying_template())
    allow_worker(lab_server.url, "pe-sqs", ["sqs:GetQueueUrl", "sqs:SendMessage"])
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir,
                   kinds=["lost-response", "fail-before", "re-execution", "fail-after-write", "crash"])
    # Nothing else was written: the queue is the business effect, found by the ledger.
    assert report.business_tables == ["sqs:pe-sqs-outbox"]
    sends = [e for e in report.baseline.ledger if e["table"] == "sqs:pe-sqs-outbox"]
    assert [(e["operation"], e["state"], e["attempt"]) for e in sends] == [("SendMessage", "StoreOrder", 1)]
    (lost,) = [r for r in by_kind(report, "lost-response") if r.point == "StoreOrder#1"]
    assert lost.verdict == "duplicated" and lost.outcomes == ["SUCCEEDED"]
    (extra,) = lost.differences
    assert extra.table == "sqs:pe-sqs-outbox" and extra.key.endswith("#2") and extra.baseline is None
    assert json.loads(extra.run["Body"]) == ORDER
    assert extra.run["MessageAttributes"]["kind"]["StringValue"] == "order"
    # Each run starts from the queue as it was: a refused, retried call sends once, like the baseline.
    assert [r.verdict for r in by_kind(report, "fail-before")] == ["same", "same"]
    assert by_kind(report, "re-execution")[0].verdict == "duplicated"
    assert [(r.point, r.verdict) for r in by_kind(report, "fail-after-write")] == [
        ("StoreOrder#1 write 1 (SendMessage sqs:pe-sqs-outbox)", "duplicated")]
    # A server killed after the send and restarted runs the attempt again (messages read from its store).
    crashed = [r for r in by_kind(report, "crash") if r.point == "StoreOrder#1"]
    assert [(r.verdict, r.outcomes) for r in crashed] == [("duplicated", ["SUCCEEDED"])]
    assert not report.safe
    # The user's queue never saw a message.
    attrs = aws("sqs").get_queue_attributes(QueueUrl=queue_url, AttributeNames=["ApproximateNumberOfMessages"])
    assert attrs["Attributes"]["ApproximateNumberOfMessages"] == "0"


def test_an_object_written_again_with_the_same_content_is_safe_and_other_content_replaces_it(
        lab_server: ServerProcess) -> None:
    aws = client_factory(lab_server.url)
    aws("s3").create_bucket(Bucket="pe-s3-receipts")
    aws("s3").put_object(Bucket="pe-s3-receipts", Key="receipts/earlier.json", Body=b"{}")
    lab = orders_lab(lab_server.url, "pe-s3", "receipt", retrying_template())
    allow_worker(lab_server.url, "pe-s3", ["s3:PutObject"])
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir,
                   kinds=["lost-response", "duplicate-delivery", "re-execution"], conflict_input=CONFLICT)
    assert report.business_tables == ["s3:pe-s3-receipts"]
    plain = [r for r in report.runs if r.kind != "conflict-input"]
    assert plain and all(r.verdict == "same" for r in plain), report.summary()
    # Another order under the same id overwrites the receipt: the baseline's object now holds other content.
    conflict = by_kind(report, "conflict-input")[0]
    assert conflict.verdict == "replaced"
    (diff,) = conflict.differences
    assert diff.table == "s3:pe-s3-receipts" and diff.key == "receipts/order-1.json"
    assert diff.baseline["Metadata"] == {"order": "order-1"} and diff.run["ETag"] != diff.baseline["ETag"]
    assert diff.run["Size"] == diff.baseline["Size"]  # same length, other bytes: judged by content
    # The user's bucket holds only what it held.
    keys = [o["Key"] for o in aws("s3").list_objects_v2(Bucket="pe-s3-receipts").get("Contents", [])]
    assert keys == ["receipts/earlier.json"]


def test_queues_and_buckets_are_named_like_tables_on_the_command_line(lab_server: ServerProcess) -> None:
    aws = client_factory(lab_server.url)
    aws("sqs").create_queue(QueueName="pe-names-outbox")
    lab = orders_lab(lab_server.url, "pe-names", "outbox")
    allow_worker(lab_server.url, "pe-names", ["sqs:GetQueueUrl", "sqs:SendMessage"])
    # Leaving the queue out leaves nothing to judge: every run is the same.
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, kinds=["re-execution"],
                   ignore_tables=["sqs:pe-names-outbox"])
    assert report.business_tables == [] and report.safe
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, kinds=["re-execution"],
                   business_tables=["sqs:pe-names-outbox", lab["orders_table"]])
    assert report.business_tables == sorted(["sqs:pe-names-outbox", lab["orders_table"]])
    assert [(r.kind, r.verdict) for r in report.runs] == [("re-execution", "duplicated")]
    with pytest.raises(ProveError, match="'sqs:pe-names-nothing' does not exist"):
        prove(lab["state_machine"], ORDER, data=lab_server.data_dir, business_tables=["sqs:pe-names-nothing"])


def test_a_topic_is_judged_by_the_queue_its_publishes_reach(lab_server: ServerProcess) -> None:
    aws = client_factory(lab_server.url)
    topic = aws("sns").create_topic(Name="pe-sns-news")["TopicArn"]
    queue_url = aws("sqs").create_queue(QueueName="pe-sns-inbox")["QueueUrl"]
    queue_arn = aws("sqs").get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"]
    aws("sqs").set_queue_attributes(QueueUrl=queue_url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": queue_arn}]})})  # SNS may send only where the queue's policy lets it, as on AWS
    aws("sns").subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    lab = orders_lab(lab_server.url, "pe-sns", "announce", retrying_template())
    allow_worker(lab_server.url, "pe-sns", ["sns:CreateTopic", "sns:Publish"])
    report = prove(lab["state_machine"], ORDER, data=lab_server.data_dir, kinds=["lost-response", "fail-before"])
    # The publish reached the queue through SNS's delivery, which the ledger does not see: the
    # baseline's change to the queue makes it a business effect.
    assert report.business_tables == ["sqs:pe-sns-inbox"]
    (lost,) = [r for r in by_kind(report, "lost-response") if r.point == "StoreOrder#1"]
    assert lost.verdict == "duplicated"
    (extra,) = lost.differences
    assert extra.key.endswith("#2") and json.loads(json.loads(extra.run["Body"])["Message"]) == ORDER
    # The same publish in another run is the same message, though SNS gave it another id and time;
    # and the queue is put back between runs.
    assert [r.verdict for r in by_kind(report, "fail-before")] == ["same", "same"]
