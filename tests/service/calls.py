"""Small helpers the service tests share: a unique name, and the code and message of a refused call."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str]:
    """The (code, message) of the ClientError `call(**params)` raises (the test fails if none)."""
    with pytest.raises(ClientError) as e:
        call(**params)
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]
