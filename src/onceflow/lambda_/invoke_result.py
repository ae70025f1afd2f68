"""What an invocation answers: the payload checks before it runs (size is in errors.py, JSON here),
the ClientContext the handler gets, and the response shaped from the worker's outcome.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from onceflow.lambda_ import errors
from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.pool import Outcome
from onceflow.lambda_.service import Resolved
from onceflow.patterns import jackson

_MAX_RESPONSE = protocol.MAX_RESULT_BYTES  # what Lambda's error message names as the response limit


def response(resolved: Resolved, outcome: Outcome, tail: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"StatusCode": 200}
    payload = outcome.payload
    if outcome.ok and (outcome.too_large or len(payload) > _MAX_RESPONSE):
        outcome.ok = False
        payload = json.dumps({
            "errorMessage": f"Response payload size exceeded maximum allowed payload size ({_MAX_RESPONSE} bytes).",
            "errorType": "Function.ResponseSizeTooLarge",
        }, separators=(",", ":")).encode()  # fmt: skip
    if not outcome.ok:
        out["FunctionError"] = "Unhandled"
    if tail is not None:
        out["LogResult"] = tail
    out["ExecutedVersion"] = resolved.executed_version
    out["Payload"] = payload if outcome.ok or payload else b"null"
    return out


def check_json(payload: bytes) -> None:
    refused = jackson.refusal(payload)  # Jackson's words, as AWS quotes them (patterns/jackson.py)
    if refused is not None:
        raise errors.bad_json_payload(f"Could not parse payload into json: {refused}")


def parse_client_context(value: str | None) -> Any:
    if not value:
        return None
    try:
        return json.loads(base64.b64decode(value))
    except (ValueError, binascii.Error):
        return None
