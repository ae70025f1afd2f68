"""The Lambda runtime inside one worker process (forked by the zygote; stdlib and boto3 only).

It does what AWS's Python runtime interface client does: loads the handler module from the task
root, sets up logging in Lambda's format, and for each invoke builds the context, decodes the
event, calls the handler and marshals the result, reporting errors with the same document
(`errorMessage`, `errorType`, `requestId`, `stackTrace`) and `[ERROR]` log event. Print and
logging output is sent to the server as log frames as it happens, so a worker killed at its
timeout has already delivered what it printed. An event longer than CloudWatch's limit is split
into several, as Lambda splits it; a result too large for Lambda is not sent at all.

Its parts: logstreams.py (output as log events), faults.py (error documents), paths.py (tracebacks),
context.py (the handler's context object); this module sets the process up and runs the loop.

Before any function code is loaded the process is confined (confine.py: its own uid, limits,
private /tmp). A MemoryError at the MemorySize limit ends the worker as Lambda's out-of-memory
kill does, whatever the handler would have made of the exception.
"""

from __future__ import annotations

import decimal
import importlib
import json
import logging
import os
import resource
import signal
import socket
import sys
import time
from typing import Any

from onceflow.lambda_.runtime import confine, paths, protocol
from onceflow.lambda_.runtime.context import LambdaContext
from onceflow.lambda_.runtime.faults import (
    UNHANDLED_WARNING,
    Fault,
    error_doc,
    exception_doc,
    log_error,
    warn_invoke_error,
)
from onceflow.lambda_.runtime.logstreams import (
    JSON_LEVELS,
    Channel,
    Current,
    FdCapture,
    JsonFormatter,
    LambdaLogHandler,
    LineStream,
    RequestIdFilter,
    json_logs,
)
from onceflow.lambda_.runtime.paths import aws_path

_streams: list[LineStream] = []  # our stdout/stderr, even if a handler replaces sys.stdout
_capture: FdCapture | None = None


# ---------------------------------------------------------------------------------------- setup
def _setup_process(spec: dict[str, Any], channel: Channel, loader: Any) -> None:
    extra = confine.apply(confine.Limits.from_spec(spec.get("sandbox")), spec["task_root"], spec.get("opt_root"))
    os.environ.clear()
    os.environ.update(spec["env"])
    os.environ.update(extra)
    _tempfile_reset()
    time.tzset()  # TZ=:UTC, as in Lambda, for time.localtime() and friends
    os.chdir(spec["task_root"])
    sys.path.insert(0, spec["task_root"])
    opt = confine.OPT_AT[0]
    if opt:
        paths.OPT[0] = opt  # the layers, where Lambda's path has /opt: after the task root, before the runtime's own
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        sys.path[1:1] = [os.path.join(opt, "python", "lib", version, "site-packages"), os.path.join(opt, "python")]
        os.environ["PATH"] = os.environ.get("PATH", "").replace("/opt/bin", os.path.join(opt, "bin"))
    if os.environ.get("LD_LIBRARY_PATH"):  # Lambda's folders, where they are in this worker
        folders = os.environ["LD_LIBRARY_PATH"].split(":")
        os.environ["LD_LIBRARY_PATH"] = ":".join(_host_path(folder, spec["task_root"]) for folder in folders)
    _streams[:] = [LineStream(channel), LineStream(channel)]
    sys.stdout, sys.stderr = _streams
    global _capture
    _capture = FdCapture(channel)
    logging.Formatter.converter = time.gmtime
    handler = LambdaLogHandler(channel)
    if json_logs():  # LoggingConfig JSON: the root logger at ApplicationLogLevel, records as JSON
        handler.setFormatter(JsonFormatter())
        logging.addLevelName(5, "TRACE")
        logging.getLogger().setLevel(JSON_LEVELS.get(os.environ.get("AWS_LAMBDA_LOG_LEVEL", ""), logging.INFO))
    else:
        handler.setFormatter(
            logging.Formatter(
                "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n", "%Y-%m-%dT%H:%M:%S"
            )
        )
    handler.addFilter(RequestIdFilter())
    logging.getLogger().addHandler(handler)
    _fresh_boto3_session(loader)


def _tempfile_reset() -> None:
    """tempfile caches its folder: the zygote's /tmp must not outlive the worker's own TMPDIR."""
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # type: ignore[attr-defined]  # a module object: mypy sees ModuleType


def _fresh_boto3_session(loader: Any) -> None:
    """The zygote built boto3's default session (reading no environment yet); without one, build it."""
    if loader is None:
        return
    import boto3

    if boto3.DEFAULT_SESSION is None:
        import botocore.session

        session = botocore.session.Session()
        session.register_component("data_loader", loader)
        boto3.setup_default_session(botocore_session=session)


def _load_handler(handler: str) -> Any:
    try:
        modname, fname = handler.rsplit(".", 1)
    except ValueError as exc:
        raise Fault("Runtime.MalformedHandlerName", f"Bad handler '{handler}': {exc}") from None
    if modname.split(".")[0] in sys.builtin_module_names:
        raise Fault("Runtime.BuiltInModuleConflict", f"Cannot use built-in module {modname} as a handler module")
    try:
        module = importlib.import_module(modname.replace("/", "."))
    except ImportError as exc:
        raise Fault("Runtime.ImportModuleError", f"Unable to import module '{modname}': {exc}") from None
    except SyntaxError as exc:
        trace = [f'  File "{aws_path(exc.filename or "")}" Line {exc.lineno}\n    {exc.text}']
        raise Fault("Runtime.UserCodeSyntaxError", f"Syntax error in module '{modname}': {exc}", trace) from None
    try:
        return getattr(module, fname)
    except AttributeError:
        raise Fault("Runtime.HandlerNotFound", f"Handler '{fname}' missing on module '{modname}'") from None


# ---------------------------------------------------------------------------------------- marshal
class _Encoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, decimal.Decimal):  # the runtime writes Decimal as its str(); closest stdlib form
            return int(o) if o == o.to_integral_value() else float(o)
        return super().default(o)


def _marshal(result: Any) -> bytes:
    if isinstance(result, bytes):
        return result
    ascii_only = os.environ.get("AWS_EXECUTION_ENV") != "AWS_Lambda_python3.12"
    try:
        return _Encoder(ensure_ascii=ascii_only).encode(result).encode()
    except Exception as exc:
        raise Fault("Runtime.MarshalError", f"Unable to marshal response: {exc}") from None


def _unmarshal(body: bytes) -> Any:
    if not body:
        return {}
    try:
        return json.loads(body)
    except Exception as exc:
        raise Fault("Runtime.UnmarshalError", f"Unable to unmarshal input: {exc}") from None


# ---------------------------------------------------------------------------------------- main loop
_OOM_FRAME = protocol.encode({"t": "oom"})  # built before any limit: sending it must not allocate


def _out_of_memory(channel: Channel) -> None:
    """Tell the server, then die as the kernel's OOM killer would end the runtime (SIGKILL)."""
    try:
        channel.sock.sendall(_OOM_FRAME)
    finally:
        os.kill(os.getpid(), signal.SIGKILL)


def run(sock: socket.socket, spec: dict[str, Any], loader: Any = None, keeper: int = 0) -> None:
    """Entry point in the forked child; never returns. `loader` is the zygote's warmed botocore loader;
    `keeper` the pid of the process the server signals to end this worker (its keeper)."""
    code = 0
    channel = Channel(sock)
    try:
        channel.send({"t": "hello", "pid": keeper or os.getpid()})
        _setup_process(spec, channel, loader)
        _check_exec_wrapper(spec["task_root"])
        handler = _init(channel, spec)
        if handler is not None:
            _serve(channel, handler)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except protocol.Closed:
        code = 0
    except MemoryError:
        _out_of_memory(channel)
    except BaseException:  # the runtime itself broke: the server reports Runtime.ExitError
        code = 1
    finally:
        for stream in _streams:
            try:
                stream.flush_partial()
            except Exception:
                pass
    os._exit(code)


def _check_exec_wrapper(task_root: str) -> None:
    """Lambda's bootstrap execs AWS_LAMBDA_EXEC_WRAPPER with the runtime's command: a wrapper that
    is not there ends the runtime as the shell does, exit status 127 (126 when not executable),
    which Invoke answers as Runtime.ExitError (recorded on AWS: test_lambda_runtime_wrapper_not_found).
    A wrapper that is there is not run: this runtime is the forked worker itself."""
    wrapper = os.environ.get("AWS_LAMBDA_EXEC_WRAPPER")
    if not wrapper:
        return
    local = _host_path(wrapper, task_root)
    if not os.path.isfile(local):
        print(f"/var/runtime/bootstrap: {wrapper}: No such file or directory", file=sys.stderr)
        raise SystemExit(127)
    if not os.access(local, os.X_OK):
        print(f"/var/runtime/bootstrap: {wrapper}: Permission denied", file=sys.stderr)
        raise SystemExit(126)


def _host_path(path: str, task_root: str) -> str:
    """Where a path of Lambda's file system (/var/task, /opt) is in this worker's."""
    for prefix, here in (("/var/task", task_root), ("/opt", paths.OPT[0])):
        if here and (path == prefix or path.startswith(prefix + "/")):
            return here + path[len(prefix) :]
    return path


def _init(channel: Channel, spec: dict[str, Any]) -> Any:
    start = time.perf_counter()
    try:
        handler = _load_handler(spec["handler"])
    except Fault as fault:
        doc = error_doc(fault.message, fault.error_type, fault.trace, "")
        logging.warning(UNHANDLED_WARNING)
        log_error(channel, doc)
        channel.send({"t": "init_error", "init_ms": _ms_since(start), "error": doc})
        return None
    except MemoryError:
        raise
    except Exception as exc:  # an exception raised by module-level code
        doc = exception_doc(exc, "")
        logging.warning(UNHANDLED_WARNING)
        log_error(channel, doc)
        channel.send({"t": "init_error", "init_ms": _ms_since(start), "error": doc})
        return None
    channel.send({"t": "ready", "init_ms": _ms_since(start), "mem_mb": _max_rss_mb()})
    return handler


def _serve(channel: Channel, handler: Any) -> None:
    while True:
        header, body = protocol.recv(channel.sock)
        Current.request_id = header["id"]
        ok, out = _invoke_once(channel, handler, header, body)
        if _capture is not None:
            _capture.drain()
        for stream in _streams:
            stream.flush_partial()
        if len(out) > protocol.MAX_RESULT_BYTES:  # the server answers Function.ResponseSizeTooLarge
            channel.send({"t": "result", "ok": ok, "mem_mb": _max_rss_mb(), "too_large": len(out)})
        else:
            channel.send({"t": "result", "ok": ok, "mem_mb": _max_rss_mb()}, out)


def _invoke_once(channel: Channel, handler: Any, header: dict[str, Any], body: bytes) -> tuple[bool, bytes]:
    request_id = header["id"]
    os.environ["_X_AMZN_TRACE_ID"] = _trace_id()
    try:
        context = LambdaContext(request_id, header["arn"], header["deadline_ms"], header.get("client_context"))
        result = handler(_unmarshal(body), context)
        return True, _marshal(result)
    except Fault as fault:
        doc = error_doc(fault.message, fault.error_type, fault.trace, request_id)
    except MemoryError:
        raise
    except Exception as exc:
        if _caused_by_memory(exc):
            raise MemoryError() from exc
        doc = exception_doc(exc, request_id)
    warn_invoke_error(channel)
    log_error(channel, doc)
    ascii_only = os.environ.get("AWS_EXECUTION_ENV") != "AWS_Lambda_python3.12"
    return False, json.dumps(doc, ensure_ascii=ascii_only).encode()


def _trace_id() -> str:
    """An X-Ray trace header as Lambda sets one per invocation when the caller sent none (not sampled)."""
    return f"Root=1-{int(time.time()):08x}-{os.urandom(12).hex()};Parent={os.urandom(8).hex()};Sampled=0"


def _caused_by_memory(exc: BaseException) -> bool:
    """A MemoryError wrapped by library code (raise ... from) is still the runtime running out."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 20:
        if isinstance(cause, MemoryError):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def _max_rss_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
