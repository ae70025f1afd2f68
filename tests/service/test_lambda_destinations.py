"""EventInvokeConfig through boto3: the CRUD operations, and Event invocations retried and their
records sent to a Lambda destination as AWS sends them."""

from __future__ import annotations

import io
import json
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverproc import client_factory

ACCOUNT, REGION = "000000000000", "us-east-1"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
SOURCE = '''
def handler(event, context):
    if event.get("fail"):
        raise RuntimeError("cannot " + event["fail"])
    return {"done": event}
'''
RECORDER = '''
import json
import threading
def handler(event, context):
    print("RECORD " + json.dumps(event))
'''


def make_zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", text)
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return make_role(aws)


def make_role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"dest-role-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="destinations", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["lambda:InvokeFunction", "sqs:SendMessage"], "Resource": "*"}],
    }))  # fmt: skip
    return arn


def deploy(aws: Callable[..., Any], role: str, text: str) -> str:
    name = f"dest-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip(text)})  # fmt: skip
    return name


def arn(name: str, qualifier: str | None = None) -> str:
    base = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
    return f"{base}:{qualifier}" if qualifier else base


def refused(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return excinfo.value.response["Error"]["Code"], excinfo.value.response["Error"]["Message"]


def records(aws: Callable[..., Any], recorder: str, count: int) -> list[dict[str, Any]]:
    deadline = time.monotonic() + 30
    found: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            events = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{recorder}")["events"]
        except ClientError:
            events = []
        found = [json.loads(e["message"][len("RECORD "):]) for e in events if e["message"].startswith("RECORD ")]
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError(f"expected {count} records, got {found}")


def test_put_get_update_list_delete(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    fn, target = deploy(aws, role, SOURCE), deploy(aws, role, RECORDER)
    with pytest.raises(ClientError) as excinfo:
        lam.get_function_event_invoke_config(FunctionName=fn)
    assert refused(excinfo) == ("ResourceNotFoundException",
                                f"The function {arn(fn, '$LATEST')} doesn't have an EventInvokeConfig")  # fmt: skip
    put = lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=1)
    assert put["FunctionArn"] == arn(fn, "$LATEST") and put["MaximumRetryAttempts"] == 1
    assert put["DestinationConfig"] == {"OnSuccess": {}, "OnFailure": {}}
    assert "MaximumEventAgeInSeconds" not in put and put["LastModified"]
    updated = lam.update_function_event_invoke_config(
        FunctionName=fn, MaximumEventAgeInSeconds=120, DestinationConfig={"OnFailure": {"Destination": arn(target)}})
    assert (updated["MaximumRetryAttempts"], updated["MaximumEventAgeInSeconds"]) == (1, 120)
    assert updated["DestinationConfig"] == {"OnSuccess": {}, "OnFailure": {"Destination": arn(target)}}
    replaced = lam.put_function_event_invoke_config(FunctionName=fn, MaximumEventAgeInSeconds=60)
    assert "MaximumRetryAttempts" not in replaced and replaced["DestinationConfig"]["OnFailure"] == {}
    assert lam.get_function_event_invoke_config(FunctionName=arn(fn))["MaximumEventAgeInSeconds"] == 60

    lam.publish_version(FunctionName=fn)
    lam.put_function_event_invoke_config(FunctionName=fn, Qualifier="1", MaximumRetryAttempts=0)
    listed = lam.list_function_event_invoke_configs(FunctionName=fn)["FunctionEventInvokeConfigs"]
    assert [c["FunctionArn"] for c in listed] == [arn(fn, "$LATEST"), arn(fn, "1")]

    with pytest.raises(ClientError) as excinfo:
        lam.put_function_event_invoke_config(FunctionName=fn)
    assert refused(excinfo) == ("InvalidParameterValueException",
                                "You must specify at least one of error handling or destination setting.")  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=3)
    assert refused(excinfo)[0] in ("ValidationException", "InvalidParameterValueException")
    queue = f"arn:aws:sns:{REGION}:{ACCOUNT}:topic"
    with pytest.raises(ClientError) as excinfo:  # the role may not publish to SNS
        lam.put_function_event_invoke_config(FunctionName=fn, DestinationConfig={"OnSuccess": {"Destination": queue}})
    assert refused(excinfo) == ("InvalidParameterValueException",
                                f"The function's execution role does not have permissions to call Publish on {queue}")
    assert lam.get_function_event_invoke_config(FunctionName=fn)["MaximumEventAgeInSeconds"] == 60  # unchanged
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_event_invoke_config(FunctionName=target, MaximumRetryAttempts=0)
    assert refused(excinfo)[0] == "ResourceNotFoundException"

    deleted = lam.delete_function_event_invoke_config(FunctionName=fn)
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError):
        lam.get_function_event_invoke_config(FunctionName=fn)
    assert lam.get_function_event_invoke_config(FunctionName=fn, Qualifier="1")["MaximumRetryAttempts"] == 0


def test_records_sent_to_a_lambda_destination(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    fn, recorder = deploy(aws, role, SOURCE), deploy(aws, role, RECORDER)
    lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=0, DestinationConfig={
        "OnSuccess": {"Destination": arn(recorder)}, "OnFailure": {"Destination": arn(recorder)}})  # fmt: skip
    ok = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b'{"order": 1}')
    assert ok["StatusCode"] == 202
    success = records(aws, recorder, 1)[0]
    assert success["version"] == "1.0" and success["timestamp"].endswith("Z")
    assert success["requestContext"] == {
        "requestId": ok["ResponseMetadata"]["RequestId"], "functionArn": arn(fn, "$LATEST"),
        "condition": "Success", "approximateInvokeCount": 1,
    }  # fmt: skip
    assert success["requestPayload"] == {"order": 1}
    assert success["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    assert success["responsePayload"] == {"done": {"order": 1}}

    failed = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b'{"fail": "pay"}')
    failure = next(r for r in records(aws, recorder, 2) if r["requestContext"]["condition"] != "Success")
    assert failure["requestContext"]["condition"] == "RetriesExhausted"
    assert failure["requestContext"]["requestId"] == failed["ResponseMetadata"]["RequestId"]
    assert failure["requestContext"]["approximateInvokeCount"] == 1
    assert failure["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert failure["responsePayload"]["errorMessage"] == "cannot pay"
    assert failure["responsePayload"]["errorType"] == "RuntimeError"


def test_an_event_too_old_to_retry_goes_to_on_failure(server_factory: Callable[..., Any]) -> None:
    """MaximumEventAgeInSeconds=60 and a first retry due 60 s (scaled) after the event arrived: the
    retry is not run, the record says EventAgeExceeded after the one attempt, with that attempt's
    response (recorded on AWS, test_lambda_destinations.snapshot.json test_maxeventage)."""
    server = server_factory(time_scale=100.0)
    scoped = client_factory(server.url)
    role_arn = make_role(scoped)
    fn, recorder = deploy(scoped, role_arn, SOURCE), deploy(scoped, role_arn, RECORDER)
    lam = scoped("lambda")
    lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=2, MaximumEventAgeInSeconds=60,
                                         DestinationConfig={"OnFailure": {"Destination": arn(recorder)}})  # fmt: skip
    out = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b'{"fail": "ship"}')
    record = records(scoped, recorder, 1)[0]
    assert record["requestContext"]["condition"] == "EventAgeExceeded"
    assert record["requestContext"]["requestId"] == out["ResponseMetadata"]["RequestId"]
    assert record["requestContext"]["approximateInvokeCount"] == 1
    assert record["requestPayload"] == {"fail": "ship"}
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    assert record["responsePayload"]["errorType"] == "RuntimeError"


def test_zero_reserved_concurrency_sends_the_event_to_the_failure_destination(
    aws: Callable[..., Any], role: str
) -> None:
    """As recorded on AWS: the record's condition is ZeroReservedConcurrency, the function never ran."""
    lam = aws("lambda")
    fn, recorder = deploy(aws, role, SOURCE), deploy(aws, role, RECORDER)
    lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=0)
    lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=0,
                                         DestinationConfig={"OnFailure": {"Destination": arn(recorder)}})  # fmt: skip
    sent = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b"{}")
    assert sent["StatusCode"] == 202
    record = records(aws, recorder, 1)[0]
    assert sorted(record) == ["requestContext", "requestPayload", "timestamp", "version"]
    assert record["requestContext"] == {
        "requestId": sent["ResponseMetadata"]["RequestId"], "functionArn": arn(fn, "$LATEST"),
        "condition": "ZeroReservedConcurrency", "approximateInvokeCount": 0,
    }  # fmt: skip
    assert record["requestPayload"] == {}


HOLDER = '''
import time
def handler(event, context):
    if event.get("hold"):
        time.sleep(event["hold"])
    print("RAN " + context.aws_request_id)
    return "ok"
'''


def test_a_throttled_event_past_its_age_goes_to_on_failure_unrun(server_factory: Callable[..., Any]) -> None:
    """Docs (invocation-async-error-handling): a throttled event returns to the queue and is tried again,
    waits growing from 1 s to 5 min, until its maximum age; then it is dropped to the on-failure
    destination. Its one reserved slot held 6 s (600 s scaled) by a synchronous call, an event with
    MaximumEventAgeInSeconds=60 never runs: EventAgeExceeded, approximateInvokeCount 0 and no
    response (as the recorded ZeroReservedConcurrency record has none). UNCONFIRMED on AWS: the count."""
    server = server_factory(time_scale=100.0)
    scoped = client_factory(server.url)
    role_arn = make_role(scoped)
    fn, recorder = deploy(scoped, role_arn, HOLDER), deploy(scoped, role_arn, RECORDER)
    lam = scoped("lambda")
    lam.update_function_configuration(FunctionName=fn, Timeout=20)
    lam.get_waiter("function_updated_v2").wait(FunctionName=fn)
    lam.put_function_concurrency(FunctionName=fn, ReservedConcurrentExecutions=1)
    lam.put_function_event_invoke_config(FunctionName=fn, MaximumEventAgeInSeconds=60,
                                         DestinationConfig={"OnFailure": {"Destination": arn(recorder)}})  # fmt: skip
    def hold() -> None:  # tried until it runs: a probe below may hold the slot for a moment
        for _ in range(100):
            try:
                scoped("lambda").invoke(FunctionName=fn, Payload=b'{"hold": 6}')
                return
            except ClientError:
                time.sleep(0.05)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until the synchronous call holds the slot
            try:
                lam.invoke(FunctionName=fn, Payload=b"{}")
            except ClientError as exc:  # sequential probes: only the holder can hold the slot
                assert exc.response["Error"]["Code"] == "TooManyRequestsException"
                break
            time.sleep(0.05)
        sent = lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b'{"late": true}')
        record = records(scoped, recorder, 1)[0]
    finally:
        holder.join()
    request_id = sent["ResponseMetadata"]["RequestId"]
    assert record["requestContext"] == {"requestId": request_id, "functionArn": arn(fn, "$LATEST"),
                                        "condition": "EventAgeExceeded", "approximateInvokeCount": 0}  # fmt: skip
    assert record["requestPayload"] == {"late": True} and "responseContext" not in record
    ran = [e["message"] for e in scoped("logs").filter_log_events(logGroupName=f"/aws/lambda/{fn}")["events"]]
    assert f"RAN {request_id}\n" not in ran
