"""SNS and EventBridge behaviour added in session 13 (issue 19): Publish's Subject rule, SNS's data
protection policies and SMS sandbox, EventBridge's global endpoints."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from sns_setup import bodies, make_queue


def _name() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def _error(exc: pytest.ExceptionInfo[Any]) -> tuple[str, str]:
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


# ---------------------------------------------------------------------- SNS Subject
# The API reference: "UTF-8 text with no line breaks or control characters, and less than 100
# characters long".
TAKEN = ("Déjà vu – ünïcödé", "family \U0001F468\u200D\U0001F469\u200D\U0001F467", "no\u00a0break space",
         "日本語の件名")
REFUSED = ("tab\there", "carriage\rreturn", "line\u2028separator", "bell\x07", "next\x85line", "é" * 100)


def test_a_subject_is_utf8_text_without_control_characters_or_line_breaks(sns: Any, sqs: Any) -> None:
    topic = sns.create_topic(Name=_name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn)
    for subject in TAKEN:
        assert sns.publish(TopicArn=topic, Message="m", Subject=subject)["MessageId"]
    for subject in REFUSED:  # what the looser rule must still refuse
        with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
            sns.publish(TopicArn=topic, Message="m", Subject=subject)
        assert _error(exc) == ("InvalidParameter", "Invalid parameter: Subject")
    got = [json.loads(b)["Subject"] for b in bodies(sqs, url)]
    assert sorted(got) == sorted(TAKEN)


def test_a_batch_takes_the_same_subjects_and_refuses_all_for_one_bad_one(sns: Any, sqs: Any) -> None:
    """An entry's bad input refuses the whole batch, as AWS does for its other entry checks (LocalStack's
    AWS-validated test_publish_batch_exceptions); none of the batch is published."""
    topic = sns.create_topic(Name=_name())["TopicArn"]
    url, qarn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=qarn, Attributes={"RawMessageDelivery": "true"})
    entries = [{"Id": f"e{i}", "Message": f"m{i}", "Subject": s} for i, s in enumerate(TAKEN)]
    got = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert sorted(e["Id"] for e in got["Successful"]) == sorted(e["Id"] for e in entries) and not got["Failed"]
    assert len(bodies(sqs, url)) == len(TAKEN)
    with pytest.raises(sns.exceptions.InvalidParameterException) as exc:
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "ok", "Message": "fine", "Subject": TAKEN[1]}, {"Id": "bad", "Message": "m", "Subject": "a\nb"}])
    assert _error(exc) == ("InvalidParameter", "Invalid parameter: Subject")
    assert bodies(sqs, url) == []
