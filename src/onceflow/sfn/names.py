"""Small rules the Step Functions API modules share: which names AWS accepts, how times go out."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_FORBIDDEN = re.compile(r"[\s<>{}\[\]?*\"#%\\^|~`$&,;:/\x00-\x1f\x7f-\x9f\ufffe\uffff]|[\ud800-\udfff]")


def ts(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def valid_name(name: str) -> bool:
    """State machine, execution, activity and alias names: 1-80 characters, none AWS forbids."""
    return 0 < len(name) <= 80 and not _FORBIDDEN.search(name)
