"""The Lambda runtime inside one worker process (forked by the zygote; stdlib and boto3 only).

It does what AWS's Python runtime interface client does: loads the handler module from the task
root, sets up logging in Lambda's format, and for each invoke builds the context, decodes the
event, calls the handler and marshals the result, reporting errors with the same document
(`errorMessage`, `errorType`, `requestId`, `stackTrace`) and `[ERROR]` log event. Print and
logging output is sent to the server as log frames as it happens, so a worker killed at its
timeout has already delivered what it printed. An event longer than CloudWatch's limit is split
into several, as Lambda splits it; a result too large for Lambda is not sent at all.

Before any function code is loaded the process is confined (confine.py: its own uid, limits,
private /tmp). A MemoryError at the MemorySize limit ends the worker as Lambda's out-of-memory
kill does, whatever the handler would have made of the exception.
"""

from __future__ import annotations

import decimal
import importlib
import io
import json
import logging
import os
import resource
import select
import signal
import socket
import sys
import sysconfig
import threading
import time
import traceback
from typing import Any

from onceflow.lambda_.runtime import confine, protocol

# The packages the Lambda Python runtime itself ships in /var/runtime (the rest of site-packages is
# /var/lang/lib/pythonX.Y/site-packages there).
_RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "urllib3", "six.py")
_ERROR_INDENT = "\u00a0"  # the runtime indents traceback lines in the [ERROR] event with NO-BREAK SPACE
_request_id = ""
_streams: list[_LineStream] = []  # our stdout/stderr, even if a handler replaces sys.stdout
_capture: _FdCapture | None = None


class _Fault(Exception):
    """A runtime-level failure (Runtime.ImportModuleError, Runtime.HandlerNotFound, ...)."""

    def __init__(self, error_type: str, message: str, trace: list[str] | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace or []


class _Channel:
    """The worker's socket to the server; log frames may come from handler threads, hence the lock."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lock = threading.Lock()

    def send(self, header: dict[str, Any], body: bytes = b"") -> None:
        with self.lock:
            protocol.send(self.sock, header, body)

    def log(self, message: str) -> None:
        ts = int(time.time() * 1000)
        for part in split_event(message):
            self.send({"t": "log", "ts": ts, "msg": part})


def split_event(message: str) -> list[str]:
    """One message as CloudWatch events: a longer one is cut every MAX_EVENT_BYTES (UTF-8 safe)."""
    if len(message) * 4 <= protocol.MAX_EVENT_BYTES:
        return [message]
    data = message.encode("utf-8", "surrogatepass")
    if len(data) <= protocol.MAX_EVENT_BYTES:
        return [message]
    parts = []
    while data:
        cut = _char_boundary(data, protocol.MAX_EVENT_BYTES)
        parts.append(data[:cut].decode("utf-8", "replace"))
        data = data[cut:]
    return parts


def _char_boundary(data: bytes, limit: int) -> int:
    """The largest cut <= limit that does not fall inside a UTF-8 character."""
    cut = min(len(data), limit)
    while 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return cut or min(len(data), limit)


class _LineStream(io.TextIOBase):
    """sys.stdout/sys.stderr: one log event per line; empty lines dropped, '\\r' not a separator."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel
        self._partial = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> _BinaryLines:  # for code that writes bytes to sys.stdout.buffer
        return _BinaryLines(self)

    def write(self, text: str) -> int:
        data = self._partial + text
        if "\n" in data:
            *lines, self._partial = data.split("\n")
            for line in lines:
                if line:
                    self._channel.log(line + "\n")
        else:
            self._partial = data
        if len(self._partial) > protocol.MAX_EVENT_BYTES:  # a line still growing: send its full events
            *full, self._partial = split_event(self._partial)
            for part in full:
                self._channel.log(part)
        return len(text)

    def flush_partial(self) -> None:
        if self._partial:
            line, self._partial = self._partial, ""
            self._channel.log(line + "\n")


class _BinaryLines(io.RawIOBase):
    def __init__(self, text: _LineStream) -> None:
        super().__init__()
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._text.write(bytes(data).decode("utf-8", "replace"))
        return len(data)


class _FdCapture:
    """fd 1 and 2 (subprocesses, C extensions) go to a pipe whose lines become log events too.

    A thread forwards what arrives; the runtime also drains the pipe before sending a result, so a
    subprocess's output appears before the invocation's END, as in Lambda.
    """

    def __init__(self, channel: _Channel) -> None:
        read, write = os.pipe()
        os.dup2(write, 1)
        os.dup2(write, 2)
        os.close(write)
        os.set_blocking(read, False)
        self._fd = read
        self._channel = channel
        self._lock = threading.Lock()
        self._partial = b""
        threading.Thread(target=self._pump, name="fd-capture", daemon=True).start()

    def _pump(self) -> None:
        while True:
            select.select([self._fd], [], [])
            self.drain()

    def drain(self) -> None:
        with self._lock:
            while True:
                try:
                    chunk = os.read(self._fd, 65536)
                except BlockingIOError:
                    return
                if not chunk:
                    return
                *lines, self._partial = (self._partial + chunk).split(b"\n")
                for line in lines:
                    if line:
                        self._channel.log(line.decode("utf-8", "replace") + "\n")
                while len(self._partial) > protocol.MAX_EVENT_BYTES:
                    cut = _char_boundary(self._partial, protocol.MAX_EVENT_BYTES)
                    self._channel.log(self._partial[:cut].decode("utf-8", "replace"))
                    self._partial = self._partial[cut:]


class _LambdaLogHandler(logging.Handler):
    def __init__(self, channel: _Channel) -> None:
        super().__init__()
        self._channel = channel

    def emit(self, record: logging.LogRecord) -> None:
        self._channel.log(self.format(record))


class _JsonFormatter(logging.Formatter):
    """The Python runtime's JSON application log record (LoggingConfig LogFormat JSON): time, level,
    message, logger, requestId, the exception if any, and the record's `extra` fields."""

    _STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"aws_request_id", "message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "message": record.getMessage(),
            "logger": record.name,
        }
        if record.exc_info and record.exc_info[0] is not None:
            exc_type, exc, tb = record.exc_info
            doc["errorType"] = exc_type.__name__
            doc["errorMessage"] = str(exc)
            doc["stackTrace"] = traceback.format_list(_as_var_task(traceback.extract_tb(tb)))
        doc["requestId"] = getattr(record, "aws_request_id", "")
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                doc[key] = value
        return json.dumps(doc, default=str)


_JSON_LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
                "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}  # fmt: skip


def _json_logs() -> bool:
    return os.environ.get("AWS_LAMBDA_LOG_FORMAT") == "JSON"


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.aws_request_id = _request_id
        return True


class LambdaContext:
    """The context object of the Python runtime (awslambdaric lambda_context.py)."""

    def __init__(self, request_id: str, invoked_arn: str, deadline_ms: int, client_context: Any) -> None:
        env = os.environ
        self.aws_request_id = request_id
        self.log_group_name = env.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = env.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.function_name = env.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = env.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.function_version = env.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_arn
        self.client_context = _ClientContext(client_context) if isinstance(client_context, dict) else None
        self.identity = _CognitoIdentity()
        self.tenant_id = None
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(self._deadline_ms - int(time.time() * 1000), 0)

    def log(self, msg: str) -> None:
        sys.stdout.write(msg)

    def __repr__(self) -> str:
        return (
            f"LambdaContext([aws_request_id={self.aws_request_id},log_group_name={self.log_group_name},"
            f"log_stream_name={self.log_stream_name},function_name={self.function_name},"
            f"memory_limit_in_mb={self.memory_limit_in_mb},function_version={self.function_version},"
            f"invoked_function_arn={self.invoked_function_arn},client_context={self.client_context},"
            f"identity={self.identity}])"
        )


class _Fields:
    """An object whose attributes are the named fields of a dict (None when absent)."""

    fields: tuple[str, ...] = ()

    def __init__(self, values: dict[str, Any] | None) -> None:
        for name in self.fields:
            setattr(self, name, (values or {}).get(name))

    def __repr__(self) -> str:
        inner = ",".join(f"{name}={getattr(self, name)}" for name in self.fields)
        return f"{type(self).__name__.lstrip('_')}([{inner}])"


class _Client(_Fields):
    fields = ("installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name")


class _ClientContext(_Fields):
    """X-Amz-Client-Context as the Python runtime presents it: custom, env and client."""

    fields = ("custom", "env", "client")

    def __init__(self, values: dict[str, Any]) -> None:
        super().__init__({k: v for k, v in values.items() if k != "w3c"})
        given: Any = getattr(self, "client", None)
        self.client: _Client | None = _Client(given) if isinstance(given, dict) else None


class _CognitoIdentity:
    cognito_identity_id = None
    cognito_identity_pool_id = None

    def __repr__(self) -> str:
        return "CognitoIdentity([cognito_identity_id=None,cognito_identity_pool_id=None])"


# ---------------------------------------------------------------------------------------- setup
def _setup_process(spec: dict[str, Any], channel: _Channel, loader: Any) -> None:
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
        _OPT[0] = opt  # the layers, where Lambda's path has /opt: after the task root, before the runtime's own
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        sys.path[1:1] = [os.path.join(opt, "python", "lib", version, "site-packages"), os.path.join(opt, "python")]
        os.environ["PATH"] = os.environ.get("PATH", "").replace("/opt/bin", os.path.join(opt, "bin"))
    _streams[:] = [_LineStream(channel), _LineStream(channel)]
    sys.stdout, sys.stderr = _streams
    global _capture
    _capture = _FdCapture(channel)
    logging.Formatter.converter = time.gmtime
    handler = _LambdaLogHandler(channel)
    if _json_logs():  # LoggingConfig JSON: the root logger at ApplicationLogLevel, records as JSON
        handler.setFormatter(_JsonFormatter())
        logging.addLevelName(5, "TRACE")
        logging.getLogger().setLevel(_JSON_LEVELS.get(os.environ.get("AWS_LAMBDA_LOG_LEVEL", ""), logging.INFO))
    else:
        handler.setFormatter(
            logging.Formatter(
                "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n", "%Y-%m-%dT%H:%M:%S"
            )
        )
    handler.addFilter(_RequestIdFilter())
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
        raise _Fault("Runtime.MalformedHandlerName", f"Bad handler '{handler}': {exc}") from None
    if modname.split(".")[0] in sys.builtin_module_names:
        raise _Fault("Runtime.BuiltInModuleConflict", f"Cannot use built-in module {modname} as a handler module")
    try:
        module = importlib.import_module(modname.replace("/", "."))
    except ImportError as exc:
        raise _Fault("Runtime.ImportModuleError", f"Unable to import module '{modname}': {exc}") from None
    except SyntaxError as exc:
        trace = [f'  File "{_aws_path(exc.filename or "")}" Line {exc.lineno}\n    {exc.text}']
        raise _Fault("Runtime.UserCodeSyntaxError", f"Syntax error in module '{modname}': {exc}", trace) from None
    try:
        return getattr(module, fname)
    except AttributeError:
        raise _Fault("Runtime.HandlerNotFound", f"Handler '{fname}' missing on module '{modname}'") from None


# ---------------------------------------------------------------------------------------- errors
def _error_doc(message: str, error_type: str, trace: list[str], request_id: str) -> dict[str, Any]:
    return {"errorMessage": message or "", "errorType": error_type or "", "requestId": request_id, "stackTrace": trace}


def _exception_doc(exc: BaseException, request_id: str) -> dict[str, Any]:
    frames: list[traceback.FrameSummary] = list(traceback.extract_tb(exc.__traceback__))
    for i, frame in enumerate(frames):  # drop the runtime's own frames, as the RIC drops bootstrap.py
        if frame.filename != __file__:
            frames = frames[i:]
            break
    else:
        frames = traceback.StackSummary.from_list([])
    return _error_doc(str(exc), type(exc).__name__, traceback.format_list(_as_var_task(frames)), request_id)


def _as_var_task(frames: list[traceback.FrameSummary]) -> list[traceback.FrameSummary]:
    """Name files as Lambda does (/var/task/app.py, /var/runtime/botocore/client.py,
    /var/lang/lib/python3.12/json/decoder.py), whatever folder and Python they run from here."""
    return [traceback.FrameSummary(_aws_path(f.filename), f.lineno, f.name, line=f.line) for f in frames]


def _aws_path(filename: str) -> str:
    root = os.environ.get("LAMBDA_TASK_ROOT", "")
    if root and filename.startswith(root + os.sep):
        return "/var/task" + filename[len(root) :]
    if _OPT[0] and filename.startswith(_OPT[0] + os.sep):
        return "/opt" + filename[len(_OPT[0]) :]
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
_OPT: list[str] = [""]  # the folder standing for /opt in this worker (its layers), if any


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


def _log_error(channel: _Channel, doc: dict[str, Any]) -> None:
    """The `[ERROR] Type: message` event with the traceback, one event, indented with U+00A0
    (in the JSON log format: the error document as one JSON record)."""
    if _json_logs():
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
        raise _Fault("Runtime.MarshalError", f"Unable to marshal response: {exc}") from None


def _unmarshal(body: bytes) -> Any:
    if not body:
        return {}
    try:
        return json.loads(body)
    except Exception as exc:
        raise _Fault("Runtime.UnmarshalError", f"Unable to unmarshal input: {exc}") from None


# ---------------------------------------------------------------------------------------- main loop
_OOM_FRAME = protocol.encode({"t": "oom"})  # built before any limit: sending it must not allocate


def _out_of_memory(channel: _Channel) -> None:
    """Tell the server, then die as the kernel's OOM killer would end the runtime (SIGKILL)."""
    try:
        channel.sock.sendall(_OOM_FRAME)
    finally:
        os.kill(os.getpid(), signal.SIGKILL)


def run(sock: socket.socket, spec: dict[str, Any], loader: Any = None, keeper: int = 0) -> None:
    """Entry point in the forked child; never returns. `loader` is the zygote's warmed botocore loader;
    `keeper` the pid of the process the server signals to end this worker (its keeper)."""
    code = 0
    channel = _Channel(sock)
    try:
        channel.send({"t": "hello", "pid": keeper or os.getpid()})
        _setup_process(spec, channel, loader)
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


def _init(channel: _Channel, spec: dict[str, Any]) -> Any:
    start = time.perf_counter()
    try:
        handler = _load_handler(spec["handler"])
    except _Fault as fault:
        doc = _error_doc(fault.message, fault.error_type, fault.trace, "")
        _log_error(channel, doc)
        channel.send({"t": "init_error", "init_ms": _ms_since(start), "error": doc})
        return None
    except MemoryError:
        raise
    except Exception as exc:  # an exception raised by module-level code
        doc = _exception_doc(exc, "")
        _log_error(channel, doc)
        channel.send({"t": "init_error", "init_ms": _ms_since(start), "error": doc})
        return None
    channel.send({"t": "ready", "init_ms": _ms_since(start), "mem_mb": _max_rss_mb()})
    return handler


def _serve(channel: _Channel, handler: Any) -> None:
    global _request_id
    while True:
        header, body = protocol.recv(channel.sock)
        _request_id = header["id"]
        ok, out = _invoke_once(channel, handler, header, body)
        if _capture is not None:
            _capture.drain()
        for stream in _streams:
            stream.flush_partial()
        if len(out) > protocol.MAX_RESULT_BYTES:  # the server answers Function.ResponseSizeTooLarge
            channel.send({"t": "result", "ok": ok, "mem_mb": _max_rss_mb(), "too_large": len(out)})
        else:
            channel.send({"t": "result", "ok": ok, "mem_mb": _max_rss_mb()}, out)


def _invoke_once(channel: _Channel, handler: Any, header: dict[str, Any], body: bytes) -> tuple[bool, bytes]:
    request_id = header["id"]
    os.environ["_X_AMZN_TRACE_ID"] = _trace_id()
    try:
        context = LambdaContext(request_id, header["arn"], header["deadline_ms"], header.get("client_context"))
        result = handler(_unmarshal(body), context)
        return True, _marshal(result)
    except _Fault as fault:
        doc = _error_doc(fault.message, fault.error_type, fault.trace, request_id)
    except MemoryError:
        raise
    except Exception as exc:
        if _caused_by_memory(exc):
            raise MemoryError() from exc
        doc = _exception_doc(exc, request_id)
    _log_error(channel, doc)
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
