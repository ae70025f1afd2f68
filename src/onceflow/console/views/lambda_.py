"""Lambda: functions, and one function's configuration, code SHA, recent invocations and logs."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from onceflow.console import lambda_logs
from onceflow.console.app import Response, View
from onceflow.console.aws import NotFound

RECENT = 50  # invocations shown
STREAMS = 10  # the most recently written log streams read
STREAM_EVENTS = 2_000  # the latest events read from each


def functions(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("lambda", "ListFunctions", {}, "Functions", token="Marker",
                                         out_token="NextMarker"), [])
    return v.page("functions.html", title="Lambda functions", functions=found, mappings=mappings(v))


def mappings(v: View, function: str | None = None) -> list[dict[str, Any]]:
    """Event source mappings (of one function, or all), each with the console page of its source."""
    params = {"FunctionName": function} if function else {}
    found = v.optional(lambda: v.aws.all("lambda", "ListEventSourceMappings", params, "EventSourceMappings",
                                         token="Marker", out_token="NextMarker"), []) or []
    return [dict(m, SourceHref=source_href(v, m.get("EventSourceArn") or ""),
                 FunctionName=((m.get("FunctionArn") or "").split(":") + [""] * 7)[6]) for m in found]


def source_href(v: View, arn: str) -> str | None:
    """The console page of an event source: a queue, or the table whose stream it is."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[3] != v.region or parts[4] != v.account:
        return None
    if parts[2] == "sqs":
        return v.url(f"/sqs/{quote(parts[5], safe='')}")
    if parts[2] == "dynamodb" and parts[5].startswith("table/"):
        return v.url(f"/dynamodb/{quote(parts[5].split('/')[1], safe='')}")
    return None


def function(v: View) -> Response:
    name = v.match["name"]
    if v.aws.available("lambda", "GetFunction"):
        got = v.aws.call("lambda", "GetFunction", {"FunctionName": name})
        config, code = got.get("Configuration") or {}, got.get("Code") or {}
    else:
        config, code = v.aws.call("lambda", "GetFunctionConfiguration", {"FunctionName": name}), {}
    group = ((config.get("LoggingConfig") or {}).get("LogGroup")) or f"/aws/lambda/{config.get('FunctionName', name)}"
    events = v.optional(lambda: recent_events(v, group), []) or []
    invocations = lambda_logs.invocations(events)
    return v.page("function.html", title=name, config=config, code=code, log_group=group,
                  mappings=mappings(v, config.get("FunctionArn") or name),
                  invocations=list(reversed(invocations[-RECENT:])), total_invocations=len(invocations),
                  streams=len({e.get("logStreamName") for e in events}))


def recent_events(v: View, group: str) -> list[dict[str, Any]]:
    """The latest events of the latest streams (one stream per execution environment), so that
    "recent" stays recent however long the function has been logging."""
    try:
        streams = v.aws.call("logs", "DescribeLogStreams", {"logGroupName": group, "orderBy": "LastEventTime",
                                                             "descending": True, "limit": STREAMS})["logStreams"]
    except NotFound:
        return []  # not invoked yet, or its log group was deleted
    events = []
    for stream in streams:
        got = v.aws.call("logs", "GetLogEvents", {"logGroupName": group, "logStreamName": stream["logStreamName"],
                                                  "startFromHead": False, "limit": STREAM_EVENTS})
        events += [dict(e, logStreamName=stream["logStreamName"]) for e in got.get("events", [])]
    return events
