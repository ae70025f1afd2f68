"""SNS behaviour moto's black-box suite checks that AWS shows and onceflow missed (session 10)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from sns_setup import bodies, make_queue


def _subscribed(sns: Any, sqs: Any, policy: dict[str, Any]) -> tuple[str, str]:
    topic = sns.create_topic(Name=f"t-{uuid.uuid4().hex[:10]}")["TopicArn"]
    url, arn = make_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn, Attributes={
        "FilterPolicy": json.dumps(policy), "RawMessageDelivery": "true"})
    return topic, url


def test_string_array_attribute_that_is_not_an_array_is_published(sns: Any, sqs: Any) -> None:
    """AWS takes a String.Array value that is not a JSON array; a JSON number in it matches as the
    one element (moto's test_filtering_string_array_with_number_no_array_match), text that is not
    JSON matches no number (..._with_string_no_array_no_match)."""
    topic, url = _subscribed(sns, sqs, {"price": [100, 500]})
    for body, value in (("number", "100"), ("words", "one hundred"), ("other", "7")):
        got = sns.publish(TopicArn=topic, Message=body, MessageAttributes={
            "price": {"DataType": "String.Array", "StringValue": value}})
        assert got["MessageId"]
    sns.publish(TopicArn=topic, Message="array", MessageAttributes={
        "price": {"DataType": "String.Array", "StringValue": "[1, 500]"}})
    assert sorted(bodies(sqs, url)) == ["array", "number"]


def test_string_array_attribute_with_a_json_string_matches_it(sns: Any, sqs: Any) -> None:
    topic, url = _subscribed(sns, sqs, {"tag": ["red"]})
    sns.publish(TopicArn=topic, Message="quoted", MessageAttributes={
        "tag": {"DataType": "String.Array", "StringValue": '"red"'}})
    sns.publish(TopicArn=topic, Message="bare", MessageAttributes={
        "tag": {"DataType": "String.Array", "StringValue": "blue"}})
    assert bodies(sqs, url) == ["quoted"]
