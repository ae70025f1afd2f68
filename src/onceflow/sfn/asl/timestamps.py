"""The Wait state's timestamps: RFC 3339 / ISO-8601 extended offset date-times.

One rule for the three places AWS applies it: a literal `Timestamp` at CreateStateMachine
("String does not match RFC3339 timestamp"), `TimestampPath` and a JSONata `Timestamp` at run time.
Upper-case `T` and `Z`, an offset or `Z`, any number of fraction digits; a month 13 or an hour 25
is no date (all as AWS recorded). Choice rules compare timestamps by their own rule (choice.py).
"""

from __future__ import annotations

import re
from datetime import datetime

_SHAPE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_PARTS = re.compile(r"^(.*?)(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def parse_wait_timestamp(text: object) -> float | None:
    """Epoch seconds, or None when `text` is not such a timestamp."""
    if not isinstance(text, str) or not _SHAPE.match(text):
        return None
    base, frac, zone = text, "", "Z"
    m = _PARTS.match(text)
    if m:
        base, frac, zone = m.group(1), m.group(2) or "", m.group(3)
    try:
        dt = datetime.fromisoformat(base + ("+00:00" if zone == "Z" else zone))
    except ValueError:
        return None
    return dt.timestamp() + (float("0" + frac) if frac else 0.0)
