"""Executions: the coloured graph, the event history, each Lambda attempt's log lines, the live
status endpoint, and the idempotency views (per execution and per business key)."""

from __future__ import annotations

import json
import time
from typing import Any

from onceflow.console import graph, history, idempotency, lambda_logs, render
from onceflow.console.app import HttpError, Response, View
from onceflow.console.aws import NotFound
from onceflow.console.render import epoch_ms
from onceflow.console.views import faults
from onceflow.console.views.machines import describe, parse_definition
from onceflow.errors import ServiceError

MAX_EVENTS = 25_000  # Step Functions' own history limit
KEY_SCAN = 200  # executions examined by the business-key view
NOT_TRUNCATED = {"truncated": False}
MAX_WRITES = 5000  # ledger rows shown per execution (a large Map's page stays light)
MAX_ELSEWHERE = 500  # writes whose item is looked up in other executions' ledger rows
EVENTS_PAGE = 1000  # history rows per page: keeps a 25,000-event execution's page light
MAX_CHILDREN = 200  # a map run's child executions linked from its parent's page


def load(v: View, machine: str, name: str) -> dict[str, Any]:
    """Everything the execution pages show, read through the Step Functions and Logs APIs."""
    arn = v.aws.execution_arn(machine, name)
    described = v.aws.call("stepfunctions", "DescribeExecution", {"executionArn": arn})
    events = v.aws.all("stepfunctions", "GetExecutionHistory", {"executionArn": arn, "maxResults": 1000},
                       "events", limit=MAX_EVENTS)
    folded = history.fold(events)
    if described.get("status") and described["status"] != "RUNNING":
        folded.status = described["status"]
    definition = v.optional(lambda: _definition(v, machine, arn), {}) or {}
    invocations = attach_logs(v, folded, described.get("startDate"), described.get("stopDate"))
    injected = faults.injected(v, folded, described.get("startDate"), described.get("stopDate"))
    return {"execution": described, "events": events, "run": folded, "definition": definition,
            "invocations": invocations, "injected": injected}


def _definition(v: View, machine: str, arn: str) -> dict[str, Any]:
    try:
        return parse_definition(describe(v, machine).get("definition", ""))
    except NotFound:  # the machine was deleted: the execution still names its definition
        found = v.aws.call("stepfunctions", "DescribeStateMachineForExecution", {"executionArn": arn})
        return parse_definition(found.get("definition", ""))


def attach_logs(v: View, run: history.Folded, start: Any, stop: Any) -> dict[int, lambda_logs.Invocation]:
    """Each Lambda attempt's invocation (by TaskScheduled event id), found in /aws/lambda/<fn>."""
    functions = sorted({a.function for a in run.attempts if a.function})
    begin = (epoch_ms(start) or 0) - 2000
    end = (epoch_ms(stop) or int(time.time() * 1000)) + 10_000
    found: dict[int, lambda_logs.Invocation] = {}
    for fn in functions:
        params = {"logGroupName": f"/aws/lambda/{fn}", "startTime": max(0, begin), "endTime": end}
        try:
            events = v.optional(lambda p=params: v.aws.all("logs", "FilterLogEvents", p, "events", limit=20_000), [])
        except NotFound:
            events = []  # no log group: never invoked, or its logs were deleted
        invocations = lambda_logs.invocations(events)
        by_id = lambda_logs.by_request_id(invocations)
        claimed = set()
        attempts = [a for a in run.attempts if a.function == fn]
        for attempt in attempts:
            inv = by_id.get(attempt.request_id) if attempt.request_id else None
            if inv is not None:
                found[attempt.event_id] = inv
                claimed.add(inv.request_id)
        for attempt in attempts:  # results without a request id (a Lambda ARN as Resource): match by time
            if attempt.event_id in found or attempt.error.startswith("Lambda.") or attempt.started is None:
                continue
            lo, hi = (epoch_ms(attempt.started) or 0) - 1000, (epoch_ms(attempt.ended) or end) + 1000
            for inv in invocations:
                if inv.request_id not in claimed and lo <= inv.started <= hi:
                    found[attempt.event_id] = inv
                    claimed.add(inv.request_id)
                    break
    return found


def event_rows(events: list[dict[str, Any]], run: history.Folded) -> list[tuple[Any, ...]]:
    """The history table's rows, computed once in Python: (id, type, step, time, error, summary, fields).
    Fields are shown as Step Functions stores them (compact JSON text), without the noise of
    `{"truncated": false}`; the template escapes every one of them."""
    rows = []
    for event in events:
        det = history.details(event)
        fields = [(k, render.clip(render.compact(value))) for k, value in det.items() if value != NOT_TRUNCATED]
        cause = det.get("cause")
        rows.append((event.get("id"), event.get("type", ""), run.step_of.get(event.get("id", 0), ""),
                     render.timestamp(event.get("timestamp")), det.get("error") or "",
                     render.first_line(cause) if cause else "details", fields))
    return rows


def _machine(v: View) -> str:
    """The page's state machine name: <machine>/<label> for a map run's child."""
    label = v.match.get("label")
    return f"{v.match['name']}/{label}" if label else v.match["name"]


def _machine_path(machine: str) -> str:
    """A machine name in a page's path, each part quoted (a map run's child has two)."""
    return "/".join(_q(part) for part in machine.split("/", 1))


def execution(v: View) -> Response:
    machine, name = _machine(v), v.match["execution"]
    data = load(v, machine, name)
    drawing = graph.layout(data["definition"])
    first = event_page(v, len(data["events"]))
    shown = data["events"][first:first + EVENTS_PAGE]  # the graph and attempts use them all
    return v.page("execution.html", title=name, machine_name=machine, drawing=drawing,
                  status_url=v.url(f"/states/{_machine_path(machine)}/executions/{_q(name)}/status.json"),
                  rows=event_rows(shown, data["run"]), first=first, page_size=EVENTS_PAGE, express=False,
                  family=family(v, data), **data)


STARTED_BY = "AWS_STEP_FUNCTIONS_STARTED_BY_EXECUTION_ID"  # what states:startExecution puts in a child's input


def family(v: View, data: dict[str, Any]) -> dict[str, Any]:
    """The execution that started this one (from the child's input, as Step Functions passes it) and the
    executions this one started (from its states:startExecution task results), each with its page."""
    parent = None
    try:
        given = json.loads(data["execution"].get("input") or "null")
    except ValueError:
        given = None
    if isinstance(given, dict) and isinstance(given.get(STARTED_BY), str):
        parent = {"arn": given[STARTED_BY], "href": execution_href(v, given[STARTED_BY])}
    children: dict[str, dict[str, Any]] = {}
    for event in data["events"]:
        det = history.details(event)
        if det.get("resourceType") != "states" or not str(det.get("resource", "")).startswith("startExecution"):
            continue
        try:
            out = json.loads(det.get("output") or "null")
        except ValueError:
            continue
        arn = out.get("ExecutionArn") if isinstance(out, dict) else None
        if isinstance(arn, str) and arn not in children:
            children[arn] = {"arn": arn, "href": execution_href(v, arn)}
    run_arn = data["execution"].get("mapRunArn")
    if parent is None and isinstance(run_arn, str):  # a Distributed Map's child: its map run's execution
        run = v.optional(lambda: v.aws.call("stepfunctions", "DescribeMapRun", {"mapRunArn": run_arn}), {}) or {}
        if run.get("executionArn"):
            parent = {"arn": run["executionArn"], "href": execution_href(v, run["executionArn"]), "map_run": run_arn}
    runs = [map_run(v, history.details(e)["mapRunArn"]) for e in data["events"]
            if e.get("type") == "MapRunStarted" and history.details(e).get("mapRunArn")]
    return {"parent": parent, "children": list(children.values()), "map_runs": runs}


def map_run(v: View, arn: str) -> dict[str, Any]:
    """A map run this execution started: its counts and its child executions (the newest first)."""
    described = v.optional(lambda: v.aws.call("stepfunctions", "DescribeMapRun", {"mapRunArn": arn}), {}) or {}
    listed = v.optional(lambda: v.aws.all("stepfunctions", "ListExecutions", {"mapRunArn": arn, "maxResults": 100},
                                          "executions", limit=MAX_CHILDREN), []) or []
    children = [{"arn": c["executionArn"], "name": c.get("name", ""), "status": c.get("status", ""),
                 "href": execution_href(v, c["executionArn"])} for c in listed]
    return {"arn": arn, "status": described.get("status", ""), "counts": described.get("executionCounts") or {},
            "children": children}


def execution_href(v: View, arn: str) -> str | None:
    """The console page of an execution ARN in this page's account and region, or None."""
    parts = arn.split(":")
    if len(parts) < 8 or parts[:3] != ["arn", "aws", "states"] or parts[3] != v.region or parts[4] != v.account:
        return None
    if parts[5] == "execution":
        return v.url(f"/states/{_machine_path(parts[6])}/executions/{_q(parts[7])}")
    if parts[5] == "express" and "/" not in parts[6]:  # a map run's EXPRESS child has no log page
        return v.url(f"/states/{_q(parts[6])}/express/{_q(':'.join(parts[7:]))}")
    return None


def event_page(v: View, total: int) -> int:
    """The index of the first history event shown: ?from=<event id>, in pages of EVENTS_PAGE."""
    text = v.arg("from", "1")
    if not text.isdigit() or not 1 <= int(text) <= max(1, total):
        raise HttpError(400, "Bad event id", f"The history has events 1 to {total}.")
    return (int(text) - 1) // EVENTS_PAGE * EVENTS_PAGE


def status(v: View) -> Response:
    """What the live page polls: the status and each state's colour, as JSON."""
    arn = v.aws.execution_arn(_machine(v), v.match["execution"])
    described = v.aws.call("stepfunctions", "DescribeExecution", {"executionArn": arn})
    events = v.aws.all("stepfunctions", "GetExecutionHistory", {"executionArn": arn, "maxResults": 1000},
                       "events", limit=MAX_EVENTS)
    run = history.fold(events)
    return v.json({
        "status": described.get("status"),
        "lastEventId": run.last_event_id,
        "states": {n: {"status": s.status, "attempts": s.attempts} for n, s in run.states.items()},
        "transitions": sorted([list(t) for t in run.transitions]),
    })


def ledger_rows(v: View, data: dict[str, Any]) -> tuple[list[idempotency.Row], list[idempotency.Write]]:
    """The execution's attempts with the writes the effect ledger attributed to them (prove/ledger.py)."""
    ledger = v.stack.ports.ledger.get()
    arn = data["execution"]["executionArn"]
    if ledger is None:
        v.notes.append("the effect ledger is not installed in this server: no write is attributed")
        entries: list[dict[str, Any]] = []
    else:
        entries = ledger.writes_of(arn, MAX_WRITES + 1)
        if len(entries) > MAX_WRITES:
            v.notes.append(f"only this execution's first {MAX_WRITES:,} business writes are shown")
            entries = entries[:MAX_WRITES]
    rows, stray = idempotency.attribute(data["run"].attempts, data["events"], entries, data["invocations"])
    if ledger is not None:
        for write in ([w for r in rows for w in r.writes] + stray)[:MAX_ELSEWHERE]:
            others = ledger.other_writers(arn, *write.item)
            write.others = [o.rsplit(":", 1)[-1] for o in others]
    return rows, stray


def idempotency_page(v: View) -> Response:
    machine, name = v.match["name"], v.match["execution"]
    data = load(v, machine, name)
    rows, stray = ledger_rows(v, data)
    key_field = v.arg("field", "id")
    key = _business_key(data["execution"].get("input", ""), key_field)
    items = business_items(v, rows, key_field, key) if key is not None else []
    return v.page("idempotency.html", title=f"{name}: idempotency", machine_name=machine, executions=[
        {"execution": data["execution"], "rows": rows, "stray": stray}], summary=idempotency.summary(rows),
        key_field=key_field, key=key, items=items, scanned=0)


def business_key(v: View) -> Response:
    """Every execution of a machine whose input carries this business key, with its attempts."""
    machine = v.match["name"]
    key_field, key = v.arg("field", "id"), v.arg("value")
    if not key_field:
        raise HttpError(400, "Missing field", "Name the input field that holds the business key.")
    described = describe(v, machine)
    arn = described["stateMachineArn"]
    listed = [] if described.get("type") == "EXPRESS" else v.aws.all(
        "stepfunctions", "ListExecutions", {"stateMachineArn": arn}, "executions", limit=KEY_SCAN)
    shown, all_rows = [], []
    for summary in reversed(listed) if key else []:  # oldest first: the order the writes happened in
        described = v.aws.call("stepfunctions", "DescribeExecution", {"executionArn": summary["executionArn"]})
        if _business_key(described.get("input", ""), key_field) != key:
            continue
        data = load(v, machine, described["name"])
        rows, stray = ledger_rows(v, data)
        shown.append({"execution": described, "rows": rows, "stray": stray})
        all_rows += rows
    items = business_items(v, all_rows, key_field, key) if key else []
    return v.page("idempotency.html", title=f"{machine}: business key", machine_name=machine, executions=shown,
                  summary=idempotency.summary(all_rows), key_field=key_field, key=key or None, items=items,
                  scanned=len(listed))


def _q(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _business_key(text: str, key_field: str) -> str | None:
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    found = value.get(key_field) if isinstance(value, dict) else None
    return found if isinstance(found, str) else (json.dumps(found) if isinstance(found, int | float) else None)


def business_items(v: View, rows: list[idempotency.Row], key_field: str, key: str) -> list[dict[str, Any]]:
    """The item under the business key in each table the ledger saw written, or the worker's environment names."""
    functions = sorted({r.attempt.function for r in rows if r.attempt.function})
    tables: list[str] = list(dict.fromkeys(w.entry["resource"] for r in rows for w in r.writes
                                           if w.entry["service"] == "dynamodb"))
    for fn in functions:
        try:
            config = v.optional(lambda f=fn: v.aws.call("lambda", "GetFunctionConfiguration", {"FunctionName": f}), {})
        except NotFound:
            continue
        variables = ((config or {}).get("Environment") or {}).get("Variables") or {}
        tables += [t for t in variables.values() if isinstance(t, str) and t not in tables]
    found = []
    for table in tables:
        item = v.optional(lambda t=table: _item_by_key(v, t, key_field, key))
        if item is not False and item is not None:
            found.append({"table": table, "item": item.get("Item")})
    return found


def _item_by_key(v: View, table: str, key_field: str, key: str) -> Any:
    try:
        described = v.aws.call("dynamodb", "DescribeTable", {"TableName": table})["Table"]
    except NotFound:
        return False  # an environment value that is not a table
    schema = described.get("KeySchema") or []
    if len(schema) != 1 or schema[0].get("AttributeName") != key_field:
        return False
    kinds = {d["AttributeName"]: d["AttributeType"] for d in described.get("AttributeDefinitions") or []}
    kind = kinds.get(key_field, "S")
    if kind not in ("S", "N"):
        return False
    try:
        return v.aws.call("dynamodb", "GetItem", {"TableName": table, "Key": {key_field: {kind: key}}})
    except ServiceError:
        return False  # e.g. a key that is not a number for an N key
