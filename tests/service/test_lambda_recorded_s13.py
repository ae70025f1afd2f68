"""Lambda's answers as AWS recorded them in LocalStack's aws-validated test_lambda.py snapshot
(tests/aws/services/lambda_/test_lambda.snapshot.json): TestLambdaBehavior, TestLambdaErrors,
TestLambdaFeatures, TestLambdaConcurrency, TestLambdaVersions, TestLambdaAliases and
TestRequestIdHandling, then TestLambdaBaseFeatures, TestLambdaURL and TestLambdaCleanup, and
test_lambda_runtimes.py's TestPythonRuntimes (validated, no snapshot); each test names the entry it
holds. Compared after LocalStack's normalisations: ARNs, request ids, dates and sizes are not
compared, the rest is. test_lambda_developer_tools.py has no AWS recording (LocalStack only).

Not held here, as onceflow differs by design: the runtime's introspection (/var/task, the sbx_user
login, /proc/1/environ), RLIMIT_CORE/DATA/FSIZE/NPROC (the confinement), an SQS message's SenderId
from Lambda. (A provisioned config's IN_PROGRESS, then READY: test_lambda_provisioned_s13.py.)"""

from __future__ import annotations

import base64
import json
import re
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.exceptions import ClientError
from lambda_setup import admin_role, zip_of

from serverproc import ServerProcess, client_factory

ECHO = "import json\n\n\ndef handler(event, context):\n    print(json.dumps(event))\n    return event\n"
TIMEOUT = '''import logging
import time


def handler(event, context):
    try:
        print("starting wait")
        time.sleep(event["wait"])
        print("done waiting")
    except Exception as e:
        print("exception while waiting")
        logging.error(e)
'''
# The recordings' lambda_version.py: which code ran, under which ARN and version.
VERSION = '''def handler(event, context):
    return {"version_id": "%s", "invoked_arn": context.invoked_function_arn,
            "version_from_ctx": context.function_version}
'''
MULTIPLE = '''def handler(event, context):
    result = {"handler": "handler"}
    print(result)
    return result


def handler_two(event, context):
    result = {"handler": "handler_two"}
    print(result)
    return result
'''
TIMED_OUT = re.compile(r"RequestId: [-0-9a-f]{36} Error: Task timed out after 1\.\d\d seconds")
TRACE = re.compile(r"Root=1-[0-9a-f]{8}-[0-9a-f]{24};Parent=[0-9a-f]{16};Sampled=0")
RATE_EXCEEDED = {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("data")).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def aws(server: ServerProcess) -> Callable[..., Any]:
    return client_factory(server.url)  # type: ignore[no-any-return]  # boto3 client factory


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    """An administrator role, as the recordings used (lambda_su_role)."""
    return admin_role(aws, "rec13")


def create(aws: Callable[..., Any], role: str, code: str = ECHO, module: str = "handler",
           **extra: Any) -> dict[str, Any]:  # fmt: skip
    """As the recordings' create_lambda_function fixture (python3.12, an empty Environment, 30 s),
    waiting until the function is active."""
    name = f"rec13-{uuid.uuid4().hex[:10]}"
    params = {"Runtime": "python3.12", "Timeout": 30, "Environment": {"Variables": {}}, **extra}
    answer = aws("lambda").create_function(
        FunctionName=name, Role=role, Handler=f"{module}.handler", Code={"ZipFile": zip_of(code, f"{module}.py")},
        **params,
    )  # fmt: skip
    aws("lambda").get_waiter("function_active_v2").wait(FunctionName=name)
    return dict(answer)


def payload(answer: dict[str, Any]) -> Any:
    return json.loads(answer["Payload"].read())


def assert_not_found(answer: dict[str, Any], message: str) -> None:
    assert answer["Error"] == {"Code": "ResourceNotFoundException", "Message": message}
    assert (answer["Message"], answer["Type"], answer["ResponseMetadata"]["HTTPStatusCode"]) == (message, "User", 404)


def refused(call: Callable[..., Any], **params: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as info:
        call(**params)
    return dict(info.value.response)


# ----------------------------------------------------------------------------- TestLambdaBehavior
def test_a_timeout_answers_sandbox_timedout(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_invoke_with_timeout: create-result (Pending, Timeout 1) and invoke-result, the
    error typed before its message; test_lambda_invoke_no_timeout: a handler returning None is
    "null"."""
    lam = aws("lambda")
    made = create(aws, role, TIMEOUT, Timeout=1)
    assert (made["State"], made["StateReason"], made["StateReasonCode"]) == (
        "Pending", "The function is being created.", "Creating")  # fmt: skip
    assert made["Timeout"] == 1 and made["Environment"] == {"Variables": {}}
    assert made["LoggingConfig"] == {"LogFormat": "Text", "LogGroup": f"/aws/lambda/{made['FunctionName']}"}
    answer = lam.invoke(FunctionName=made["FunctionName"], Payload=json.dumps({"wait": 2}))
    assert (answer["StatusCode"], answer["FunctionError"], answer["ExecutedVersion"]) == (200, "Unhandled", "$LATEST")
    doc = payload(answer)
    assert list(doc) == ["errorType", "errorMessage"]
    assert doc["errorType"] == "Sandbox.Timedout"
    # the time taken, as AWS words it (1.00 when recorded; a busy machine may say 1.02)
    assert TIMED_OUT.fullmatch(doc["errorMessage"]), doc
    quick = create(aws, role, TIMEOUT, Timeout=2)["FunctionName"]
    answer = lam.invoke(FunctionName=quick, Payload=json.dumps({"wait": 1}))
    assert "FunctionError" not in answer and answer["Payload"].read() == b"null"


def test_a_timed_out_environment_keeps_tmp_but_not_memory(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_invoke_timed_out_environment_reuse (recorded 2024-04): after a timeout the next
    invocation still reads the file /tmp held, but a module global is back to its first value."""
    code = '''number = 0


def handler(event, context):
    global number
    import time
    if "write-file" in event:
        open("/tmp/temp-store", "w").write(event["write-file"])
    elif "read-file" in event:
        return {"content": open("/tmp/temp-store").read()}
    elif "set-number" in event:
        number = event["set-number"]
    elif "read-number" in event:
        return {"number": number}
    elif "sleep" in event:
        time.sleep(event["sleep"])
'''
    lam = aws("lambda")
    name = create(aws, role, code, Timeout=1)["FunctionName"]

    def run(event: dict[str, Any]) -> Any:
        return payload(lam.invoke(FunctionName=name, Payload=json.dumps(event)))

    assert run({"write-file": "some-content"}) is None
    assert run({"read-file": True}) == {"content": "some-content"}
    assert run({"set-number": 42}) is None
    assert run({"read-number": True}) == {"number": 42}
    assert TIMED_OUT.fullmatch(run({"sleep": 2})["errorMessage"])
    assert run({"read-file": True}) == {"content": "some-content"}
    assert run({"read-number": True}) == {"number": 0}


def test_a_warm_environment_keeps_its_globals(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_cache_local[python]: counter 0, then 1."""
    code = "counter = 0\n\n\ndef handler(event, context):\n    global counter\n    out = {'counter': counter}\n" \
           "    counter += 1\n    return out\n"  # fmt: skip
    lam = aws("lambda")
    name = create(aws, role, code)["FunctionName"]
    assert [payload(lam.invoke(FunctionName=name)) for _ in range(2)] == [{"counter": 0}, {"counter": 1}]


def test_updating_code_for_another_architecture(aws: Callable[..., Any], role: str) -> None:
    """test_mixed_architecture: UpdateFunctionCode with Architectures [arm64] answers arm64 (InProgress,
    Creating) and another runtime build's RuntimeVersionArn; the function stays arm64."""
    lam = aws("lambda")
    made = create(aws, role, Architectures=["x86_64"])
    assert made["Architectures"] == ["x86_64"]
    name = made["FunctionName"]
    update = lam.update_function_code(FunctionName=name, ZipFile=zip_of(ECHO, "handler.py"), Architectures=["arm64"])
    assert (update["Architectures"], update["LastUpdateStatus"], update["LastUpdateStatusReasonCode"]) == (
        ["arm64"], "InProgress", "Creating")  # fmt: skip
    build = update["RuntimeVersionConfig"]["RuntimeVersionArn"]
    assert build.startswith("arn:aws:lambda:us-east-1::runtime:")
    assert build != made["RuntimeVersionConfig"]["RuntimeVersionArn"]
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    assert lam.get_function_configuration(FunctionName=name)["Architectures"] == ["arm64"]


def test_the_runtimes_resource_limits(aws: Callable[..., Any], role: str) -> None:
    """test_runtime_ulimits: the limits an execution environment has per process, as recorded (1024
    files, 64 KiB locked memory, an 8 MiB stack, the rest unlimited). Not compared: RLIMIT_CORE,
    RLIMIT_DATA, RLIMIT_FSIZE and RLIMIT_NPROC, which onceflow's confinement sets on the host (no
    core files; MemorySize, EphemeralStorage and the per-uid process quota enforced)."""
    code = (
        "import resource\n\n\ndef handler(event, context):\n"
        "    return {n: resource.getrlimit(getattr(resource, n)) for n in event['names']}\n"
    )
    name = create(aws, role, code)["FunctionName"]
    names = ["RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_MEMLOCK", "RLIMIT_NOFILE", "RLIMIT_RSS", "RLIMIT_STACK"]
    got = payload(aws("lambda").invoke(FunctionName=name, Payload=json.dumps({"names": names})))
    assert got == {"RLIMIT_AS": [-1, -1], "RLIMIT_CPU": [-1, -1], "RLIMIT_MEMLOCK": [65536, 65536],
                   "RLIMIT_NOFILE": [1024, 1024], "RLIMIT_RSS": [-1, -1], "RLIMIT_STACK": [8388608, -1]}


def test_the_runtimes_environment(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_init_environment (python3.14, 2026-02): every variable of the recorded runtime
    environment is there (read from the function's own process: /proc/1 is not the runtime's here),
    LD_LIBRARY_PATH as Lambda's with the function's folder in /var/task's place (no layers: /opt
    stays)."""
    recorded = [
        "AWS_LAMBDA_FUNCTION_VERSION", "AWS_EXECUTION_ENV", "AWS_DEFAULT_REGION", "AWS_LAMBDA_LOG_STREAM_NAME",
        "AWS_REGION", "PWD", "_HANDLER", "TZ", "LAMBDA_TASK_ROOT", "LANG", "AWS_SECRET_ACCESS_KEY",
        "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_RUNTIME_API", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "LAMBDA_RUNTIME_DIR",
        "_AWS_XRAY_DAEMON_ADDRESS", "AWS_XRAY_DAEMON_ADDRESS", "SHLVL", "AWS_ACCESS_KEY_ID", "LD_LIBRARY_PATH",
        "AWS_LAMBDA_FUNCTION_NAME", "PATH", "AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_SESSION_TOKEN",
        "AWS_XRAY_CONTEXT_MISSING", "_AWS_XRAY_DAEMON_PORT", "LC_CTYPE", "PYTHONPATH", "_X_AMZN_TRACE_ID",
    ]  # fmt: skip
    code = "import os\n\n\ndef handler(event, context):\n    return dict(os.environ)\n"
    name = create(aws, role, code, Runtime="python3.14")["FunctionName"]
    env = payload(aws("lambda").invoke(FunctionName=name))
    assert [key for key in recorded if key not in env] == []
    root = env["LAMBDA_TASK_ROOT"]
    assert env["LD_LIBRARY_PATH"] == (
        f"/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:{root}:{root}/lib:/opt/lib")  # fmt: skip
    assert (env["AWS_EXECUTION_ENV"], env["LC_CTYPE"], env["SHLVL"], env["TZ"]) == (
        "AWS_Lambda_python3.14", "C.UTF-8", "0", ":UTC")  # fmt: skip


# ------------------------------------------------------------------------------- TestLambdaErrors
def invoke_error(aws: Callable[..., Any], role: str, code: str, module: str, **extra: Any) -> dict[str, Any]:
    name = create(aws, role, code, module, **extra)["FunctionName"]
    answer = aws("lambda").invoke(FunctionName=name)
    assert (answer["StatusCode"], answer["FunctionError"], answer["ExecutedVersion"]) == (200, "Unhandled", "$LATEST")
    return dict(payload(answer))


def test_an_error_at_import_has_no_request_id(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_runtime_error: the import's frames end in the module's line; requestId ""."""
    doc = invoke_error(aws, role, 'raise Exception("Runtime startup fails")\n', "lambda_runtime_error")
    assert list(doc) == ["errorMessage", "errorType", "requestId", "stackTrace"]
    assert (doc["errorMessage"], doc["errorType"], doc["requestId"]) == ("Runtime startup fails", "Exception", "")
    assert doc["stackTrace"][0].endswith(
        "in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\n")
    assert doc["stackTrace"][-1] == (
        '  File "/var/task/lambda_runtime_error.py", line 1, in <module>\n'
        '    raise Exception("Runtime startup fails")\n')


def test_an_error_in_the_handler(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_handler_error."""
    code = 'def handler(event, context):\n    raise Exception("Handler fails")\n'
    doc = invoke_error(aws, role, code, "lambda_handler_error")
    assert (doc["errorMessage"], doc["errorType"]) == ("Handler fails", "Exception")
    assert uuid.UUID(doc["requestId"])
    assert doc["stackTrace"] == [
        '  File "/var/task/lambda_handler_error.py", line 2, in handler\n    raise Exception("Handler fails")\n']


@pytest.mark.parametrize("code", ["import sys\n\n\ndef handler(event, context):\n    sys.exit(0)\n",
                                  "import sys\n\nsys.exit(0)\n"], ids=["handler_exit", "runtime_exit"])  # fmt: skip
def test_a_clean_exit_gives_no_reason(aws: Callable[..., Any], role: str, code: str) -> None:
    """test_lambda_handler_exit, test_lambda_runtime_exit."""
    doc = invoke_error(aws, role, code, "lambda_exit")
    assert list(doc) == ["errorType", "errorMessage"] and doc["errorType"] == "Runtime.ExitError"
    assert doc["errorMessage"].endswith(" Error: Runtime exited without providing a reason")


def test_a_missing_exec_wrapper_ends_the_runtime(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_runtime_wrapper_not_found: AWS_LAMBDA_EXEC_WRAPPER=/idontexist.sh, exit status
    127 (the shell's), on every invocation."""
    env = {"Variables": {"AWS_LAMBDA_EXEC_WRAPPER": "/idontexist.sh"}}
    name = create(aws, role, ECHO, "lambda_echo", Environment=env)["FunctionName"]
    for _ in range(2):
        answer = aws("lambda").invoke(FunctionName=name)
        assert answer["FunctionError"] == "Unhandled"
        doc = payload(answer)
        assert doc["errorType"] == "Runtime.ExitError"
        assert doc["errorMessage"].endswith(" Error: Runtime exited with error: exit status 127")


@pytest.mark.parametrize(("body", "detail"), [
    (b"n\x87r\x9e\xe9\xb5\xd7I\xee\x9bmt", "Invalid UTF-8 start byte 0x87\n at [Source: REDACTED "
     "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 3]"),
    (b"\x99\xeb,j\x07\xa1zYh", "Unexpected character ((CTRL-CHAR, code 153)): expected a valid value (JSON String, "
     "Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: REDACTED "
     "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]"),
], ids=["body", "message"])  # fmt: skip
def test_a_payload_in_base64_is_refused(aws: Callable[..., Any], role: str, body: bytes, detail: str) -> None:
    """test_lambda_invoke_payload_encoding_error[body] and [message] (the CLI v2's base64 default)."""
    name = create(aws, role, ECHO, "lambda_echo")["FunctionName"]
    answer = refused(aws("lambda").invoke, FunctionName=name, Payload=body)
    message = f"Could not parse request body into json: Could not parse payload into json: {detail}"
    assert answer["Error"] == {"Code": "InvalidRequestContentException", "Message": message}
    assert (answer["Type"], answer["message"], answer["ResponseMetadata"]["HTTPStatusCode"]) == ("User", message, 400)


# ----------------------------------------------------------------------------- TestLambdaFeatures
def test_invocation_types_and_the_log_tail(aws: Callable[..., Any], role: str) -> None:
    """test_invocation_with_logs[python3.10] (START, the printed event, END, REPORT with its Init
    Duration), test_invocation_type_request_response / _event / _dry_run[python3.10],
    test_invoke_exceptions (a missing function named with :$LATEST)."""
    lam = aws("lambda")
    arn = create(aws, role, Runtime="python3.10", Timeout=3)["FunctionArn"]
    answer = lam.invoke(FunctionName=arn, Payload=b"{}", LogType="Tail")
    assert payload(answer) == {} and answer["ExecutedVersion"] == "$LATEST"
    lines = base64.b64decode(answer["LogResult"]).decode().splitlines(keepends=True)
    assert [line.split(" RequestId")[0] for line in lines[::2]] == ["START", "END"]
    assert lines[1] == "{}\n" and lines[3].startswith("REPORT RequestId: ")
    assert "\tMemory Size: 128 MB\tMax Memory Used: " in lines[3] and lines[3].endswith(" ms\t\n")
    assert "\tInit Duration: " in lines[3]
    assert payload(lam.invoke(FunctionName=arn, Payload=b"{}", InvocationType="RequestResponse")) == {}
    for kind, status in (("Event", 202), ("DryRun", 204)):
        answer = lam.invoke(FunctionName=arn, Payload=b"{}", InvocationType=kind)
        assert (answer["StatusCode"], answer["Payload"].read()) == (status, b"")
        assert "ExecutedVersion" not in answer
    missing = refused(lam.invoke, FunctionName="doesnotexist")
    message = "Function not found: arn:aws:lambda:us-east-1:000000000000:function:doesnotexist:$LATEST"
    assert_not_found(missing, message)


def test_a_published_version_from_s3_logs_its_version(aws: Callable[..., Any], role: str) -> None:
    """test_invocation_with_qualifier: CreateFunction from S3 with Publish answers Version 1 (Pending);
    invoked at 1 with LogType Tail, the tail (REPORT aside) is START ... Version: 1, the print, the
    logging line, END; test_upload_lambda_from_s3: the same event and context at $LATEST."""
    code = '''import logging
logger = logging.getLogger()
logger.setLevel(logging.INFO)


def handler(event, context):
    print("Lambda log message - print function")
    logger.info("Lambda log message - logging module")
    return {"event": event, "context": {"function_version": context.function_version,
                                        "invoked_function_arn": context.invoked_function_arn}}
'''
    lam, s3 = aws("lambda"), aws("s3")
    bucket = f"rec13-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="test_lambda.zip", Body=zip_of(code, "handler.py"))
    name = f"rec13-{uuid.uuid4().hex[:10]}"
    made = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Publish=True, Timeout=10,
                               Handler="handler.handler", Code={"S3Bucket": bucket, "S3Key": "test_lambda.zip"})
    assert (made["Version"], made["State"], made["FunctionArn"].endswith(f":{name}")) == ("1", "Pending", True)
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    event = b'{"foo": "bar with \'quotes\\""}'
    answer = lam.invoke(FunctionName=name, Payload=event, Qualifier="1", LogType="Tail")
    request_id = answer["ResponseMetadata"]["RequestId"]
    tail = base64.b64decode(answer["LogResult"]).decode().splitlines()
    lines = [line for line in tail if not line.startswith("REPORT")]
    assert lines[0] == f"START RequestId: {request_id} Version: 1" and lines[-1] == f"END RequestId: {request_id}"
    assert lines[1] == "Lambda log message - print function"
    assert lines[2].startswith("[INFO]\t") and lines[2].endswith(f"\t{request_id}\tLambda log message - logging module")
    assert answer["ExecutedVersion"] == "1"
    assert payload(answer) == {"event": {"foo": "bar with 'quotes\""},
                               "context": {"function_version": "1", "invoked_function_arn": f"{made['FunctionArn']}:1"}}
    latest = payload(lam.invoke(FunctionName=name, Payload=event))
    assert latest["context"] == {"function_version": "$LATEST", "invoked_function_arn": made["FunctionArn"]}


def test_a_response_over_the_limit(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaBaseFeatures test_lambda_too_large_response: 7 MiB answered, twice."""
    code = 'def handler(event, context):\n    print("generating bytes")\n    return "a" * event["bytenum"]\n'
    name = create(aws, role, code)["FunctionName"]
    for _ in range(2):
        answer = aws("lambda").invoke(FunctionName=name, Payload=json.dumps({"bytenum": 7 * 1024 * 1024}))
        assert answer["FunctionError"] == "Unhandled"
        assert payload(answer) == {
            "errorMessage": "Response payload size exceeded maximum allowed payload size (6291556 bytes).",
            "errorType": "Function.ResponseSizeTooLarge"}


# -------------------------------------------------------------------------- TestLambdaConcurrency
def test_concurrency_crud(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_concurrency_crud: nothing reserved reads as no member; 0 is taken."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]

    def reserved() -> dict[str, Any]:
        got = lam.get_function_concurrency(FunctionName=name)
        got.pop("ResponseMetadata")
        return dict(got)

    assert reserved() == {}
    assert lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)[
        "ReservedConcurrentExecutions"] == 0
    assert reserved() == {"ReservedConcurrentExecutions": 0}
    lam.delete_function_concurrency(FunctionName=name)
    assert reserved() == {}


def provisioned_ready(aws: Callable[..., Any], name: str, qualifier: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        got = aws("lambda").get_provisioned_concurrency_config(FunctionName=name, Qualifier=qualifier)
        if got["Status"] == "READY":
            return dict(got)
        time.sleep(0.5)
    raise AssertionError("provisioned concurrency never READY")


def assert_throttled(answer: dict[str, Any]) -> None:
    assert answer["Error"] == RATE_EXCEEDED and answer["ResponseMetadata"]["HTTPStatusCode"] == 429
    assert (answer["Reason"], answer["Type"], answer["message"]) == (
        "ReservedFunctionConcurrentInvocationLimitExceeded", "User", "Rate Exceeded.")  # fmt: skip


def test_reserved_all_provisioned_blocks_latest(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_concurrency_block: v1_result, reserved 1, $LATEST runs, provisioned 1 on v1
    (202 IN_PROGRESS, nothing allocated), then $LATEST is throttled and v1 runs."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    v1 = lam.publish_version(FunctionName=name)
    assert (v1["Version"], v1["State"], v1["LastUpdateStatus"]) == ("1", "Active", "Successful")
    assert v1["FunctionArn"].endswith(f":{name}:1") and v1["ResponseMetadata"]["HTTPStatusCode"] == 201
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=1)
    hello = json.dumps({"hello": "world"})
    assert payload(lam.invoke(FunctionName=name, Qualifier="$LATEST", Payload=hello)) == {"hello": "world"}
    put = lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="1", ProvisionedConcurrentExecutions=1)
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert (put["Status"], put["AllocatedProvisionedConcurrentExecutions"],
            put["AvailableProvisionedConcurrentExecutions"], put["RequestedProvisionedConcurrentExecutions"]) == (
        "IN_PROGRESS", 0, 0, 1)  # fmt: skip
    provisioned_ready(aws, name, "1")
    for _ in range(2):
        assert_throttled(refused(lam.invoke, FunctionName=name, Qualifier="$LATEST", Payload=hello))
        answer = lam.invoke(FunctionName=name, Qualifier="1", Payload=hello)
        assert answer["ExecutedVersion"] == "1" and payload(answer) == {"hello": "world"}


def test_zero_reserved_sends_the_event_to_on_failure(aws: Callable[..., Any], role: str) -> None:
    """test_reserved_concurrency: the $LATEST configuration, a throttled RequestResponse, and an Event
    invocation (no payload) whose record names ZeroReservedConcurrency, 0 attempts, the payload {}
    and no response, in a message with an X-Ray AWSTraceHeader (its SenderId's value, masked in the
    recording, is not compared)."""
    lam, sqs = aws("lambda"), aws("sqs")
    name = create(aws, role, Timeout=20)["FunctionName"]
    fn = lam.get_function_configuration(FunctionName=name, Qualifier="$LATEST")
    assert fn["FunctionArn"].endswith(f":{name}:$LATEST") and fn["LastUpdateStatus"] == "Successful"
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=0)
    assert_throttled(refused(lam.invoke, FunctionName=fn["FunctionArn"], InvocationType="RequestResponse"))
    url = sqs.create_queue(QueueName=f"rec13-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    put = lam.put_function_event_invoke_config(
        FunctionName=name, MaximumRetryAttempts=0, DestinationConfig={"OnFailure": {"Destination": queue_arn}})
    assert put["DestinationConfig"] == {"OnFailure": {"Destination": queue_arn}, "OnSuccess": {}}
    assert put["FunctionArn"] == fn["FunctionArn"] and put["MaximumRetryAttempts"] == 0
    answer = lam.invoke(FunctionName=fn["FunctionArn"], InvocationType="Event")
    assert (answer["StatusCode"], answer["Payload"].read()) == (202, b"")
    messages: list[dict[str, Any]] = []
    deadline = time.monotonic() + 30
    while not messages and time.monotonic() < deadline:
        messages = sqs.receive_message(QueueUrl=url, AttributeNames=["All"], WaitTimeSeconds=1).get("Messages", [])
    attributes = messages[0]["Attributes"]
    assert sorted(attributes) == ["AWSTraceHeader", "ApproximateFirstReceiveTimestamp", "ApproximateReceiveCount",
                                  "SenderId", "SentTimestamp"]  # fmt: skip
    assert TRACE.fullmatch(attributes["AWSTraceHeader"]) and attributes["ApproximateReceiveCount"] == "1"
    body = json.loads(messages[0]["Body"])
    assert list(body) == ["version", "timestamp", "requestContext", "requestPayload"]
    assert body["version"] == "1.0" and body["requestPayload"] == {}
    context = body["requestContext"]
    assert context == {"requestId": context["requestId"], "functionArn": fn["FunctionArn"],
                       "condition": "ZeroReservedConcurrency", "approximateInvokeCount": 0}


def test_reserved_and_provisioned_overlap(aws: Callable[..., Any], role: str) -> None:
    """test_reserved_provisioned_overlap: reserved below the provisioned sum refused (its leading and
    doubled spaces), reserved equal to it throttles $LATEST, UpdateFunctionConfiguration answers
    InProgress, and no further provisioned concurrency fits."""
    lam = aws("lambda")
    name = create(aws, role, Timeout=3)["FunctionName"]
    v1 = lam.publish_version(FunctionName=name)["Version"]
    lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier=v1, ProvisionedConcurrentExecutions=2)
    ready = provisioned_ready(aws, name, v1)
    assert ready["AllocatedProvisionedConcurrentExecutions"] == ready["AvailableProvisionedConcurrentExecutions"] == 2
    low = refused(lam.put_function_concurrency, FunctionName=name, ReservedConcurrentExecutions=1)
    message = " ReservedConcurrentExecutions  1 should not be lower than function's total provisioned concurrency [2]."
    assert low["Error"] == {"Code": "InvalidParameterValueException", "Message": message}
    assert low["message"] == message and "Type" not in low
    lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=2)
    assert lam.get_function_concurrency(FunctionName=name)["ReservedConcurrentExecutions"] == 2
    assert_throttled(refused(lam.invoke, FunctionName=name))
    updated = lam.update_function_configuration(FunctionName=name, Timeout=15)
    assert (updated["LastUpdateStatus"], updated["LastUpdateStatusReason"], updated["LastUpdateStatusReasonCode"]) == (
        "InProgress", "The function is being created.", "Creating")  # fmt: skip
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    v2 = lam.publish_version(FunctionName=name)["Version"]
    too_many = ("Requested Provisioned Concurrency should not be greater than the reservedConcurrentExecution "
                "for function")
    for qualifier, count in ((v2, 1), (v1, 3)):
        answer = refused(lam.put_provisioned_concurrency_config, FunctionName=name, Qualifier=qualifier,
                         ProvisionedConcurrentExecutions=count)  # fmt: skip
        assert answer["Error"] == {"Code": "InvalidParameterValueException", "Message": too_many}
        assert (answer["Type"], answer["message"]) == ("User", too_many)


# ----------------------------------------------------------------------------- TestLambdaVersions
def versioned(aws: Callable[..., Any], role: str, **extra: Any) -> dict[str, Any]:
    """As the recordings' create_lambda_function_aws: no Environment, the default 3 s timeout."""
    name = f"rec13-{uuid.uuid4().hex[:10]}"
    made = aws("lambda").create_function(
        FunctionName=name, Handler="handler.handler", Code={"ZipFile": zip_of(VERSION % "version1", "handler.py")},
        PackageType="Zip", Role=role, Runtime="python3.12", **extra,
    )  # fmt: skip
    aws("lambda").get_waiter("function_active_v2").wait(FunctionName=name)
    return dict(made)


def ran(aws: Callable[..., Any], name: str, qualifier: str | None = None) -> tuple[str, Any]:
    extra = {"Qualifier": qualifier} if qualifier else {}
    answer = aws("lambda").invoke(FunctionName=name, Payload=b"{}", **extra)
    return answer["ExecutedVersion"], payload(answer)


def test_versions_with_code_changes(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_versions_with_code_changes: UpdateFunctionCode answers InProgress/Creating,
    with Publish the new version Pending without LastUpdateStatus; each version runs its code."""
    lam = aws("lambda")
    made = versioned(aws, role, Description="No version :(")
    name, arn = made["FunctionName"], made["FunctionArn"]
    assert made["Timeout"] == 3 and "Environment" not in made
    first = lam.publish_version(FunctionName=name, Description="First version description :)")
    assert (first["Version"], first["Description"], first["State"]) == ("1", "First version description :)", "Active")
    update = lam.update_function_code(FunctionName=name, ZipFile=zip_of(VERSION % "version2", "handler.py"))
    assert (update["Version"], update["Description"], update["State"], update["LastUpdateStatus"]) == (
        "$LATEST", "No version :(", "Active", "InProgress")  # fmt: skip
    assert (update["LastUpdateStatusReason"], update["LastUpdateStatusReasonCode"]) == (
        "The function is being created.", "Creating")  # fmt: skip
    waiter = lam.get_waiter("function_updated_v2")
    waiter.wait(FunctionName=name)

    def expect(version: str, code: str, qualifier: str | None = None) -> None:
        shown = "$LATEST" if qualifier is None else version
        assert ran(aws, name, qualifier) == (shown, {
            "version_id": code, "invoked_arn": arn if qualifier is None else f"{arn}:{qualifier}",
            "version_from_ctx": shown})  # fmt: skip

    expect("$LATEST", "version2")
    expect("1", "version1", "1")
    second = lam.publish_version(FunctionName=name, Description="Second version description :)")
    assert second["Version"] == "2" and second["LastUpdateStatus"] == "Successful"
    expect("2", "version2", "2")
    published = lam.update_function_code(FunctionName=name, ZipFile=zip_of(VERSION % "version3", "handler.py"),
                                         Publish=True)
    assert (published["Version"], published["FunctionArn"], published["State"], published["StateReasonCode"]) == (
        "3", f"{arn}:3", "Pending", "Creating")  # fmt: skip
    assert "LastUpdateStatus" not in published and published["Description"] == "No version :("
    waiter.wait(FunctionName=name, Qualifier="3")
    expect("3", "version3", "3")
    expect("$LATEST", "version3")
    expect("2", "version2", "2")
    expect("1", "version1", "1")


def test_a_handler_update(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_handler_update: the new handler answers once the update is Successful, and after
    a publish $LATEST keeps it."""
    lam = aws("lambda")
    name = create(aws, role, MULTIPLE)["FunctionName"]
    assert payload(lam.invoke(FunctionName=name)) == {"handler": "handler"}
    update = lam.update_function_configuration(FunctionName=name, Handler="handler.handler_two")
    assert (update["Handler"], update["LastUpdateStatus"], update["LastUpdateStatusReasonCode"]) == (
        "handler.handler_two", "InProgress", "Creating")  # fmt: skip
    waiter = lam.get_waiter("function_updated_v2")
    waiter.wait(FunctionName=name)
    got = lam.get_function(FunctionName=name)
    assert got["Configuration"]["LastUpdateStatus"] == "Successful" and got["Code"]["RepositoryType"] == "S3"
    assert payload(lam.invoke(FunctionName=name)) == {"handler": "handler_two"}
    version = lam.publish_version(FunctionName=name)["Version"]
    waiter.wait(FunctionName=name, Qualifier=version)
    answer = lam.invoke(FunctionName=name)
    assert answer["ExecutedVersion"] == "$LATEST" and payload(answer) == {"handler": "handler_two"}


# ------------------------------------------------------------------------------ TestLambdaAliases
def test_an_alias_moves_only_when_updated(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_alias_moving: the alias keeps version 1 through a code update and a publish, names
    itself in the invoked ARN, and a missing alias is 'Function not found' 404."""
    lam = aws("lambda")
    made = versioned(aws, role, Description="No version :(")
    name, arn = made["FunctionName"], made["FunctionArn"]
    lam.publish_version(FunctionName=name, Description="First version description :)")
    alias = lam.create_alias(FunctionName=name, FunctionVersion="1", Name="alias1")
    alias.pop("ResponseMetadata")
    assert alias == {"AliasArn": f"{arn}:alias1", "Description": "", "FunctionVersion": "1", "Name": "alias1",
                     "RevisionId": alias["RevisionId"]}  # fmt: skip
    at_alias = {"invoked_arn": f"{arn}:alias1"}
    assert ran(aws, name, "alias1") == ("1", {"version_id": "version1", **at_alias, "version_from_ctx": "1"})
    assert ran(aws, f"{arn}:alias1") == ("1", {"version_id": "version1", **at_alias, "version_from_ctx": "1"})
    lam.update_function_code(FunctionName=name, ZipFile=zip_of(VERSION % "version2", "handler.py"))
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    assert ran(aws, name, "alias1")[1]["version_id"] == "version1"
    assert lam.publish_version(FunctionName=name, Description="Second version description :)")["Version"] == "2"
    assert ran(aws, name, "alias1")[1]["version_id"] == "version1"
    moved = lam.update_alias(FunctionName=name, Name="alias1", FunctionVersion="2")
    assert (moved["FunctionVersion"], moved["ResponseMetadata"]["HTTPStatusCode"]) == ("2", 200)
    assert ran(aws, name, "alias1") == ("2", {"version_id": "version2", **at_alias, "version_from_ctx": "2"})
    missing = refused(lam.invoke, FunctionName=name, Qualifier="non-existent-alias", Payload=b"{}")
    message = f"Function not found: {arn}:non-existent-alias"
    assert_not_found(missing, message)


def test_alias_routing_config(aws: Callable[..., Any], role: str) -> None:
    """test_alias_routingconfig: create_alias_response with the weights, and both versions answer."""
    lam = aws("lambda")
    made = versioned(aws, role, Description="First version :)", Publish=True)
    name = made["FunctionName"]
    assert made["Version"] == "1"
    lam.update_function_code(FunctionName=name, ZipFile=zip_of(VERSION % "version2", "handler.py"))
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    second = lam.publish_version(FunctionName=name, Description="Second version description :)")["Version"]
    alias = lam.create_alias(FunctionName=name, FunctionVersion="1", Name="alias1",
                             RoutingConfig={"AdditionalVersionWeights": {second: 0.5}})  # fmt: skip
    assert alias["RoutingConfig"] == {"AdditionalVersionWeights": {"2": 0.5}} and alias["FunctionVersion"] == "1"
    hit = {ran(aws, name, "alias1")[1]["version_from_ctx"] for _ in range(40)}
    assert hit == {"1", "2"}


# -------------------------------------------------------------------------- TestRequestIdHandling
def test_the_request_id_in_context_and_logs(aws: Callable[..., Any], role: str) -> None:
    """test_request_id_format, test_request_id_invoke: the answer's request id is the context's, and
    the log's START, [INFO] line, END and REPORT carry it."""
    code = '''import logging

logging.basicConfig(level=logging.INFO)
LOGGER = logging.getLogger(__name__)
LOGGER.setLevel(logging.INFO)


def handler(event, context):
    LOGGER.info("RequestId log message")
    return context.aws_request_id
'''
    lam = aws("lambda")
    assert uuid.UUID(lam.list_functions()["ResponseMetadata"]["RequestId"])
    name = create(aws, role, code)["FunctionName"]
    answer = lam.invoke(FunctionName=name)
    request_id = answer["ResponseMetadata"]["RequestId"]
    assert payload(answer) == request_id
    lines: list[str] = []
    deadline = time.monotonic() + 30
    while not any(line.startswith("REPORT") for line in lines) and time.monotonic() < deadline:
        events = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        lines = [e["message"].rstrip() for e in events if "RequestId" in e["message"]]
    assert lines[0] == f"START RequestId: {request_id} Version: $LATEST"
    assert lines[1].startswith("[INFO]\t") and lines[1].endswith(f"Z\t{request_id}\tRequestId log message")
    assert lines[2] == f"END RequestId: {request_id}"
    assert lines[3].startswith(f"REPORT RequestId: {request_id}\tDuration: ") and "\tInit Duration: " in lines[3]


# ------------------------------------------------------------- TestLambdaBaseFeatures, TestLambdaURL
@pytest.mark.parametrize("length", [1, 2])
def test_the_role_session_is_named_after_the_function(aws: Callable[..., Any], role: str, length: int) -> None:
    """test_assume_role[1] and [2]: the role session is the function's name, a one-character name's
    `<name>@lambda_function` (a session name has two characters at least)."""
    name = uuid.uuid4().hex[0] * length
    if name in [f["FunctionName"] for f in aws("lambda").list_functions()["Functions"]]:
        aws("lambda").delete_function(FunctionName=name)
    code = ('import boto3\n\n\ndef handler(event, context):\n'
            '    return boto3.client("sts").get_caller_identity()["Arn"]\n')
    aws("lambda").create_function(FunctionName=name, Role=role, Handler="handler.handler", Runtime="python3.12",
                                  Code={"ZipFile": zip_of(code, "handler.py")})  # fmt: skip
    aws("lambda").get_waiter("function_active_v2").wait(FunctionName=name)
    session = f"{name}@lambda_function" if length == 1 else name
    assumed = payload(aws("lambda").invoke(FunctionName=name))
    assert assumed == f"arn:aws:sts::000000000000:assumed-role/{role.rsplit('/', 1)[-1]}/{session}"


def url_call(server: ServerProcess, url: str) -> tuple[int, dict[str, str], bytes]:
    """A POST to a function URL, sent to the server with the URL's Host."""
    parts = urlsplit(url)
    request = urllib.request.Request(server.url + parts.path, data=b"{}", method="POST",
                                     headers={"Host": parts.netloc})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def test_url_refusals(aws: Callable[..., Any], role: str, server: ServerProcess) -> None:
    """TestLambdaPermissions test_lambda_permission_url_invocation: a URL without its permission is 403
    with AWS's troubleshooting pointer; test_lambda_url_non_existing_url: a URL id that names no
    config is 403 {"Message":null}, an AccessDeniedException."""
    name = create(aws, role)["FunctionName"]
    url = aws("lambda").create_function_url_config(FunctionName=name, AuthType="NONE")["FunctionUrl"]
    status, _, body = url_call(server, url)
    assert (status, json.loads(body)) == (403, {"Message": "Forbidden. For troubleshooting Function URL authorization "
                                                "issues, see: https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html"})
    host = urlsplit(url).netloc
    status, headers, body = url_call(server, f"http://0123456789abcdefghijklmnopqrstuv.{host.split('.', 1)[1]}/")
    assert (status, body) == (403, b'{"Message":null}')
    assert (headers["content-type"], headers["x-amzn-errortype"]) == ("application/json", "AccessDeniedException")


def public_url(aws: Callable[..., Any], name: str) -> str:
    """A URL anyone may call: the recordings' InvokeFunctionUrl statement, and the InvokeFunction one
    onceflow asks of every URL (AWS's rule for URLs since October 2025; the recording account's older)."""
    lam = aws("lambda")
    url = str(lam.create_function_url_config(FunctionName=name, AuthType="NONE")["FunctionUrl"])
    statement = lam.add_permission(FunctionName=name, StatementId="urlPermission", Action="lambda:InvokeFunctionUrl",
                                   Principal="*", FunctionUrlAuthType="NONE")["Statement"]  # fmt: skip
    assert json.loads(statement)["Condition"] == {"StringEquals": {"lambda:FunctionUrlAuthType": "NONE"}}
    lam.add_permission(FunctionName=name, StatementId="viaUrl", Action="lambda:InvokeFunction", Principal="*",
                       InvokedViaFunctionUrl=True)  # fmt: skip
    return url


@pytest.mark.parametrize(("returned", "content"), [
    ('{"hello": "world"}', b'{"hello":"world"}'),
    ('{"statusCode": 200, "body": "body123"}', b"body123"),
    ('{"statusCode": 200, "body": "{\\"hello\\": \\"world\\"}"}', b'{"hello": "world"}'),
    ('["hello", 3, True]', b'["hello",3,true]'),
    ('"hello"', b"hello"), ("3", b"3"), ("3.1", b"3.1"), ("True", b"true"),
], ids=["dict", "http-response", "http-response-json", "list-mixed", "string", "integer", "float",
        "boolean"])  # fmt: skip
def test_url_answers(aws: Callable[..., Any], role: str, server: ServerProcess, returned: str,
                     content: bytes) -> None:  # fmt: skip
    """test_lambda_url_invocation[*]: a result that is no HTTP response is written again as compact
    JSON (a string as itself), application/json, with its Content-Length."""
    name = create(aws, role, f"def handler(event, ctx):\n    return {returned}\n")["FunctionName"]
    status, headers, body = url_call(server, public_url(aws, name) + "custom_path/extend?test_param=test_value")
    assert (status, body, headers["content-type"], headers["content-length"]) == (
        200, content, "application/json", str(len(content)))  # fmt: skip


def test_url_of_a_failing_function(aws: Callable[..., Any], role: str, server: ServerProcess) -> None:
    """test_lambda_url_invocation_exception: 502 and the bare words 'Internal Server Error'."""
    name = create(aws, role, 'def handler(event, context):\n    raise Exception("x")\n')["FunctionName"]
    status, _, body = url_call(server, public_url(aws, name))
    assert (status, body) == (502, b"Internal Server Error")


def test_url_config_invoke_mode(aws: Callable[..., Any], role: str) -> None:
    """test_lambda_url_invalid_invoke_mode (the enum in AWS's order) and
    test_lambda_update_function_url_config: once given, InvokeMode is in every write's answer, an
    update without it keeping RESPONSE_STREAM."""
    lam = aws("lambda")
    name = create(aws, role)["FunctionName"]
    bad = refused(lam.create_function_url_config, FunctionName=name, AuthType="NONE", InvokeMode="UNKNOWN")
    assert bad["Error"] == {"Code": "ValidationException", "Message": (
        "1 validation error detected: Value 'UNKNOWN' at 'invokeMode' failed to satisfy constraint: Member must "
        "satisfy enum value set: [RESPONSE_STREAM, BUFFERED]")}  # fmt: skip
    made = lam.create_function_url_config(FunctionName=name, AuthType="NONE", InvokeMode="BUFFERED")
    made.pop("ResponseMetadata")
    assert sorted(made) == ["AuthType", "CreationTime", "FunctionArn", "FunctionUrl", "InvokeMode"]
    shown = ["AuthType", "CreationTime", "FunctionArn", "FunctionUrl", "InvokeMode", "LastModifiedTime"]
    for params, mode in (({"InvokeMode": "RESPONSE_STREAM"}, "RESPONSE_STREAM"), ({}, "RESPONSE_STREAM")):
        answer = lam.update_function_url_config(FunctionName=name, **params)
        answer.pop("ResponseMetadata")
        assert (sorted(answer), answer["InvokeMode"]) == (shown, mode)
        got = lam.get_function_url_config(FunctionName=name)
        got.pop("ResponseMetadata")
        assert (sorted(got), got["InvokeMode"]) == (shown, mode)


# ------------------------------------------------------ TestLambdaCleanup; test_lambda_runtimes.py
def test_a_function_recreated_at_once(aws: Callable[..., Any], role: str) -> None:
    """TestLambdaCleanup test_recreate_function: deleted and created again under its name, it is
    Pending again with a new revision, and an Event invocation of it runs (its log shows the event)."""
    lam = aws("lambda")
    first = create(aws, role, ECHO, "lambda_echo")
    name = first["FunctionName"]
    lam.delete_function(FunctionName=name)
    second = lam.create_function(FunctionName=name, Role=role, Handler="lambda_echo.handler", Runtime="python3.12",
                                 Timeout=30, Environment={"Variables": {}},
                                 Code={"ZipFile": zip_of(ECHO, "lambda_echo.py")})  # fmt: skip
    assert (second["State"], second["FunctionArn"]) == ("Pending", first["FunctionArn"])
    assert second["RevisionId"] != first["RevisionId"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    assert lam.invoke(FunctionName=name, InvocationType="Event")["StatusCode"] == 202
    printed: list[str] = []
    deadline = time.monotonic() + 30
    while "{}\n" not in printed and time.monotonic() < deadline:
        try:
            events = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        except ClientError:  # the group is made with the first events
            events = []
        printed = [e["message"] for e in events]
    assert "{}\n" in printed


def test_a_handler_in_a_submodule(aws: Callable[..., Any], role: str) -> None:
    """TestPythonRuntimes test_handler_in_submodule (validated on AWS, no snapshot): the handler
    localstack_package.def.main.handler, a package named by a Python keyword, is found."""
    code = "def handler(event, context):\n    return {'event': event}\n"
    name = f"rec13-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(
        FunctionName=name, Role=role, Runtime="python3.12", Handler="localstack_package.def.main.handler",
        Code={"ZipFile": zip_of(code, "localstack_package/def/main.py")},
    )  # fmt: skip
    aws("lambda").get_waiter("function_active_v2").wait(FunctionName=name)
    answer = aws("lambda").invoke(FunctionName=name, Payload=b"{}")
    assert answer["StatusCode"] == 200 and payload(answer) == {"event": {}}


def test_a_url_calls_request_id(aws: Callable[..., Any], role: str, server: ServerProcess) -> None:
    """TestRequestIdHandling test_request_id_invoke_url: the answer's x-amzn-RequestId is the
    invocation's, as its END line in the log names it."""
    name = create(aws, role, "def handler(event, ctx):\n    return 'hi'\n")["FunctionName"]
    status, headers, body = url_call(server, public_url(aws, name) + "custom_path/extend?test_param=test_value")
    assert (status, body) == (200, b"hi")
    request_id = headers["x-amzn-requestid"]
    ends: list[str] = []
    deadline = time.monotonic() + 30
    while not ends and time.monotonic() < deadline:
        try:
            events = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        except ClientError:  # the group is made with the first events
            events = []
        ends = [e["message"].rstrip() for e in events if e["message"].startswith("END")]
    assert ends == [f"END RequestId: {request_id}"]
