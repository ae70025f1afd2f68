"""`arn:aws:states:::events:putEvents` (and `.waitForTaskToken`): EventBridge's PutEvents as the
state machine's role.

As on AWS, an entry's `Detail` may be a JSON object (the integration sends its JSON text), the
result is PutEvents' response, and a response with failed entries fails the task with
`EventBridge.FailedEntry` (the response as the cause). Service errors become `EventBridge.<Code>`.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import call_service, handed_over
from onceflow.stack import Stack


def _entries(params: Any) -> Any:
    if not isinstance(params, dict) or not isinstance(params.get("Entries"), list):
        return params
    entries = []
    for entry in params["Entries"]:
        if isinstance(entry, dict) and isinstance(entry.get("Detail"), dict | list):
            entry = {**entry, "Detail": json.dumps(entry["Detail"], separators=(",", ":"))}
        entries.append(entry)
    return {**params, "Entries": entries}


def call(stack: Stack, principal: Principal, region: str, params: Any) -> dict[str, Any]:
    handed_over()
    try:
        out = call_service(stack, principal, region, "events", "PutEvents", _entries(params))
    except ServiceError as e:
        raise StatesError(f"EventBridge.{e.code}", f"{e.message} (Service: EventBridge, Status Code: {e.status}, "
                                                   f"Request ID: {uuid.uuid4()})") from None
    if out.get("FailedEntryCount"):
        raise StatesError("EventBridge.FailedEntry", json.dumps(out, separators=(",", ":")))
    return out
