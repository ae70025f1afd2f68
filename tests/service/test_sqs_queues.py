"""SQS queues through boto3 against a real server: create, URLs, attributes, tags, policies, errors."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def name(prefix: str = "q") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error_of(exc: pytest.ExceptionInfo[ClientError]) -> dict[str, Any]:
    return exc.value.response["Error"]


def test_create_get_url_and_list(aws: Any, endpoint: str) -> None:
    sqs = aws("sqs")
    qn = name()
    url = sqs.create_queue(QueueName=qn)["QueueUrl"]
    assert url == f"{endpoint}/000000000000/{qn}" or url.endswith(f"/{qn}")
    account = url.rstrip("/").split("/")[-2]
    assert account.isdigit() and len(account) == 12
    assert sqs.get_queue_url(QueueName=qn)["QueueUrl"] == url
    assert url in sqs.list_queues(QueueNamePrefix=qn[:6])["QueueUrls"]
    # Creating it again with the same attributes answers the same URL; different ones are refused.
    assert sqs.create_queue(QueueName=qn)["QueueUrl"] == url
    with pytest.raises(ClientError) as exc:
        sqs.create_queue(QueueName=qn, Attributes={"VisibilityTimeout": "5"})
    assert error_of(exc)["Code"] == "QueueAlreadyExists"
    assert isinstance(exc.value, sqs.exceptions.QueueNameExists)


def test_list_queues_pages(aws: Any) -> None:
    sqs = aws("sqs")
    prefix = name("page")
    urls = [sqs.create_queue(QueueName=f"{prefix}-{i}")["QueueUrl"] for i in range(3)]
    first = sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2)
    assert first["QueueUrls"] == urls[:2] and "NextToken" in first
    second = sqs.list_queues(QueueNamePrefix=prefix, MaxResults=2, NextToken=first["NextToken"])
    assert second["QueueUrls"] == urls[2:] and "NextToken" not in second


def test_missing_queue_errors_as_aws(aws: Any, endpoint: str) -> None:
    sqs = aws("sqs")
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as exc:
        sqs.get_queue_url(QueueName=name("nope"))
    err = error_of(exc)
    assert err["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert err["QueryErrorCode"] == "QueueDoesNotExist"
    assert err["Message"] == "The specified queue does not exist."
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.send_message(QueueUrl=f"{endpoint}/000000000000/{name('nope')}", MessageBody="x")


@pytest.mark.parametrize("bad", ["has space", "x" * 81, "dot.in.name", ""])
def test_bad_queue_names_are_refused(aws: Any, bad: str) -> None:
    sqs = aws("sqs")
    with pytest.raises(ClientError) as exc:
        sqs.create_queue(QueueName=bad)
    assert error_of(exc)["Code"] == "InvalidParameterValue"
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert not any(u.endswith("/" + bad) for u in sqs.list_queues().get("QueueUrls", []))


def test_fifo_name_rules(aws: Any) -> None:
    sqs = aws("sqs")
    with pytest.raises(ClientError) as exc:
        sqs.create_queue(QueueName=name(), Attributes={"FifoQueue": "true"})
    assert "must end with .fifo suffix" in error_of(exc)["Message"]
    with pytest.raises(ClientError):
        sqs.create_queue(QueueName=name() + ".fifo")
    url = sqs.create_queue(QueueName=name() + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert got["FifoQueue"] == "true" and got["ContentBasedDeduplication"] == "false"
    assert got["DeduplicationScope"] == "queue" and got["FifoThroughputLimit"] == "perQueue"


def test_attributes_all_and_set(aws: Any) -> None:
    sqs = aws("sqs")
    qn = name()
    url = sqs.create_queue(QueueName=qn, Attributes={"DelaySeconds": "3"})["QueueUrl"]
    got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert got["QueueArn"] == f"arn:aws:sqs:us-east-1:{url.split('/')[-2]}:{qn}"
    assert got["DelaySeconds"] == "3" and got["VisibilityTimeout"] == "30"
    assert got["MaximumMessageSize"] == "1048576" and got["MessageRetentionPeriod"] == "345600"
    assert got["ApproximateNumberOfMessages"] == "0"
    assert int(got["CreatedTimestamp"]) > 1_600_000_000
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "7"})
    one = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert one == {"VisibilityTimeout": "7"}


def test_bad_attributes_change_nothing(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "99999"})
    assert error_of(exc)["Code"] == "InvalidAttributeValue"
    with pytest.raises(ClientError) as exc:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"Nonsense": "1"})
    assert error_of(exc)["Code"] == "InvalidAttributeName"
    with pytest.raises(ClientError) as exc:
        sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Nonsense"])
    assert error_of(exc)["Code"] == "InvalidAttributeName"
    got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["VisibilityTimeout"])["Attributes"]
    assert got == {"VisibilityTimeout": "30"}


def test_tags(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name(), tags={"team": "a"})["QueueUrl"]
    sqs.tag_queue(QueueUrl=url, Tags={"env": "dev"})
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "a", "env": "dev"}
    sqs.untag_queue(QueueUrl=url, TagKeys=["team"])
    assert sqs.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "dev"}


def test_permissions_build_the_queue_policy(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.add_permission(QueueUrl=url, Label="send", AWSAccountIds=["111122223333"], Actions=["SendMessage"])
    policy = json.loads(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"])
    assert policy["Statement"][0]["Sid"] == "send"
    assert policy["Statement"][0]["Principal"] == {"AWS": "arn:aws:iam::111122223333:root"}
    assert policy["Statement"][0]["Action"] == "SQS:SendMessage"
    sqs.remove_permission(QueueUrl=url, Label="send")
    assert "Policy" not in sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    with pytest.raises(ClientError):
        sqs.remove_permission(QueueUrl=url, Label="send")


def test_delete_then_recreate_too_soon(aws: Any) -> None:
    sqs = aws("sqs")
    qn = name()
    url = sqs.create_queue(QueueName=qn)["QueueUrl"]
    sqs.delete_queue(QueueUrl=url)
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName=qn)
    with pytest.raises(ClientError) as exc:
        sqs.create_queue(QueueName=qn)
    assert error_of(exc)["Code"] == "AWS.SimpleQueueService.QueueDeletedRecently"


def test_purge_and_its_interval(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="one")
    sqs.purge_queue(QueueUrl=url)
    assert sqs.receive_message(QueueUrl=url).get("Messages") is None
    with pytest.raises(ClientError) as exc:
        sqs.purge_queue(QueueUrl=url)
    assert error_of(exc)["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
