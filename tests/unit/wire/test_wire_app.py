"""The request pipeline without a socket: a tiny registry of test handlers behind the real AwsApp."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from wire_oracle import botocore_request, spec, specs

from onceflow.config import Settings
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.stack import Stack
from onceflow.store.db import Database
from onceflow.wire.app import AwsApp
from onceflow.wire.request import Request


@pytest.fixture
def app() -> Iterator[AwsApp]:
    stack = Stack(Settings(in_memory=True), Database(":memory:"))
    application = AwsApp(stack, specs())
    yield application
    application.executor.shutdown()
    stack.db.close()


def call(app: AwsApp, request: Request) -> Any:
    return asyncio.run(app.handle(request))


def signed(service: str, operation: str, params: dict[str, Any], access_key: str = "test",
           region: str = "us-east-1") -> Request:
    request = botocore_request(service, spec(service).operations[operation], params)
    signing = {"stepfunctions": "states"}.get(service, service)
    request.headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={access_key}/20261129/{region}/{signing}/"
                                        "aws4_request, SignedHeaders=host, Signature=0")
    return request


def record_calls(app: AwsApp, service: str, operation: str) -> list[RequestContext]:
    seen: list[RequestContext] = []

    def handler(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(ctx)
        return {}

    app.stack.registry.add(service, operation, handler)
    return seen


def test_a_twelve_digit_access_key_selects_that_account_and_the_scope_the_region(app: AwsApp) -> None:
    seen = record_calls(app, "logs", "DescribeLogGroups")
    assert call(app, signed("logs", "DescribeLogGroups", {}, "123456789012", "eu-west-1")).status == 200
    assert call(app, signed("logs", "DescribeLogGroups", {}, "AKIAEXAMPLE", "ap-south-1")).status == 200
    assert [(c.account, c.region) for c in seen] == [("123456789012", "eu-west-1"), ("000000000000", "ap-south-1")]
    assert seen[0].principal.arn == "arn:aws:iam::123456789012:root"


def test_credential_resolvers_win_over_the_account_rule(app: AwsApp) -> None:
    from onceflow.context import Principal

    session = Principal("210987654321", "assumed-role", "arn:aws:sts::210987654321:assumed-role/r/s", "s")
    app.stack.credential_resolvers.append(lambda key: session if key == "ASIATEMP" else None)
    seen = record_calls(app, "sts", "GetCallerIdentity")
    call(app, signed("sts", "GetCallerIdentity", {}, "ASIATEMP"))
    assert seen[0].principal is session and seen[0].account == "210987654321"


def test_unimplemented_operation_names_service_and_operation(app: AwsApp) -> None:
    response = call(app, signed("dynamodb", "DescribeLimits", {}))
    assert response.status == 501
    message = json.loads(response.body)["message"]
    assert message == "onceflow does not implement the dynamodb operation DescribeLimits yet"
    response = call(app, signed("iam", "GetAccountSummary", {}))
    assert response.status == 501 and b"<Code>NotImplemented</Code>" in response.body
    assert b"onceflow does not implement the iam operation GetAccountSummary yet" in response.body


def test_bad_input_is_rejected_before_the_operation_is_looked_up(app: AwsApp) -> None:
    response = call(app, signed("dynamodb", "DescribeTable", {"TableName": ""}))
    assert response.status == 400 and b"ValidationException" in response.body


def test_a_handler_crash_is_a_500_internal_failure_without_a_trace(app: AwsApp) -> None:
    def broken(ctx: RequestContext, params: dict[str, Any]) -> None:
        raise RuntimeError("secret detail")

    app.stack.registry.add("logs", "DescribeLogGroups", broken)
    response = call(app, signed("logs", "DescribeLogGroups", {}))
    assert response.status == 500
    body = json.loads(response.body)
    assert body["__type"].endswith("InternalFailure") and "secret" not in response.body.decode()


def test_service_errors_keep_their_code_status_and_members(app: AwsApp) -> None:
    def missing(ctx: RequestContext, params: dict[str, Any]) -> None:
        raise ServiceError("ResourceNotFoundException", "Function not found: f", 404)

    app.stack.registry.add("lambda", "GetFunction", missing)
    response = call(app, signed("lambda", "GetFunction", {"FunctionName": "f"}))
    assert response.status == 404 and ("x-amzn-ErrorType", "ResourceNotFoundException") in response.headers
    assert json.loads(response.body) == {"Type": "User", "Message": "Function not found: f"}


def _own(app: AwsApp, method: str, path: str, client: str) -> Any:
    return asyncio.run(app.handle(Request(method, path, path, "", {}, b"", client)))


def test_reset_answers_only_on_loopback(app: AwsApp) -> None:
    resets: list[bool] = []
    app.stack.on_reset.append(lambda: resets.append(True))
    assert _own(app, "POST", "/_onceflow/reset", "192.168.1.20").status == 403
    assert _own(app, "POST", "/_onceflow/reset", "::ffff:10.0.0.1").status == 403
    assert resets == []
    assert _own(app, "POST", "/_onceflow/reset", "127.0.0.1").status == 200
    assert _own(app, "POST", "/_onceflow/reset", "::1").status == 200
    assert resets == [True, True]


def test_health_lists_services_and_version(app: AwsApp) -> None:
    body = json.loads(_own(app, "GET", "/_onceflow/health", "10.1.1.1").body)
    assert body["status"] == "running" and body["version"]
    assert set(body["services"]) == {"dynamodb", "stepfunctions", "lambda", "iam", "sts", "logs"}
