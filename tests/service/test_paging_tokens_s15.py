"""Paging tokens a service never issued, and paging bounds, answered as AWS answers them (they got a
200 with a first page, found by bench/sweep_bad_input.py); real tokens from a first page still page on.

Sources of the expected answers:
- SNS: the SNS API reference lists InvalidParameter ("a request parameter does not comply with the
  associated constraints") for ListTopics/ListSubscriptions*/ListPlatformApplications/
  ListEndpointsByPlatformApplication; SNS words it "Invalid parameter: <Name>". The exact text for
  NextToken is UNCONFIRMED against a recording (several independent emulators answer it so).
- S3 ListBuckets: botocore's s3 model gives MaxBuckets the range 1..10000; S3's answer outside it is
  InvalidArgument "Argument max-buckets must be an integer between 1 and 10000" (the wording onceflow
  already had for 10001; 0 used to slip through as a full page).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

BOGUS = "not-a-token-we-issued"
RAW = botocore.config.Config(parameter_validation=False, retries={"max_attempts": 0})


def _error(call: Callable[[], Any]) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as exc:
        call()
    r = exc.value.response
    return r["ResponseMetadata"]["HTTPStatusCode"], r["Error"]["Code"], r["Error"].get("Message", "")


def _pages(call: Callable[..., dict[str, Any]], items: str, name: str, token_out: str = "NextToken",
           token_in: str = "NextToken") -> tuple[int, list[str]]:
    """Every page of a listing through its own tokens: how many pages, and each item's `name`."""
    seen: list[str] = []
    kwargs: dict[str, Any] = {}
    pages = 0
    while True:
        page = call(**kwargs)
        pages += 1
        seen += [item[name] for item in page[items]]
        if not page.get(token_out):
            return pages, seen
        kwargs = {token_in: page[token_out]}


SNS_REFUSAL = (400, "InvalidParameter", "Invalid parameter: NextToken")


def test_sns_list_topics_refuses_a_made_up_token_and_pages_with_its_own(aws: Callable[..., Any]) -> None:
    sns = aws("sns")
    tag = uuid.uuid4().hex[:8]
    made = {sns.create_topic(Name=f"page-{tag}-{i:03}")["TopicArn"] for i in range(105)}
    assert _error(lambda: sns.list_topics(NextToken=BOGUS)) == SNS_REFUSAL
    # a raw ARN was the token before: it must not be one now
    assert _error(lambda: sns.list_topics(NextToken=sorted(made)[0])) == SNS_REFUSAL
    pages, seen = _pages(sns.list_topics, "Topics", "TopicArn")
    assert pages > 1
    assert len(seen) == len(set(seen))
    assert made <= set(seen)


def test_sns_subscription_listings_refuse_a_made_up_token(aws: Callable[..., Any]) -> None:
    sns = aws("sns")
    topic = sns.create_topic(Name=f"subs-{uuid.uuid4().hex[:8]}")["TopicArn"]
    assert _error(lambda: sns.list_subscriptions(NextToken=BOGUS)) == SNS_REFUSAL
    assert _error(lambda: sns.list_subscriptions_by_topic(TopicArn=topic, NextToken=BOGUS)) == SNS_REFUSAL
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []


def test_sns_platform_listings_refuse_a_made_up_token(aws: Callable[..., Any]) -> None:
    sns = aws("sns")
    assert _error(lambda: sns.list_platform_applications(NextToken=BOGUS)) == SNS_REFUSAL
    app = sns.create_platform_application(Name=f"app-{uuid.uuid4().hex[:8]}", Platform="GCM",
                                          Attributes={"PlatformCredential": "key"})["PlatformApplicationArn"]
    assert _error(lambda: sns.list_endpoints_by_platform_application(
        PlatformApplicationArn=app, NextToken=BOGUS)) == SNS_REFUSAL


@pytest.mark.parametrize("bound", [0, 10001])
def test_s3_list_buckets_refuses_max_buckets_outside_1_to_10000(aws: Callable[..., Any], bound: int) -> None:
    s3 = aws("s3", config=RAW)
    assert _error(lambda: s3.list_buckets(MaxBuckets=bound)) == (
        400, "InvalidArgument", "Argument max-buckets must be an integer between 1 and 10000")


def test_s3_list_buckets_pages_with_max_buckets_1(aws: Callable[..., Any]) -> None:
    s3 = aws("s3")
    tag = uuid.uuid4().hex[:8]
    for i in range(2):
        s3.create_bucket(Bucket=f"pages-{tag}-{i}")
    first = s3.list_buckets(MaxBuckets=1, Prefix=f"pages-{tag}-")
    assert [b["Name"] for b in first["Buckets"]] == [f"pages-{tag}-0"]
    second = s3.list_buckets(MaxBuckets=1, Prefix=f"pages-{tag}-", ContinuationToken=first["ContinuationToken"])
    assert [b["Name"] for b in second["Buckets"]] == [f"pages-{tag}-1"]


# Lambda: the Lambda API reference lists InvalidParameterValueException ("one of the parameters in the
# request is not valid") for every List* taking a Marker; the message text is UNCONFIRMED.
def _lambda_refusal(call: Callable[[], Any]) -> None:
    status, code, _ = _error(call)
    assert (status, code) == (400, "InvalidParameterValueException")


def test_lambda_listings_refuse_a_made_up_marker_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    from lambda_setup import lambda_role, zip_of

    lam = aws("lambda")
    tag = uuid.uuid4().hex[:8]
    role = lambda_role(aws, f"pages-{tag}")
    names = [f"pages-{tag}-{i}" for i in range(3)]
    for name in names:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": zip_of()})
    _lambda_refusal(lambda: lam.list_functions(Marker=BOGUS))
    _lambda_refusal(lambda: lam.list_functions(Marker="MA"))  # base64 of "0": the old positional marker
    _lambda_refusal(lambda: lam.list_functions(FunctionVersion="ALL", Marker=BOGUS))
    _lambda_refusal(lambda: lam.list_aliases(FunctionName=names[0], Marker=BOGUS))
    _lambda_refusal(lambda: lam.list_versions_by_function(FunctionName=names[0], Marker=BOGUS))
    _lambda_refusal(lambda: lam.list_event_source_mappings(Marker=BOGUS))
    _lambda_refusal(lambda: lam.list_function_url_configs(FunctionName=names[0], Marker="7"))
    _lambda_refusal(lambda: lam.list_function_event_invoke_configs(FunctionName=names[0], Marker="7"))
    pages, seen = _pages(lambda **kw: lam.list_functions(MaxItems=2, **kw), "Functions", "FunctionName",
                         token_out="NextMarker", token_in="Marker")
    assert pages > 1 and len(seen) == len(set(seen)) and set(names) <= set(seen)
    for name in names:
        lam.publish_version(FunctionName=name)
    first = lam.list_versions_by_function(FunctionName=names[0], MaxItems=1)
    second = lam.list_versions_by_function(FunctionName=names[0], MaxItems=1, Marker=first["NextMarker"])
    assert [v["Version"] for v in first["Versions"] + second["Versions"]] == ["$LATEST", "1"]


# EventBridge Scheduler: the botocore model's only 4xx for a bad ListSchedules/ListScheduleGroups input
# is ValidationException (400); the message text is UNCONFIRMED.
def test_scheduler_listings_refuse_a_made_up_token_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    sch = aws("scheduler")
    tag = uuid.uuid4().hex[:8]
    made = {f"pages-{tag}-{i}" for i in range(3)}
    for name in made:
        sch.create_schedule_group(Name=name)
    for call in (lambda: sch.list_schedule_groups(NextToken=BOGUS), lambda: sch.list_schedules(NextToken=BOGUS),
                 lambda: sch.list_schedule_groups(NextToken="1")):  # "1" was the token before
        status, code, _ = _error(call)
        assert (status, code) == (400, "ValidationException")
    pages, seen = _pages(lambda **kw: sch.list_schedule_groups(NamePrefix=f"pages-{tag}-", MaxResults=2, **kw),
                         "ScheduleGroups", "Name")
    assert pages == 2 and sorted(seen) == sorted(made)


# EventBridge: ValidationException is the model's 4xx for a bad List* input; the text is UNCONFIRMED.
def test_events_listings_refuse_a_made_up_token_and_page_with_their_own(aws: Callable[..., Any]) -> None:
    events = aws("events")
    tag = uuid.uuid4().hex[:8]
    made = {f"pages-{tag}-{i}" for i in range(3)}
    for name in made:
        events.put_rule(Name=name, EventPattern='{"source": ["pages"]}')
    for call in (lambda: events.list_rules(NextToken=BOGUS), lambda: events.list_rules(NextToken="1"),
                 lambda: events.list_archives(NextToken=BOGUS), lambda: events.list_replays(NextToken=BOGUS),
                 lambda: events.list_connections(NextToken=BOGUS),
                 lambda: events.list_api_destinations(NextToken=BOGUS)):
        status, code, _ = _error(call)
        assert (status, code) == (400, "ValidationException")
    pages, seen = _pages(lambda **kw: events.list_rules(NamePrefix=f"pages-{tag}-", Limit=2, **kw), "Rules", "Name")
    assert pages == 2 and sorted(seen) == sorted(made)
