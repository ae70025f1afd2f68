"""Lambda: functions, and one function's configuration, code SHA, recent invocations and logs."""

from __future__ import annotations

from onceflow.console import lambda_logs
from onceflow.console.app import Response, View
from onceflow.console.aws import NotFound

RECENT = 50  # invocations shown
LOG_EVENTS = 20_000  # log events read to find them


def functions(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("lambda", "ListFunctions", {}, "Functions", token="Marker",
                                         out_token="NextMarker"), [])
    return v.page("functions.html", title="Lambda functions", functions=found)


def function(v: View) -> Response:
    name = v.match["name"]
    if v.aws.available("lambda", "GetFunction"):
        got = v.aws.call("lambda", "GetFunction", {"FunctionName": name})
        config, code = got.get("Configuration") or {}, got.get("Code") or {}
    else:
        config, code = v.aws.call("lambda", "GetFunctionConfiguration", {"FunctionName": name}), {}
    group = ((config.get("LoggingConfig") or {}).get("LogGroup")) or f"/aws/lambda/{config.get('FunctionName', name)}"
    try:
        events = v.optional(lambda: v.aws.all("logs", "FilterLogEvents", {"logGroupName": group}, "events",
                                              limit=LOG_EVENTS), [])
    except NotFound:
        events = []
    invocations = lambda_logs.invocations(events)
    return v.page("function.html", title=name, config=config, code=code, log_group=group,
                  invocations=list(reversed(invocations[-RECENT:])), total_invocations=len(invocations),
                  truncated=len(events) >= LOG_EVENTS)
