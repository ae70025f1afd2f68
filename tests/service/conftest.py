"""Fixtures the service tests share beyond tests/conftest.py's."""

from __future__ import annotations

import uuid
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


@pytest.fixture
def table(ddb: Any) -> str:
    """A new on-demand DynamoDB table keyed by the string `id` (a test module may define its own)."""
    name = f"t-{uuid.uuid4().hex[:10]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    return name
