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
from onceflow.wire.request import Request, Response


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
           region: str = "us-east-1", secret_key: str = "test", session_token: str | None = None) -> Request:
    return botocore_request(service, spec(service).operations[operation], params, access_key=access_key,
                            secret_key=secret_key, region=region, session_token=session_token)


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
    from onceflow.credentials import Credential

    session = Principal("210987654321", "assumed-role", "arn:aws:sts::210987654321:assumed-role/r/s", "s")
    known = Credential(session, "s3cret", "token")
    app.stack.credential_resolvers.append(lambda key: known if key == "ASIATEMP" else None)
    seen = record_calls(app, "sts", "GetCallerIdentity")
    call(app, signed("sts", "GetCallerIdentity", {}, "ASIATEMP", secret_key="s3cret", session_token="token"))
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


def test_motos_reset_path_is_the_reset_for_suites_written_for_moto(app: AwsApp) -> None:
    resets: list[bool] = []
    app.stack.on_reset.append(lambda: resets.append(True))
    assert _own(app, "POST", "/moto-api/reset", "10.0.0.1").status == 403  # the same guard
    assert _own(app, "GET", "/moto-api/reset", "127.0.0.1").status == 405
    assert resets == []
    assert _own(app, "POST", "/moto-api/reset", "127.0.0.1").status == 200
    assert resets == [True]
    signed = Request("POST", "/moto-api/reset", "/moto-api/reset", "", {"authorization": "AWS4-HMAC-SHA256 x"}, b"",
                     "127.0.0.1")
    assert asyncio.run(app.handle(signed)).status != 200 and resets == [True]  # a signed call is an S3 call


def test_health_lists_services_and_version(app: AwsApp) -> None:
    body = json.loads(_own(app, "GET", "/_onceflow/health", "10.1.1.1").body)
    assert body["status"] == "running" and body["version"]
    assert set(body["services"]) == {"dynamodb", "dynamodbstreams", "stepfunctions", "lambda", "iam", "sts", "logs",
                                     "sqs", "sns", "events", "scheduler", "s3", "cloudformation"}


# ---------------------------------------------------------------- commits=True handlers
MIGRATION = [("w-0001", "CREATE TABLE w (k TEXT PRIMARY KEY);")]


@pytest.fixture
def durable_app(tmp_path: Any) -> Iterator[AwsApp]:
    stack = Stack(Settings(data_dir=tmp_path), Database(str(tmp_path / "app.db")))
    stack.db.migrate(MIGRATION)
    application = AwsApp(stack, specs())
    yield application
    application.close()
    stack.db.close()


def committing_handler(app: AwsApp, events: list[str], seqs: dict[str, int] | None = None) -> None:
    """A commits=True PutItem that records where it ran, its commit number (in `seqs`, by key) and
    each fsync of the store, with the thread that made it."""
    import threading

    from onceflow.registry import operation

    db = app.stack.db
    real = db._fsync_wal

    def fsync() -> None:
        events.append(f"fsync {db._committed} on {threading.current_thread().name}")
        real()

    db._fsync_wal = fsync  # type: ignore[method-assign]

    @operation("PutItem", commits=True)
    def put(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        key = params["Item"]["k"]["S"]
        db.write(lambda c: c.execute("INSERT INTO w VALUES (?)", (key,)))
        events.append(f"commit {db._committed} on {threading.current_thread().name}")
        if seqs is not None:
            seqs[key] = db._committed
        return {}

    app.stack.registry.add("dynamodb", "PutItem", put)


def put_request(key: str) -> Request:
    return signed("dynamodb", "PutItem", {"TableName": "t", "Item": {"k": {"S": key}}})


def test_a_committing_handler_runs_on_the_loop_and_answers_after_its_sync(durable_app: AwsApp) -> None:
    events: list[str] = []
    committing_handler(durable_app, events)

    async def run() -> tuple[Response, str]:
        import threading

        response = await durable_app.handle(put_request("a"))
        return response, threading.current_thread().name

    response, loop_thread = asyncio.run(run())
    assert response.status == 200
    # commit 1 was the migration; a lone request syncs on the loop too
    assert events == [f"commit 2 on {loop_thread}", f"fsync 2 on {loop_thread}"]


def test_a_committing_handler_goes_to_the_pool_while_another_thread_writes(durable_app: AwsApp) -> None:
    import threading

    events: list[str] = []
    committing_handler(durable_app, events)
    inside, release = threading.Event(), threading.Event()

    def long_writer() -> None:
        with durable_app.stack.db.transaction():
            inside.set()
            release.wait(5)

    writer = threading.Thread(target=long_writer)
    writer.start()
    inside.wait(5)

    async def run() -> Response:
        answer = asyncio.ensure_future(durable_app.handle(put_request("b")))
        await asyncio.sleep(0.05)
        assert not answer.done()  # waiting for the writer, in a pool thread, while the loop runs on
        release.set()
        return await answer

    assert asyncio.run(run()).status == 200
    writer.join()
    assert [e.split(" on ")[1].startswith("onceflow-call") for e in events if e.startswith("commit")] == [True]
    assert durable_app.stack.db.query_one("SELECT k FROM w")["k"] == "b"


def test_concurrent_committing_requests_share_fsyncs_on_the_sync_thread(durable_app: AwsApp) -> None:
    events: list[str] = []
    seqs: dict[str, int] = {}
    committing_handler(durable_app, events, seqs)
    answered: dict[str, tuple[int, int]] = {}  # key -> (status, highest synced commit when answered)

    async def one(key: str) -> None:
        request = put_request(key)
        scope = {"type": "http", "method": "POST", "path": "/", "raw_path": b"/", "query_string": b"",
                 "headers": [(k.encode(), v.encode()) for k, v in request.headers.items()], "client": ("127.0.0.1", 1)}

        async def receive() -> dict[str, Any]:  # the body is there already, as uvicorn hands it over
            return {"type": "http.request", "body": request.body, "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answered[key] = (message["status"], durable_app.stack.db._synced)

        await durable_app(scope, receive, send)

    async def run() -> None:
        await asyncio.gather(*(one(f"k{i}") for i in range(16)))

    executor = durable_app.calls.sync_executor
    real_submit = executor.submit
    rounds: list[str] = []  # what was handed to the sync thread

    def submit(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        rounds.append(fn.__name__)
        return real_submit(fn, *args, **kwargs)

    executor.submit = submit  # type: ignore[method-assign]
    asyncio.run(run())
    # all 16 committed before the first answer waited: one round of the sync thread covers them all
    assert rounds == ["_run"], rounds
    assert sorted(answered) == sorted(seqs) and len(seqs) == 16
    assert all(status == 200 and synced >= seqs[key] for key, (status, synced) in answered.items())
    fsyncs = [e for e in events if e.startswith("fsync")]
    assert 1 <= len(fsyncs) < 16, events  # the commits shared syncs
    assert all(e.endswith("on onceflow-sync_0") for e in fsyncs), fsyncs
    assert durable_app.stack.db.query_one("SELECT count(*) AS n FROM w")["n"] == 16


def test_a_bounded_handler_runs_on_the_loop_and_past_its_budget_again_in_the_pool(app: AwsApp) -> None:
    import threading

    from onceflow.registry import OverBudget, on_loop, operation

    runs: list[tuple[bool, bool]] = []  # (on the loop's budget, on the loop's thread)
    loop_thread = threading.current_thread()  # asyncio.run runs the loop on this thread

    @operation("Query", bounded=True)
    def query(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        runs.append((on_loop(), threading.current_thread() is loop_thread))
        if on_loop() and params.get("Limit", 0) > 1:
            raise OverBudget
        return {"Count": params.get("Limit", 0)}

    app.stack.registry.add("dynamodb", "Query", query)
    small = call(app, signed("dynamodb", "Query", {"TableName": "t", "Limit": 1}))
    assert (small.status, runs) == (200, [(True, True)])
    runs.clear()
    large = call(app, signed("dynamodb", "Query", {"TableName": "t", "Limit": 5}))
    assert (large.status, json.loads(large.body)["Count"], runs) == (200, 5, [(True, True), (False, False)])


@pytest.mark.parametrize(("service", "operation", "params", "code"), [
    ("logs", "PutResourcePolicy", {"policyName": "p", "policyDocument": "x"}, "ValidationException"),
    ("iam", "CreatePolicy", {"PolicyName": "p", "PolicyDocument": "x"}, "ValidationError")])
def test_a_document_nested_past_a_handlers_parser_is_a_400_in_the_protocols_code(
        app: AwsApp, service: str, operation: str, params: dict[str, Any], code: str) -> None:
    def handler(ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return json.loads("[" * 200_000 + "]" * 200_000)  # raises RecursionError in Python's parser

    app.stack.registry.add(service, operation, handler)
    response = call(app, signed(service, operation, params))
    assert response.status == 400
    assert code.encode() in response.body and b"nested too deeply" in response.body
    assert b"Traceback" not in response.body and b"RecursionError" not in response.body
