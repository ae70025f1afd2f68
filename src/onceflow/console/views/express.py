"""EXPRESS executions: listed and drawn from the state machine's execution log (console/express.py),
since Step Functions records no history for them."""

from __future__ import annotations

from typing import Any

from onceflow.console import express, graph, history
from onceflow.console.app import HttpError, Response, View
from onceflow.console.aws import NotFound
from onceflow.console.views import executions, faults
from onceflow.console.views.machines import describe, parse_definition

MAX_LOG_EVENTS = 20_000  # log messages read for one page


def log_note(v: View, machine: dict[str, Any]) -> str | None:
    """The log group EXPRESS executions are read from, noting on the page what the log cannot show."""
    config = machine.get("loggingConfiguration") or {}
    group = express.log_group(config)
    if group is None:
        v.notes.append("EXPRESS executions leave no history in Step Functions; turn on the state machine's "
                       "logging (loggingConfiguration) to see them here")
        return None
    if config.get("level") != "ALL":
        v.notes.append(f"the state machine logs at level {config.get('level')}: only the events of that level "
                       "are shown, and executions without such events are missing")
    if not config.get("includeExecutionData"):
        v.notes.append("the log has no execution data (includeExecutionData is off): inputs and outputs are not shown")
    return group


def read_runs(v: View, machine: dict[str, Any], execution_arn: str | None = None) -> dict[str, express.ExpressRun]:
    group = log_note(v, machine)
    if group is None:
        return {}
    params: dict[str, Any] = {"logGroupName": group, "logStreamNamePrefix": f"states/{machine['name']}/"}
    if execution_arn:
        params["filterPattern"] = '{ $.execution_arn = "' + execution_arn + '" }'
    try:
        events = v.optional(lambda: v.aws.all("logs", "FilterLogEvents", params, "events", limit=MAX_LOG_EVENTS), [])
    except NotFound:
        return {}  # the group was deleted, or nothing was logged yet
    if len(events or []) >= MAX_LOG_EVENTS:
        v.notes.append(f"only the first {MAX_LOG_EVENTS:,} log events were read")
    found = express.runs([e.get("message", "") for e in events or []])
    return {arn: run for arn, run in found.items() if arn.split(":")[6:7] == [machine["name"]]}


def listing(v: View, machine: dict[str, Any]) -> list[dict[str, Any]]:
    """Newest first, as ListExecutions lists STANDARD ones."""
    found = read_runs(v, machine)
    described = [run.description(machine["stateMachineArn"]) for run in found.values()]
    return sorted(described, key=lambda d: d.get("startDate") or 0, reverse=True)


def _load(v: View) -> tuple[dict[str, Any], dict[str, Any]]:
    name, execution = v.match["name"], v.match["execution"]
    machine = describe(v, name)
    if machine.get("type") != "EXPRESS":
        raise HttpError(404, "Not an EXPRESS state machine", f"{name} is a {machine.get('type')} state machine: "
                        "its executions have their own pages.")
    arn = f"arn:aws:states:{v.region}:{v.account}:express:{name}:{execution}"
    runs = read_runs(v, machine, arn)
    run = runs.get(arn)
    if run is None:
        raise NotFound(f"No logged EXPRESS execution {execution} of {name}.")
    return machine, {"execution": run.description(machine["stateMachineArn"]), "events": run.events}


def execution(v: View) -> Response:
    machine, data = _load(v)
    described = data["execution"]
    folded = history.fold(data["events"])
    if described["status"] != "RUNNING":
        folded.status = described["status"]
    definition = parse_definition(machine.get("definition", ""))
    invocations = executions.attach_logs(v, folded, described.get("startDate"), described.get("stopDate"))
    injected = faults.injected(v, folded, described.get("startDate"), described.get("stopDate"))
    first = executions.event_page(v, len(data["events"]))
    shown = data["events"][first:first + executions.EVENTS_PAGE]
    return v.page("execution.html", title=described["name"], machine_name=machine["name"], express=True,
                  drawing=graph.layout(definition), status_url=v.url(v.path + "/status.json"), run=folded,
                  rows=executions.event_rows(shown, folded), first=first, page_size=executions.EVENTS_PAGE,
                  definition=definition, invocations=invocations, injected=injected, family=executions.family(v, data),
                  **data)


def status(v: View) -> Response:
    _, data = _load(v)
    run = history.fold(data["events"])
    return v.json({
        "status": data["execution"]["status"],
        "lastEventId": run.last_event_id,
        "states": {n: {"status": s.status, "attempts": s.attempts} for n, s in run.states.items()},
        "transitions": sorted([list(t) for t in run.transitions]),
    })
