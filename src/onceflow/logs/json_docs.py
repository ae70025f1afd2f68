"""The JSON object a Logs document parameter holds (a policy, a field index, a log event's message):
one reading of "is this text a JSON object" for every caller, which then answers in its own words."""

from __future__ import annotations

import json
from typing import Any


def json_object(text: str) -> dict[str, Any] | None:
    """The object `text` parses to, or None when it is not JSON or is JSON but not an object."""
    try:
        doc = json.loads(text)
    except ValueError:  # json.JSONDecodeError, and UnicodeDecodeError for bytes
        return None
    return doc if isinstance(doc, dict) else None
