"""Read a JSON request body, refusing what would crash or stall the layers behind it.

`json.loads` accepts more than JSON and more than a handler can take: NaN/Infinity literals,
nesting deep enough to exhaust Python's recursion limit (in the parser itself, or later in the
shape walk and the services' own recursive code), and `\\ud800`-style escapes that decode to a lone
surrogate, which no UTF-8 encoder (SQLite, a log line, a worker's stdin) will take. Each is a
SerializationError here, which the protocol answers as a 400.
"""

from __future__ import annotations

import json
import json.scanner
import re
from typing import Any

from onceflow.wire.shapes import SerializationError

# Deeper than any valid request needs (a DynamoDB item at its 32-level limit is about 70 levels of
# JSON), shallow enough that the recursive shape walk and service code stay far from the limit.
MAX_DEPTH = 128

# Past this size a body is parsed by json's pure-Python scanner: C's json.loads holds the GIL to the
# end (about 50 ms a MiB here, three times that when a garbage collection starts inside it), so a
# large body would stall the event loop however it is scheduled; the Python scanner yields the GIL
# every few milliseconds. (The protocols pause the garbage collector meanwhile: see request.py.)
INTERRUPTIBLE = 1024 * 1024

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class NotJson(SerializationError):
    """The body is not UTF-8 JSON at all (coral answers that without a message)."""


def _not_json(name: str) -> Any:
    raise NotJson(f"Could not parse payload into json: Non-standard token '{name}'")


def load(body: bytes) -> Any:
    """The parsed body; SerializationError for invalid UTF-8, invalid JSON or the cases above."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotJson(f"Invalid UTF-8 start byte 0x{body[exc.start]:02x}") from exc
    try:
        data = _decode(text)
    except RecursionError as exc:
        raise _too_deep() from exc
    except NotJson:
        raise
    except ValueError as exc:
        raise NotJson(f"Could not parse payload into json: {exc}") from exc
    # Cheap gates first: nesting needs as many brackets, a lone surrogate a \uD8xx-\uDFxx escape.
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth_exceeds(data, MAX_DEPTH):
        raise _too_deep()
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise SerializationError(f"Invalid JSON string: lone UTF-16 surrogate \\u{ord(exc.object[exc.start]):04x}"
                                     ) from exc
    return data


def _decode(text: str) -> Any:
    if len(text) <= INTERRUPTIBLE:
        # json.loads(text, parse_constant=...) would build a decoder per call (~10 us, as much as
        # parsing a small request body); the BOM check is the one json.loads makes before decoding.
        if text.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _DECODER.decode(text)
    decoder = json.JSONDecoder(parse_constant=_not_json)
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder.decode(text)


_DECODER = json.JSONDecoder(parse_constant=_not_json)  # stateless between calls: shared by threads


def _too_deep() -> SerializationError:
    return SerializationError(f"Document nesting depth exceeds the maximum allowed ({MAX_DEPTH})")


def _depth_exceeds(data: Any, limit: int) -> bool:
    """Whether containers nest deeper than `limit`, walked without recursion."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
