"""EventBridge behaviour moto's black-box suite checks that AWS shows and onceflow missed (session 10)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _connection(events: Any) -> str:
    return str(events.create_connection(Name=f"c-{uuid.uuid4().hex[:8]}", AuthorizationType="API_KEY", AuthParameters={
        "ApiKeyAuthParameters": {"ApiKeyName": "k", "ApiKeyValue": "v"}})["ConnectionArn"])


def test_api_destination_endpoint_is_held_to_the_model_pattern_only(aws: Callable[..., Any]) -> None:
    events = aws("events")
    arn = _connection(events)
    name = f"d-{uuid.uuid4().hex[:8]}"
    events.create_api_destination(Name=name, ConnectionArn=arn, HttpMethod="POST", InvocationEndpoint="www.google.com")
    assert events.describe_api_destination(Name=name)["InvocationEndpoint"] == "www.google.com"
    events.update_api_destination(Name=name, InvocationEndpoint="www.google.cz")
    assert events.describe_api_destination(Name=name)["InvocationEndpoint"] == "www.google.cz"
    with pytest.raises(ClientError) as exc:
        events.update_api_destination(Name=name, InvocationEndpoint="not a url")
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    assert "at 'invocationEndpoint' failed to satisfy constraint" in exc.value.response["Error"]["Message"]
    assert events.describe_api_destination(Name=name)["InvocationEndpoint"] == "www.google.cz"
