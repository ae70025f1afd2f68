"""What `onceflow serve` leaves unimported until a request needs it (issue 23: start in 0.3 s).

Each of these costs a tenth of a second or more of start-up; a module-level import that brings one
back is a regression this catches (timings themselves are bench/bench_startup.py's)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from onceflow import internal
from onceflow.config import Settings
from onceflow.context import Principal
from onceflow.server import build_stack
from onceflow.stack import no_uid

DEFERRED = ("boto3", "botocore", "botocore.session", "botocore.client", "botocore.loaders", "botocore.model",
            "cryptography", "segno", "signxml", "lxml", "urllib3", "dateutil", "jsonata", "jinja2",
            "onceflow.prove.proof",
            "onceflow.console.app",
            # set up on their first request (server.py SETUPS, stack.py Stack.defer)
            "onceflow.ddb", "onceflow.ddbstreams", "onceflow.s3", "onceflow.lambda_", "onceflow.logs", "onceflow.sqs",
            "onceflow.sns", "onceflow.sfn", "onceflow.events", "onceflow.scheduler", "onceflow.cloudformation")

PROGRAM = r"""
import json, sys
import onceflow.cli, onceflow.faults.cli, onceflow.prove.cli  # what `onceflow serve` imports to parse its arguments
from onceflow.config import Settings
from onceflow.server import build_app, build_stack
stack = build_stack(Settings(in_memory=True, port=0))
app = build_app(stack)
loaded = [name for name, spec in app.specs.services.items() if "model" in vars(spec)]
print(json.dumps({"modules": sorted(m for m in %r if m in sys.modules), "models": loaded}))
stack.db.close()
"""


def test_a_started_server_has_imported_no_heavy_module_and_read_no_model() -> None:
    out = subprocess.run([sys.executable, "-c", PROGRAM % (DEFERRED,)], capture_output=True, text=True, check=True,
                         timeout=120)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found == {"modules": [], "models": []}


# A server in a child process, serving until its stdin says the calls are done; then it reports which
# botocore modules it has imported (botocore's models were read through it before: a fifth of start-up).
SERVING = r"""
import json, sys
from onceflow.config import Settings
from onceflow.server import ThreadedServer
server = ThreadedServer(Settings(host="127.0.0.1", port=0, in_memory=True))
print(server.start(), flush=True)
sys.stdin.readline()
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("botocore", "boto3", "urllib3", "dateutil"))),
      flush=True)
server.stop()
"""
PASS_MACHINE = json.dumps({"StartAt": "P", "States": {"P": {"Type": "Pass", "Result": {"ok": 1}, "End": True}}})


def _first_calls(endpoint: str) -> None:
    """A first IAM, DynamoDB, Step Functions, Lambda and S3 request (and a few more of each), through boto3."""
    import boto3

    session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name="us-east-1")
    ddb = session.client("dynamodb", endpoint_url=endpoint)
    ddb.create_table(TableName="first", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    ddb.put_item(TableName="first", Item={"k": {"S": "a"}, "n": {"N": "1"}})
    assert ddb.get_item(TableName="first", Key={"k": {"S": "a"}})["Item"]["n"] == {"N": "1"}
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):  # an error answer, rendered from the model
        ddb.get_item(TableName="missing", Key={"k": {"S": "a"}})
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                      "Principal": {"Service": "states.amazonaws.com"}}]}
    role = session.client("iam", endpoint_url=endpoint).create_role(  # a query-protocol call too
        RoleName="first-role", AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    sfn = session.client("stepfunctions", endpoint_url=endpoint)
    machine = sfn.create_state_machine(name="first", definition=PASS_MACHINE, roleArn=role)["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=machine, input="{}")["executionArn"]
    for _ in range(600):  # until the Pass state has run (each call is a round trip; no clock is read)
        if sfn.describe_execution(executionArn=execution)["status"] != "RUNNING":
            break
    assert sfn.describe_execution(executionArn=execution)["status"] == "SUCCEEDED"
    lam = session.client("lambda", endpoint_url=endpoint)  # REST-JSON; its runtimes come from the model
    assert lam.list_functions()["Functions"] == []
    with pytest.raises(lam.exceptions.InvalidParameterValueException):
        lam.create_function(FunctionName="first", Runtime="python0.1", Role=role, Handler="app.handler",
                            Code={"ZipFile": b"PK"})
    s3 = session.client("s3", endpoint_url=endpoint)
    s3.create_bucket(Bucket="first-bucket")
    s3.put_object(Bucket="first-bucket", Key="k", Body=b"body")
    assert s3.get_object(Bucket="first-bucket", Key="k")["Body"].read() == b"body"


def test_a_server_and_its_first_dynamodb_sfn_lambda_and_s3_requests_import_no_botocore() -> None:
    with subprocess.Popen([sys.executable, "-c", SERVING], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as child:
        assert child.stdout is not None and child.stdin is not None
        try:
            endpoint = child.stdout.readline().strip()
            assert endpoint.startswith("http://127.0.0.1:"), endpoint
            _first_calls(endpoint)
            child.stdin.write("done\n")
            child.stdin.flush()
            imported = json.loads(child.stdout.readline())
        finally:
            child.kill()
    assert imported == []


def test_a_deferred_service_is_set_up_by_the_first_lookup_of_its_operations_or_its_name() -> None:
    stack = build_stack(Settings(in_memory=True, port=0))
    try:
        assert {"dynamodb", "dynamodbstreams", "stepfunctions", "lambda"} <= set(stack.pending)
        assert stack.loaded("dynamodb") is None
        assert stack.registry.get("dynamodb", "ListTables") is not None
        assert stack.loaded("dynamodb") is not None and "dynamodb" not in stack.pending
        streams = stack.services["dynamodbstreams"]  # by its name in stack.services
        assert streams is stack.services["dynamodb"].streams
        assert stack.resource_resolvers.get("sqs") is not None and stack.loaded("sqs") is not None
        assert stack.registry.get("dynamodb", "NoSuchOperation") is None
        assert stack.services.get("no-such-service") is None
        # The ledger wraps the writes of a service set up after it (prove/ledger.py RECORDERS).
        assert hasattr(stack.registry.get("dynamodb", "PutItem"), "__wrapped__")
        assert not hasattr(stack.registry.get("dynamodb", "GetItem"), "__wrapped__")
    finally:
        stack.db.close()


def test_concurrent_first_lookups_all_wait_for_the_one_setup() -> None:
    stack = build_stack(Settings(in_memory=True, port=0))
    found: list[Any] = []
    start = threading.Barrier(6)

    def lookup() -> None:
        start.wait()
        found.append(stack.registry.get("stepfunctions", "ListStateMachines"))

    threads = [threading.Thread(target=lookup) for _ in range(6)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert len(found) == 6 and all(handler is not None for handler in found)
        assert len({id(getattr(h, "__self__", h)) for h in found}) == 1  # one API object: one setup
    finally:
        stack.db.close()


def test_a_setup_deferred_past_start_runs_its_start_hooks_then() -> None:
    ran: list[str] = []

    class Probe:
        provides = ("probe",)

        def __call__(self, stack: Any) -> None:
            stack.services["probe"] = "set up"
            stack.on_start.append(lambda: ran.append("started"))

    stack = build_stack(Settings(in_memory=True, port=0))
    try:
        stack.defer(Probe())  # type: ignore[arg-type]
        for hook in stack.start():
            hook()
        assert ran == []
        assert stack.services["probe"] == "set up"
        assert ran == ["started"]
    finally:
        for hook in reversed(stack.on_shutdown):
            hook()
        stack.db.close()


def test_a_service_with_state_in_the_data_folder_is_set_up_at_start(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, port=0)
    first = build_stack(settings)  # a new folder: nothing to resume, everything waits
    assert {"stepfunctions", "sqs", "sns"} <= set(first.pending)
    first.registry.get("sns", "ListTopics")  # set up (its tables made) but no row: still nothing to resume
    internal.call(first, Principal("000000000000"), "sqs", "CreateQueue", {"QueueName": "kept"}, region="us-east-1")
    first.db.close()
    again = build_stack(settings)  # its queue's messages, its pollers: resumed at start
    try:
        assert again.loaded("sqs") is not None and "sqs" not in again.pending
        assert {"stepfunctions", "sns"} <= set(again.pending)  # no rows: they wait again
    finally:
        again.db.close()
    everything = build_stack(settings, lazy=False)
    try:
        assert everything.pending == {} and everything.loaded("stepfunctions") is not None
    finally:
        everything.db.close()


def test_the_front_doors_handler_uid_check_sets_lambda_up_for_a_foreign_uid_only() -> None:
    import os

    stack = build_stack(Settings(in_memory=True, port=0))
    try:
        assert stack.handler_uid(os.getuid()) is False  # the user's own tools: Lambda stays unset
        assert "lambda" in stack.pending
        from onceflow.lambda_.runtime.sandbox import UID_BASE, Sandbox

        assert stack.handler_uid(UID_BASE) is Sandbox().is_handler_uid(UID_BASE)
        assert "lambda" not in stack.pending and stack.is_handler_uid is not no_uid  # the sandbox's rule
    finally:
        for hook in reversed(stack.on_shutdown):
            hook()
        stack.db.close()


def test_the_front_door_leaves_lambda_unset_unless_a_function_url_could_be_addressed() -> None:
    from onceflow.server import build_app
    from onceflow.wire.request import Request

    stack = build_stack(Settings(in_memory=True, port=0))
    app = build_app(stack)
    try:
        plain = Request("GET", "/_onceflow/health", "/_onceflow/health", "", {"host": "127.0.0.1:4566"}, b"",
                        "127.0.0.1")
        preflight = Request("OPTIONS", "/", "/", "", {"host": "127.0.0.1:4566", "origin": "http://127.0.0.1:1",
                                                      "access-control-request-method": "POST"}, b"", "127.0.0.1")
        assert app.screen(plain) is None
        assert app.screen(preflight) is not None  # the front door's own preflight answer
        assert "lambda" in stack.pending  # looking for a function URL set nothing up
    finally:
        app.close()
        stack.db.close()
