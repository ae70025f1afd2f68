"""CloudWatch Logs: log groups, a group's streams and its events with a filter box, one stream."""

from __future__ import annotations

from typing import Any

from onceflow.console.app import HttpError, Response, View
from onceflow.errors import ServiceError

EVENTS_PAGE = 200


def groups(v: View) -> Response:
    params: dict[str, Any] = {}
    if v.arg("prefix"):
        params["logGroupNamePrefix"] = v.arg("prefix")
    found = v.optional(lambda: v.aws.all("logs", "DescribeLogGroups", params, "logGroups"), [])
    return v.page("log_groups.html", title="Log groups", groups=found, prefix=v.arg("prefix"))


def _name(v: View, param: str) -> str:
    value = v.arg(param)
    if not value:
        raise HttpError(400, f"Missing {param}", f"The page needs the {param} query parameter.")
    return value


def group(v: View) -> Response:
    name = _name(v, "name")
    streams = v.optional(lambda: v.aws.all("logs", "DescribeLogStreams", {
        "logGroupName": name, "orderBy": "LastEventTime", "descending": True}, "logStreams", limit=100), [])
    params: dict[str, Any] = {"logGroupName": name, "limit": EVENTS_PAGE}
    if v.arg("filter"):
        params["filterPattern"] = v.arg("filter")
    if v.arg("next"):
        params["nextToken"] = v.arg("next")
    try:
        result, problem = v.optional(lambda: v.aws.call("logs", "FilterLogEvents", params), {}) or {}, ""
    except ServiceError as err:  # a filter pattern Logs refuses: keep the page, show why
        result, problem = {}, err.message
    return v.page("log_group.html", 400 if problem else 200, title=name, group_name=name, streams=streams,
                  events=result.get("events", []), next_token=result.get("nextToken", ""), filter=v.arg("filter"),
                  problem=problem)


def stream(v: View) -> Response:
    group_name, stream_name = _name(v, "group"), _name(v, "stream")
    params: dict[str, Any] = {"logGroupName": group_name, "logStreamName": stream_name, "startFromHead": True,
                              "limit": 1000}
    if v.arg("next"):
        params["nextToken"] = v.arg("next")
    result = v.aws.call("logs", "GetLogEvents", params)
    nxt = result.get("nextForwardToken", "")
    more = bool(result.get("events")) and nxt and nxt != v.arg("next")
    return v.page("log_stream.html", title=stream_name, group_name=group_name, stream_name=stream_name,
                  events=result.get("events", []), next_token=nxt if more else "")
