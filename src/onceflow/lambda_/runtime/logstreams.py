"""The worker's output as Lambda's log events: its socket to the server (Channel), print and
sys.stdout/stderr one event per line (LineStream), fd 1 and 2 of subprocesses and C code
(FdCapture), the logging module in Lambda's Text or JSON format, and events longer than
CloudWatch's limit split as Lambda splits them."""

from __future__ import annotations

import io
import json
import logging
import os
import select
import socket
import threading
import time
import traceback
from typing import Any

from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.paths import as_var_task


class Current:
    """The request being served, for the log records made while it runs."""

    request_id = ""


class Channel:
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
        cut = char_boundary(data, protocol.MAX_EVENT_BYTES)
        parts.append(data[:cut].decode("utf-8", "replace"))
        data = data[cut:]
    return parts


def char_boundary(data: bytes, limit: int) -> int:
    """The largest cut <= limit that does not fall inside a UTF-8 character."""
    cut = min(len(data), limit)
    while 0 < cut < len(data) and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return cut or min(len(data), limit)


class LineStream(io.TextIOBase):
    """sys.stdout/sys.stderr: one log event per line; empty lines dropped, '\\r' not a separator."""

    def __init__(self, channel: Channel) -> None:
        self._channel = channel
        self._partial = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> BinaryLines:  # for code that writes bytes to sys.stdout.buffer
        return BinaryLines(self)

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


class BinaryLines(io.RawIOBase):
    def __init__(self, text: LineStream) -> None:
        super().__init__()
        self._text = text

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._text.write(bytes(data).decode("utf-8", "replace"))
        return len(data)


class FdCapture:
    """fd 1 and 2 (subprocesses, C extensions) go to a pipe whose lines become log events too.

    A thread forwards what arrives; the runtime also drains the pipe before sending a result, so a
    subprocess's output appears before the invocation's END, as in Lambda.
    """

    def __init__(self, channel: Channel) -> None:
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
                    cut = char_boundary(self._partial, protocol.MAX_EVENT_BYTES)
                    self._channel.log(self._partial[:cut].decode("utf-8", "replace"))
                    self._partial = self._partial[cut:]


class LambdaLogHandler(logging.Handler):
    def __init__(self, channel: Channel) -> None:
        super().__init__()
        self._channel = channel

    def emit(self, record: logging.LogRecord) -> None:
        self._channel.log(self.format(record))


class JsonFormatter(logging.Formatter):
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
            doc["stackTrace"] = traceback.format_list(as_var_task(traceback.extract_tb(tb)))
        doc["requestId"] = getattr(record, "aws_request_id", "")
        for key, value in vars(record).items():
            if key not in self._STANDARD and not key.startswith("_"):
                doc[key] = value
        return json.dumps(doc, default=str)


JSON_LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
                "ERROR": logging.ERROR, "FATAL": logging.CRITICAL}  # fmt: skip


def json_logs() -> bool:
    return os.environ.get("AWS_LAMBDA_LOG_FORMAT") == "JSON"


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.aws_request_id = Current.request_id
        return True
