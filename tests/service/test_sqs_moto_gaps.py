"""SQS details moto's black-box suite checks and AWS shows: the error type header, a queue name
as QueueUrl, dead-letter targets checked when set, tag and permission argument errors."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from botocore.exceptions import ClientError


def name(prefix: str = "gap") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_unknown_queue_error_names_its_shape_in_the_header(aws: Any) -> None:
    sqs = aws("sqs")
    with pytest.raises(ClientError) as exc:
        sqs.get_queue_url(QueueName=name())
    response = exc.value.response
    assert response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    headers = response["ResponseMetadata"]["HTTPHeaders"]
    assert headers["x-amzn-errortype"] == "com.amazonaws.sqs#QueueDoesNotExist"
    assert headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"


def test_queue_name_is_accepted_as_queue_url(aws: Any) -> None:
    sqs = aws("sqs")
    qn = name()
    sqs.create_queue(QueueName=qn)
    sqs.send_message(QueueUrl=qn, MessageBody="by name")
    got = sqs.receive_message(QueueUrl=qn)["Messages"]
    assert [m["Body"] for m in got] == ["by name"]
    with pytest.raises(ClientError) as exc:
        sqs.send_message(QueueUrl=name("missing"), MessageBody="x")
    assert exc.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_dead_letter_target_must_exist_and_match_the_type(aws: Any) -> None:
    sqs = aws("sqs")
    standard_url = sqs.create_queue(QueueName=name("dlq"))["QueueUrl"]
    standard_arn = sqs.get_queue_attributes(QueueUrl=standard_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"]
    missing = standard_arn.rsplit(":", 1)[0] + ":" + name("nope")
    for target, fifo, reason in [(missing, False, "Dead letter target does not exist."),
                                 (standard_arn, True, "Dead-letter queue must be same type of queue as the source.")]:
        qn = name() + (".fifo" if fifo else "")
        attributes = {"RedrivePolicy": json.dumps({"deadLetterTargetArn": target, "maxReceiveCount": 2})}
        if fifo:
            attributes["FifoQueue"] = "true"
        with pytest.raises(ClientError) as exc:
            sqs.create_queue(QueueName=qn, Attributes=attributes)
        error = exc.value.response["Error"]
        assert error["Code"] == "InvalidParameterValue"
        assert error["Message"].endswith(f"for parameter RedrivePolicy is invalid. Reason: {reason}")
        with pytest.raises(ClientError):
            sqs.get_queue_url(QueueName=qn)  # nothing was created
    # SetQueueAttributes checks the same, and leaves the queue as it was.
    source = sqs.create_queue(QueueName=name())["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs.set_queue_attributes(QueueUrl=source, Attributes={
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": missing, "maxReceiveCount": 2})})
    assert exc.value.response["Error"]["Message"].endswith("Reason: Dead letter target does not exist.")
    assert "RedrivePolicy" not in sqs.get_queue_attributes(QueueUrl=source, AttributeNames=["All"])["Attributes"]
    sqs.set_queue_attributes(QueueUrl=source, Attributes={
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": standard_arn, "maxReceiveCount": 2})})


def test_tag_and_permission_argument_errors(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    with pytest.raises(ClientError) as exc:
        sqs.tag_queue(QueueUrl=url, Tags={})
    assert exc.value.response["Error"] == {**exc.value.response["Error"], "Code": "MissingParameter",
                                           "Message": "The request must contain the parameter Tags."}
    with pytest.raises(ClientError) as exc:
        sqs.untag_queue(QueueUrl=url, TagKeys=[])
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert exc.value.response["Error"]["Message"] == "Tag keys must be between 1 and 128 characters in length."
    with pytest.raises(ClientError) as exc:
        sqs.add_permission(QueueUrl=url, Label="owner-only", AWSAccountIds=["111111111111"],
                           Actions=["RemovePermission"])
    assert exc.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert exc.value.response["Error"]["Message"] == (
        "Value SQS:RemovePermission for parameter ActionName is invalid. Reason: Only the queue owner is allowed "
        "to invoke this action.")
    assert "Policy" not in sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert "Tags" not in sqs.list_queue_tags(QueueUrl=url)


def test_add_permission_argument_errors(aws: Any) -> None:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=name())["QueueUrl"]
    cases = [
        ({"AWSAccountIds": ["111111111111"], "Actions": []}, 400, "MissingParameter",
         "The request must contain the parameter Actions."),
        ({"AWSAccountIds": [], "Actions": ["ReceiveMessage"]}, 400, "InvalidParameterValue",
         "Value [] for parameter PrincipalId is invalid. Reason: Unable to verify."),
        ({"AWSAccountIds": ["111111111111"], "Actions": ["SendMessage", "ReceiveMessage", "DeleteMessage",
                                                         "ChangeMessageVisibility", "GetQueueAttributes",
                                                         "GetQueueUrl", "PurgeQueue", "ListQueueTags"]},
         403, "OverLimit", "8 Actions were found, maximum allowed is 7."),
    ]
    for args, status, code, message in cases:
        with pytest.raises(ClientError) as exc:
            sqs.add_permission(QueueUrl=url, Label="p", **args)
        response = exc.value.response
        assert (response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"],
                response["Error"]["Message"]) == (status, code, message)
    assert "Policy" not in sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
