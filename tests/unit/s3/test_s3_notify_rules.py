"""The pure rules of S3 notifications (s3/notify.py): which configuration an event goes to, when
two configurations overlap, and the keys as the Records and EventBridge messages write them."""

from __future__ import annotations

from typing import Any

import pytest

from onceflow.errors import ServiceError
from onceflow.s3.notify import Change, check_shape, eventbridge_event, matching, record_event


def conf(arn: str, events: list[str], prefix: str = "", suffix: str = "") -> dict[str, Any]:
    rules = [{"Name": n, "Value": v} for n, v in (("prefix", prefix), ("suffix", suffix)) if v]
    return {"Id": arn, "QueueArn": arn, "Events": events, "Filter": {"Key": {"FilterRules": rules}}}


@pytest.mark.parametrize(("event", "key", "wanted"), [
    ("ObjectCreated:Put", "logs/a.txt", ["all", "logs-txt"]),
    ("ObjectCreated:Copy", "logs/a.csv", ["all"]),
    ("ObjectRemoved:Delete", "logs/a.txt", ["removed"]),
    ("ObjectTagging:Put", "logs/a.txt", []),
])
def test_an_event_goes_to_the_configurations_whose_events_and_filter_match(event: str, key: str,
                                                                           wanted: list[str]) -> None:
    config = {"QueueConfigurations": [conf("all", ["s3:ObjectCreated:*"], suffix=".csv"),
                                      conf("logs-txt", ["s3:ObjectCreated:Put"], "logs/", ".txt"),
                                      conf("removed", ["s3:ObjectRemoved:Delete"])]}
    config["QueueConfigurations"][0]["Filter"] = {}  # no filter: every key
    assert [arn for _, arn, _ in matching(config, event, key)] == wanted


@pytest.mark.parametrize(("a", "b", "overlap"), [
    (conf("x", ["s3:ObjectCreated:*"], "a/"), conf("y", ["s3:ObjectCreated:Put"], "a/b/"), True),
    (conf("x", ["s3:ObjectCreated:*"], "a/"), conf("y", ["s3:ObjectCreated:Put"], "c/"), False),
    (conf("x", ["s3:ObjectCreated:*"], suffix=".jpg"), conf("y", ["s3:ObjectCreated:*"], suffix=".png"), False),
    (conf("x", ["s3:ObjectCreated:*"]), conf("y", ["s3:ObjectRemoved:*"]), False),
    (conf("x", ["s3:ObjectRemoved:Delete"]), conf("y", ["s3:ObjectRemoved:*"], suffix=".png"), True),
])
def test_configurations_overlap_when_events_and_both_filters_do(a: dict[str, Any], b: dict[str, Any],
                                                                 overlap: bool) -> None:
    config = {"QueueConfigurations": [a], "TopicConfigurations": [{**b, "TopicArn": b.pop("QueueArn")}]}
    if overlap:
        with pytest.raises(ServiceError, match="Configurations overlap"):
            check_shape(config)
    else:
        check_shape(config)


def test_records_url_encode_the_key_and_eventbridge_does_not() -> None:
    c = Change("ObjectRemoved:DeleteMarkerCreated", "b", "dir/a b+c=d.txt", "000000000000", "us-east-1",
               "000000000000", "000000000000", "127.0.0.1", "req", version_id="v1")
    record = record_event(c, "cfg")["Records"][0]
    assert record["s3"]["object"] == {"key": "dir/a+b%2Bc%3Dd.txt", "versionId": "v1", "sequencer": c.sequencer}
    made = eventbridge_event(c)
    assert made is not None
    detail_type, detail = made
    assert detail_type == "Object Deleted" and detail["object"]["key"] == "dir/a b+c=d.txt"
    assert (detail["reason"], detail["deletion-type"]) == ("DeleteObject", "Delete Marker Created")


@pytest.mark.parametrize(("config", "code", "message"), [
    ({"QueueConfigurations": [conf("q", ["s3:Bogus"])]}, "InvalidArgument",
     "The event is not supported for notifications"),
    ({"QueueConfigurations": [{**conf("q", ["s3:ObjectCreated:*"]),
                               "Filter": {"Key": {"FilterRules": [{"Name": "middle", "Value": "x"}]}}}]},
     "InvalidArgument", "filter rule name must be either prefix or suffix"),
    ({"QueueConfigurations": [{**conf("q", ["s3:ObjectCreated:*"]), "Filter": {"Key": {"FilterRules": [
        {"Name": "prefix", "Value": "a"}, {"Name": "prefix", "Value": "b"}]}}}]},
     "InvalidArgument", "Cannot specify more than one prefix rule in a filter."),
    ({"QueueConfigurations": [conf("q", [])]}, "MalformedXML", None),
])
def test_bad_configurations_get_s3s_errors(config: dict[str, Any], code: str, message: str | None) -> None:
    with pytest.raises(ServiceError) as info:
        check_shape(config)
    assert info.value.code == code
    if message is not None:
        assert info.value.message == message
