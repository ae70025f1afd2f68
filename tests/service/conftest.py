"""Fixtures the service tests share beyond tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def iam(aws: Callable[..., Any]) -> Any:
    """An IAM client on the session's server (a test module may define its own, as for the others)."""
    return aws("iam")


@pytest.fixture
def logs(aws: Callable[..., Any]) -> Any:
    return aws("logs")


@pytest.fixture
def ddb(aws: Callable[..., Any]) -> Any:
    return aws("dynamodb")


@pytest.fixture
def sns(aws: Callable[..., Any]) -> Any:
    return aws("sns")


@pytest.fixture
def sqs(aws: Callable[..., Any]) -> Any:
    return aws("sqs")
