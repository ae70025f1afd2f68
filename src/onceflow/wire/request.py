"""The plain request and response objects the pipeline passes between its steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs


@dataclass
class Request:
    method: str
    path: str  # decoded path
    raw_path: str  # still percent-encoded (REST labels are decoded per segment)
    query_string: str
    headers: dict[str, str]  # lower-cased names
    body: bytes
    client_host: str = ""

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(self.query_string, keep_blank_values=True)


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str = "application/json"
