"""Fixtures the service tests share beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def iam(aws: Callable[..., Any]) -> Any:
    """An IAM client on the session's server (a test module may define its own)."""
    return aws("iam")
