"""How the runtime reports a failure, as AWS's Python runtime interface client does: the error
document (`errorMessage`, `errorType`, `requestId`, `stackTrace`), the `[ERROR]` log event, and the
file names of a traceback as Lambda shows them (/var/task, /opt, /var/runtime, /var/lang)."""

from __future__ import annotations

import json
import os
import sysconfig
import time
import traceback
from typing import TYPE_CHECKING, Any

from onceflow.lambda_.runtime.logstreams import json_logs

if TYPE_CHECKING:
    from onceflow.lambda_.runtime.logstreams import Channel

# The packages the Lambda Python runtime itself ships in /var/runtime (the rest of site-packages is
# /var/lang/lib/pythonX.Y/site-packages there).
_RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six.py")
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


def as_var_task(frames: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """Name files as Lambda does (/var/task/app.py, /var/runtime/botocore/client.py,
    /var/lang/lib/python3.12/json/decoder.py), whatever folder and Python they run from here."""
    return [traceback.FrameSummary(aws_path(f.filename), f.lineno, f.name, line=f.line) for f in frames]


def aws_path(filename: str) -> str:
    root = os.environ.get("LAMBDA_TASK_ROOT", "")
    if root and filename.startswith(root + os.sep):
        return "/var/task" + filename[len(root) :]
    if OPT[0] and filename.startswith(OPT[0] + os.sep):
        return "/opt" + filename[len(OPT[0]) :]
    runtime = os.environ.get("AWS_EXECUTION_ENV", "").removeprefix("AWS_Lambda_") or "python3"
    lang = f"/var/lang/lib/{runtime}"
    for prefix, kind in _host_prefixes():
        if filename.startswith(prefix):
            rest = filename[len(prefix) :]
            if kind == "site":
                top = rest.split(os.sep, 1)[0]
                return ("/var/runtime/" if top in _RUNTIME_PACKAGES else f"{lang}/site-packages/") + rest
            return f"{lang}/{rest}"
    return filename


_PREFIXES: list[tuple[str, str]] = []
OPT: list[str] = [""]  # the folder standing for /opt in this worker (its layers), if any


def _host_prefixes() -> list[tuple[str, str]]:
    """The host's site-packages and stdlib folders (each ending in /), longest first."""
    if not _PREFIXES:
        found: dict[str, str] = {}
        paths = sysconfig.get_paths()
        for key in ("stdlib", "platstdlib"):
            if paths.get(key):
                found[os.path.realpath(paths[key]) + os.sep] = "lib"
                found[paths[key] + os.sep] = "lib"
        sites = [paths.get("purelib"), paths.get("platlib")]
        try:
            import site

            sites += [*site.getsitepackages(), site.getusersitepackages()]
        except Exception:  # a virtualenv's old site module may lack these
            pass
        for path in filter(None, sites):
            found[os.path.realpath(path) + os.sep] = "site"
            found[path + os.sep] = "site"
        _PREFIXES.extend(sorted(found.items(), key=lambda item: -len(item[0])))
    return _PREFIXES


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
