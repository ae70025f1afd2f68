"""History events: the record every transition appends, shaped like botocore's HistoryEvent.

An event's details live under one member whose name follows from its type (TaskStateEntered ->
stateEnteredEventDetails, MapIterationStarted -> mapIterationStartedEventDetails, ...). Payload
fields (input, output, parameters, assignedVariables values) are compact JSON strings, as AWS sends.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from json.encoder import encode_basestring as quote  # a JSON string literal, non-ASCII kept
from typing import Any

from onceflow.sfn.store import dumps as compact_json

STATE_TYPES = ("Task", "Choice", "Fail", "Map", "Parallel", "Pass", "Succeed", "Wait")

# Types whose details member is not simply lowerFirst(type) + "EventDetails".
_DETAIL_KEYS = {
    "MapIterationStarted": "mapIterationStartedEventDetails",
    "MapIterationSucceeded": "mapIterationSucceededEventDetails",
    "MapIterationFailed": "mapIterationFailedEventDetails",
    "MapIterationAborted": "mapIterationAbortedEventDetails",
    "MapStateStarted": "mapStateStartedEventDetails",
}
# Event types without a details member at all.
_NO_DETAILS = {
    "MapStateSucceeded", "MapStateFailed", "MapStateAborted", "ParallelStateStarted", "ParallelStateSucceeded",
    "ParallelStateFailed", "ParallelStateAborted", "LambdaFunctionStarted", "MapRunSucceeded", "TaskStateAborted",
    "WaitStateAborted", "MapRunAborted",
}


# Compact JSON as Step Functions writes it (no spaces, non-ASCII kept): json.dumps's very text,
# without its per-call encoder set-up (sfn/store.py).
dumps = compact_json


def detail_key(event_type: str) -> str | None:
    if event_type in _NO_DETAILS:
        return None
    if event_type in _DETAIL_KEYS:
        return _DETAIL_KEYS[event_type]
    for st in STATE_TYPES:
        if event_type == f"{st}StateEntered":
            return "stateEnteredEventDetails"
        if event_type == f"{st}StateExited":
            return "stateExitedEventDetails"
    return event_type[0].lower() + event_type[1:] + "EventDetails"


@dataclass(slots=True)
class Event:
    id: int
    prev: int
    type: str
    ts: float
    details: dict[str, Any] | None
    fiber: str
    # `details` as stored (sfn/store.py encode_details' very text), when the emitter built it
    # alongside: a state's entered and exited events, most of every history.
    text: str | None = None

    def to_api(self, include_data: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "timestamp": datetime.fromtimestamp(self.ts, UTC),
            "type": self.type,
            "id": self.id,
            "previousEventId": self.prev,
        }
        key = detail_key(self.type)
        if key is not None and self.details is not None:
            details = self.details
            if not include_data:
                details = _without_data(details)
            out[key] = details
        return out


_DATA_FIELDS = {"input": "inputDetails", "output": "outputDetails", "parameters": None}


def _without_data(details: dict[str, Any]) -> dict[str, Any]:
    """includeExecutionData=false drops payloads but keeps the *Details markers."""
    return {k: v for k, v in details.items() if k not in _DATA_FIELDS and k != "assignedVariables"}


# ---------------------------------------------------------------------- detail builders
# State names quoted as JSON strings (a machine's few dozen names recur in every execution).
_QUOTED: dict[str, str] = {}
_last_quoted: tuple[str, str] = ("", '""')  # the last payload quoted: a state's output is the next one's input


def _quoted_name(name: str) -> str:
    q = _QUOTED[name] = quote(name)
    if len(_QUOTED) > 4096:  # bounded: names come from definitions
        _QUOTED.clear()
    return q


def _quoted_payload(text: str) -> str:
    global _last_quoted
    last = _last_quoted
    if last[0] is text:
        return last[1]
    q = quote(text)
    _last_quoted = (text, q)
    return q


def entered_details(name: str, text: str) -> tuple[dict[str, Any], str]:
    """entered(name, ..., text) and its stored text (encode_details' very text), built directly."""
    return ({"name": name, "input": text, "inputDetails": {"truncated": False}},
            '{"name":' + (_QUOTED.get(name) or _quoted_name(name)) + ',"input":' + _quoted_payload(text)
            + ',"inputDetails":{"truncated":false}}')


def exited_details(name: str, text: str) -> tuple[dict[str, Any], str]:
    """exited(name, ..., text=text) without assigned variables and its stored text, built directly."""
    return ({"name": name, "output": text, "outputDetails": {"truncated": False}},
            '{"name":' + (_QUOTED.get(name) or _quoted_name(name)) + ',"output":' + _quoted_payload(text)
            + ',"outputDetails":{"truncated":false}}')


def entered(name: str, state_input: Any, text: str | None = None) -> dict[str, Any]:
    """`text`: the input already encoded (the previous state's output)."""
    return {"name": name, "input": dumps(state_input) if text is None else text, "inputDetails": {"truncated": False}}


def exited(name: str, output: Any, assigned: dict[str, Any] | None = None, text: str | None = None) -> dict[str, Any]:
    """`text`: the output already encoded (a state that hands on its input unchanged)."""
    d: dict[str, Any] = {"name": name, "output": dumps(output) if text is None else text,
                         "outputDetails": {"truncated": False}}
    if assigned:  # an Assign of nothing records no assignedVariables (AWS: test_base_cases[BASE_EMPTY])
        d["assignedVariables"] = {k: dumps(v) for k, v in assigned.items()}
        d["assignedVariablesDetails"] = {"truncated": False}
    return d


def error_cause(error: str | None, cause: str | None) -> dict[str, Any]:
    d: dict[str, Any] = {}
    if error is not None:
        d["error"] = error
    if cause is not None:
        d["cause"] = cause
    return d


def output_details(output: Any) -> dict[str, Any]:
    return {"output": dumps(output), "outputDetails": {"truncated": False}}


def emission_order(events: list[Event]) -> list[Event]:
    """Events sorted by id in the order they were emitted: hidden ones (a map run's children,
    negative ids) count down, so they come first and reversed."""
    hidden = [e for e in events if e.id < 0]
    if not hidden:
        return events
    return sorted(hidden, key=lambda e: -e.id) + [e for e in events if e.id >= 0]
