"""The plain request and response objects the pipeline passes between its steps."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qs

# Parsing a body past this size allocates enough objects to start full garbage collections, each of
# which holds the GIL for 100-200 ms once the process holds a few million objects: every other
# request, the event loop included, waits. The parse allocates only what it returns, so the
# collector is paused meanwhile (`collector_paused`).
PAUSE_GC_PAST = 64 * 1024  # bytes of a JSON body
PAUSE_GC_PAST_FIELDS = 2000  # fields of a query form


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection meanwhile (while a large body is parsed)."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


@dataclass
class Request:
    method: str
    path: str  # decoded path
    raw_path: str  # still percent-encoded (REST labels are decoded per segment)
    query_string: str
    headers: dict[str, str]  # lower-cased names
    body: bytes
    client_host: str = ""
    client_port: int = 0
    server_port: int = 0

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(self.query_string, keep_blank_values=True)


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str = "application/json"
