"""Step Functions' page tokens: an opaque offset into a listing, refused with AWS's InvalidToken."""

from __future__ import annotations

import base64
import json

from onceflow.errors import ServiceError


def token(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode()


def offset(given: str | None) -> int:
    if not given:
        return 0
    try:
        return int(json.loads(base64.urlsafe_b64decode(given.encode()))["o"])
    except (ValueError, KeyError, TypeError):
        raise ServiceError("InvalidToken", f"Invalid Token: '{given}'") from None
