"""How the runtime reports a failure, as AWS's Python runtime interface client does: the error
document (`errorMessage`, `errorType`, `requestId`, `stackTrace`) with its file names as Lambda
shows them (paths.py), and the `[ERROR]` log event."""

from __future__ import annotations

import json
import os
import time
import traceback
from typing import TYPE_CHECKING, Any

from onceflow.lambda_.runtime.logstreams import json_logs
from onceflow.lambda_.runtime.paths import as_var_task

if TYPE_CHECKING:
    from onceflow.lambda_.runtime.logstreams import Channel

# What the runtime logs at WARNING before the [ERROR] event when init fails (the runtime interface
# client's lambda_literals; AWS's 2025-2026 logs show it as `[WARNING]\t<time>\t\tLAMBDA_WARNING: ...`).
UNHANDLED_WARNING = (
    "LAMBDA_WARNING: Unhandled exception. The most likely cause is an issue in the function code. However, in rare "
    "cases, a Lambda runtime update can cause unexpected function behavior. For functions using managed runtimes, "
    "runtime updates can be triggered by a function change, or can be applied automatically. To determine if the "
    "runtime has been updated, check the runtime version in the INIT_START log entry. If this error correlates with "
    "a change in the runtime version, you may be able to mitigate this error by temporarily rolling back to the "
    "previous runtime version. For more information, see https://docs.aws.amazon.com/lambda/latest/dg/"
    "runtimes-update.html"
)
# The Amazon Linux 2 Python runtimes' bootstrap also prints the warning, as a plain line, before the
# [ERROR] event of a failed invocation (recorded on python3.9, test_lambda_destinations
# test_dead_letter_queue); the runtime interface client of python3.12 and later does not.
# UNCONFIRMED for python3.10 / python3.11, which share python3.9's bootstrap.
_WARNS_ON_INVOKE = frozenset({"AWS_Lambda_python3.8", "AWS_Lambda_python3.9", "AWS_Lambda_python3.10",
                              "AWS_Lambda_python3.11"})  # fmt: skip
_ERROR_INDENT = "\u00a0"  # the runtime indents traceback lines in the [ERROR] event with NO-BREAK SPACE
_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the runtime's own frames are not shown


class Fault(Exception):
    """A runtime-level failure (Runtime.ImportModuleError, Runtime.HandlerNotFound, ...)."""

    def __init__(self, error_type: str, message: str, trace: list[str] | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace or []


def error_doc(message: str, error_type: str, trace: list[str], request_id: str) -> dict[str, Any]:
    return {"errorMessage": message or "", "errorType": error_type or "", "requestId": request_id, "stackTrace": trace}


def exception_doc(exc: BaseException, request_id: str) -> dict[str, Any]:
    frames: list[traceback.FrameSummary] = list(traceback.extract_tb(exc.__traceback__))
    for i, frame in enumerate(frames):  # drop the runtime's own frames, as the RIC drops bootstrap.py
        if not frame.filename.startswith(_RUNTIME_DIR):
            frames = frames[i:]
            break
    else:
        frames = traceback.StackSummary.from_list([])
    return error_doc(str(exc), type(exc).__name__, traceback.format_list(as_var_task(frames)), request_id)


def warn_invoke_error(channel: Channel) -> None:
    """The runtime's LAMBDA_WARNING line before a failed invocation's [ERROR] event, where it writes one."""
    if not json_logs() and os.environ.get("AWS_EXECUTION_ENV") in _WARNS_ON_INVOKE:
        channel.log(UNHANDLED_WARNING + "\n")


def log_error(channel: Channel, doc: dict[str, Any]) -> None:
    """The `[ERROR] Type: message` event with the traceback, one event, indented with U+00A0
    (in the JSON log format: the error document as one JSON record)."""
    if json_logs():
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        channel.log(json.dumps({"timestamp": stamp, "log_level": "ERROR", **doc}))
        return
    head = "[ERROR]"
    if doc["errorType"]:
        head += " " + doc["errorType"]
    if doc["errorMessage"]:
        head += (":" if doc["errorType"] else "") + " " + doc["errorMessage"]
    lines = [head, "Traceback (most recent call last):"]
    for element in doc["stackTrace"]:
        for line in element.splitlines() or [""]:
            stripped = line.lstrip(" ")
            lines.append(_ERROR_INDENT * (len(line) - len(stripped)) + stripped)
    channel.log("\n".join(lines))
