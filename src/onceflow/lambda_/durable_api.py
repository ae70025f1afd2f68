"""The durable execution operations (2025-12-01 paths): the SDK's checkpoint and state reads, the
execution and history reads, callbacks, StopDurableExecution, Pause/ResumeDurableExecution
(durable_pause.py) and DeleteDurableExecution. Rules live in durable.py, the
driving in durable_driver.py; this turns parameters into their calls and records into answers
(timestamps as datetimes: the wire writes them in the protocol's form)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from onceflow.context import RequestContext
from onceflow.lambda_ import durable, durable_pause, names
from onceflow.lambda_.durable import Execution
from onceflow.lambda_.durable_driver import DurableDriver
from onceflow.lambda_.service import LambdaService
from onceflow.registry import operation

_UTC = dt.UTC
_TIMESTAMPS = ("StartTimestamp", "EndTimestamp", "EventTimestamp", "ScheduledEndTimestamp", "NextAttemptTimestamp",
               "PauseRequestTimestamp", "ResumeRequestTimestamp")  # fmt: skip
_PAYLOADS = ("Payload",)  # what IncludeExecutionData=false leaves out of the history's details


class DurableApi:
    def __init__(self, driver: DurableDriver, service: LambdaService) -> None:
        self.driver = driver
        self.service = service

    # ------------------------------------------------------------------ the SDK's side
    @operation("CheckpointDurableExecution")
    def checkpoint(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["DurableExecutionArn"]
        out = self.driver.checkpoint(arn, params["CheckpointToken"], list(params.get("Updates") or []),
                                     params.get("ClientToken"))  # fmt: skip
        out["NewExecutionState"]["Operations"] = [_dated(op) for op in out["NewExecutionState"]["Operations"]]
        return out

    @operation("GetDurableExecutionState")
    def get_state(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        out = self.driver.state(params["DurableExecutionArn"], params["CheckpointToken"], params.get("Marker"),
                                params.get("MaxItems"))  # fmt: skip
        out["Operations"] = [_dated(op) for op in out["Operations"]]
        return out

    # ------------------------------------------------------------------ reads
    @operation("GetDurableExecution")
    def get_execution(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        execution = self._execution(ctx, params["DurableExecutionArn"])
        out: dict[str, Any] = {
            "DurableExecutionArn": execution.arn, "DurableExecutionName": execution.name,
            "FunctionArn": execution.function_arn, "InputPayload": execution.input,
            "StartTimestamp": _date(execution.started_ms), "Status": execution.status,
        }  # fmt: skip
        if execution.status == durable.SUCCEEDED:
            out["Result"] = execution.result or ""
        elif execution.status not in durable.ACTIVE:
            out["Error"] = execution.error or {}
        if execution.ended_ms is not None:
            out["EndTimestamp"] = _date(execution.ended_ms)
        out["Version"] = execution.version
        pause = durable_pause.details(execution, params.get("IncludeExecutionData") is not False)
        if pause is not None:
            out["PauseDetails"] = _dated(pause)
        return out

    @operation("GetDurableExecutionHistory")
    def get_history(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        execution = self._execution(ctx, params["DurableExecutionArn"])
        events = list(reversed(execution.events)) if params.get("ReverseOrder") else list(execution.events)
        shown, marker = durable.page(events, params.get("Marker"), params.get("MaxItems"))
        with_data = params.get("IncludeExecutionData", True) is not False
        out: dict[str, Any] = {"Events": [_dated(e if with_data else _without_data(e)) for e in shown]}
        if marker is not None:
            out["NextMarker"] = marker
        return out

    @operation("ListDurableExecutionsByFunction")
    def list_executions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        resolved = self.service.resolve(ctx.account, ctx.region, ref.name, ref.qualifier, invoking=False)
        executions = self.driver.store.of_function(ref.key, resolved.executed_version)
        statuses = set(params.get("Statuses") or [])
        after, before = params.get("StartedAfter"), params.get("StartedBefore")
        kept = [
            e for e in executions
            if (not params.get("DurableExecutionName") or e.name == params["DurableExecutionName"])
            and (not statuses or e.status in statuses)
            and (after is None or _date(e.started_ms) >= after)
            and (before is None or _date(e.started_ms) <= before)
        ]  # fmt: skip
        if params.get("ReverseOrder"):
            kept.reverse()
        shown, marker = durable.page(kept, params.get("Marker"), params.get("MaxItems"))
        out: dict[str, Any] = {"DurableExecutions": [_summary(e) for e in shown]}
        if marker is not None:
            out["NextMarker"] = marker
        return out

    # ------------------------------------------------------------------ the outside world
    @operation("SendDurableExecutionCallbackSuccess")
    def callback_success(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        result = params.get("Result")
        text = result.decode("utf-8", "replace") if isinstance(result, (bytes, bytearray)) else result
        self.driver.callback(params["CallbackId"], text or "", None)
        return {}

    @operation("SendDurableExecutionCallbackFailure")
    def callback_failure(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.driver.callback(params["CallbackId"], None, dict(params.get("Error") or {}))
        return {}

    @operation("SendDurableExecutionCallbackHeartbeat")
    def callback_heartbeat(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.driver.heartbeat(params["CallbackId"])
        return {}

    @operation("StopDurableExecution")
    def stop(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["DurableExecutionArn"]
        self._execution(ctx, arn)
        return {"StopTimestamp": _date(self.driver.stop(arn, params.get("Error")))}

    @operation("PauseDurableExecution")
    def pause(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["DurableExecutionArn"]
        self._execution(ctx, arn)
        self.driver.pause(arn, params.get("ClientToken"), params.get("Reason"),
                          params.get("ExecutionTimeoutPaused") is not False)  # fmt: skip
        return {}

    @operation("ResumeDurableExecution")
    def resume(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["DurableExecutionArn"]
        self._execution(ctx, arn)
        self.driver.resume_execution(arn, params.get("ClientToken"), params.get("Reason"))
        return {}

    @operation("DeleteDurableExecution")
    def delete(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["DurableExecutionArn"]
        self._execution(ctx, arn)
        return {"DeletionRequestTimestamp": _date(self.driver.delete(arn))}

    def _execution(self, ctx: RequestContext, arn: str) -> Execution:
        execution = self.driver.store.get(arn)
        if execution is None or execution.key[0] != ctx.account:
            raise durable.not_found(arn)
        return execution


def _date(ms: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(ms / 1000, _UTC)


def _dated(doc: dict[str, Any]) -> dict[str, Any]:
    """A stored operation or event with its epoch-millisecond timestamps as datetimes (nested too)."""
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key.startswith("_"):
            continue
        if key in _TIMESTAMPS and isinstance(value, (int, float)):
            out[key] = _date(int(value))
        elif isinstance(value, dict):
            out[key] = _dated(value)
        else:
            out[key] = value
    return out


def _without_data(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: (_without_data(v) if isinstance(v, dict) else v) for k, v in doc.items() if k not in _PAYLOADS}


def _summary(execution: Execution) -> dict[str, Any]:
    out: dict[str, Any] = {
        "DurableExecutionArn": execution.arn, "DurableExecutionName": execution.name,
        "FunctionArn": execution.function_arn, "Status": execution.status,
        "StartTimestamp": _date(execution.started_ms),
    }  # fmt: skip
    if execution.ended_ms is not None:
        out["EndTimestamp"] = _date(execution.ended_ms)
    return out
